from enum import StrEnum


class GetV1ComputeProviderInstanceIdResponse200TimelineItemEvent(StrEnum):
    CREATED = "created"
    FAILED = "failed"
    IDLE_STOPPED = "idle_stopped"
    PREEMPTED = "preempted"
    REQUESTED = "requested"
    RUNNING = "running"
    STOPPED = "stopped"
    TERMINATED = "terminated"

    def __str__(self) -> str:
        return str(self.value)
