from enum import StrEnum


class GetV1ComputeStatus(StrEnum):
    ENDED = "ended"

    def __str__(self) -> str:
        return str(self.value)
