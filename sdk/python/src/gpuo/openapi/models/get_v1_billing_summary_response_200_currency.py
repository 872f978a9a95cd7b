from enum import StrEnum


class GetV1BillingSummaryResponse200Currency(StrEnum):
    USD = "usd"

    def __str__(self) -> str:
        return str(self.value)
