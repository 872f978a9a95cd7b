from enum import StrEnum


class PutV1SchedulesIdResponse200Status(StrEnum):
    ACTIVE = "active"
    PAUSED = "paused"

    def __str__(self) -> str:
        return str(self.value)
