from enum import StrEnum


class GetV1ApiKeysResponse200DataItemSpendLimitType0Period(StrEnum):
    DAY = "day"
    MONTH = "month"

    def __str__(self) -> str:
        return str(self.value)
