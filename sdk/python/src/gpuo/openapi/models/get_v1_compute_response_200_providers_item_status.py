from enum import StrEnum


class GetV1ComputeResponse200ProvidersItemStatus(StrEnum):
    FRESH = "fresh"
    PENDING = "pending"
    STALE = "stale"

    def __str__(self) -> str:
        return str(self.value)
