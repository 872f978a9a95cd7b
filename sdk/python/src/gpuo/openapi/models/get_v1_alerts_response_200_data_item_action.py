from enum import StrEnum


class GetV1AlertsResponse200DataItemAction(StrEnum):
    NOTIFY = "notify"
    STOP_INSTANCES = "stop_instances"

    def __str__(self) -> str:
        return str(self.value)
