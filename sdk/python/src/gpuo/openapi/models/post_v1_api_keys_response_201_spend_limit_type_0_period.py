from enum import StrEnum


class PostV1ApiKeysResponse201SpendLimitType0Period(StrEnum):
    DAY = "day"
    MONTH = "month"

    def __str__(self) -> str:
        return str(self.value)
