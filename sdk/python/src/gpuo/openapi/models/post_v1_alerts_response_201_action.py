from enum import StrEnum


class PostV1AlertsResponse201Action(StrEnum):
    NOTIFY = "notify"
    STOP_INSTANCES = "stop_instances"

    def __str__(self) -> str:
        return str(self.value)
