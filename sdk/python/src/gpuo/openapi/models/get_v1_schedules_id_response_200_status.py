from enum import StrEnum


class GetV1SchedulesIdResponse200Status(StrEnum):
    ACTIVE = "active"
    PAUSED = "paused"

    def __str__(self) -> str:
        return str(self.value)
