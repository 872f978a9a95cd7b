from enum import StrEnum


class PostV1AlertsResponse201Type(StrEnum):
    BUDGET_LIMIT = "budget_limit"
    PRICE_DROP = "price_drop"

    def __str__(self) -> str:
        return str(self.value)
