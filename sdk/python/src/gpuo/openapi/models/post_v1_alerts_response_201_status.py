from enum import StrEnum


class PostV1AlertsResponse201Status(StrEnum):
    ACTIVE = "active"
    TRIGGERED = "triggered"

    def __str__(self) -> str:
        return str(self.value)
