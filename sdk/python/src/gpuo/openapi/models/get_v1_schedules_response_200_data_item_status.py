from enum import StrEnum


class GetV1SchedulesResponse200DataItemStatus(StrEnum):
    ACTIVE = "active"
    PAUSED = "paused"

    def __str__(self) -> str:
        return str(self.value)
