from enum import StrEnum


class PostV1ComputeProviderInstanceIdStartResponse200Status(StrEnum):
    FAILED = "failed"
    PROVISIONING = "provisioning"
    RUNNING = "running"
    STOPPED = "stopped"
    STOPPING = "stopping"
    TERMINATED = "terminated"
    TERMINATING = "terminating"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return str(self.value)
