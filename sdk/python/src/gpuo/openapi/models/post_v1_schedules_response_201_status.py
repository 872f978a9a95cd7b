from enum import StrEnum


class PostV1SchedulesResponse201Status(StrEnum):
    ACTIVE = "active"
    PAUSED = "paused"

    def __str__(self) -> str:
        return str(self.value)
