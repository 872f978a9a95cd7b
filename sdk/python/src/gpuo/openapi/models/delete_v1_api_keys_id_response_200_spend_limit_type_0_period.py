from enum import StrEnum


class DeleteV1ApiKeysIdResponse200SpendLimitType0Period(StrEnum):
    DAY = "day"
    MONTH = "month"

    def __str__(self) -> str:
        return str(self.value)
