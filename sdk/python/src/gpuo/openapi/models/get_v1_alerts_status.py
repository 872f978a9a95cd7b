from enum import StrEnum


class GetV1AlertsStatus(StrEnum):
    ACTIVE = "active"
    TRIGGERED = "triggered"

    def __str__(self) -> str:
        return str(self.value)
