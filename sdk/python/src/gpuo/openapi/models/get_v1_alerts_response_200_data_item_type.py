from enum import StrEnum


class GetV1AlertsResponse200DataItemType(StrEnum):
    BUDGET_LIMIT = "budget_limit"
    PRICE_DROP = "price_drop"

    def __str__(self) -> str:
        return str(self.value)
