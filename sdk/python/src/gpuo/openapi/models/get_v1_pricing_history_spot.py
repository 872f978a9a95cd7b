from enum import StrEnum


class GetV1PricingHistorySpot(StrEnum):
    FALSE = "false"
    TRUE = "true"

    def __str__(self) -> str:
        return str(self.value)
