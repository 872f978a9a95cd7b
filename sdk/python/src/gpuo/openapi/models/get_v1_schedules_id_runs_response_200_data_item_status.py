from enum import StrEnum


class GetV1SchedulesIdRunsResponse200DataItemStatus(StrEnum):
    CANCELLED = "cancelled"
    FAILED = "failed"
    LAUNCHING = "launching"
    PREEMPTED = "preempted"
    RUNNING = "running"
    SKIPPED = "skipped"
    STOPPED_MAX_COST = "stopped_max_cost"
    STOPPED_MAX_DURATION = "stopped_max_duration"
    SUCCEEDED = "succeeded"

    def __str__(self) -> str:
        return str(self.value)
