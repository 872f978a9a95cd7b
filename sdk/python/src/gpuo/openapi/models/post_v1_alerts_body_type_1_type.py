from enum import StrEnum


class PostV1AlertsBodyType1Type(StrEnum):
    BUDGET_LIMIT = "budget_limit"

    def __str__(self) -> str:
        return str(self.value)
