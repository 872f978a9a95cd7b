from enum import StrEnum


class PostV1ApiKeysBodySpendLimitPeriod(StrEnum):
    DAY = "day"
    MONTH = "month"

    def __str__(self) -> str:
        return str(self.value)
