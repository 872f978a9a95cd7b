from enum import StrEnum


class GetV1ComputeProviderInstanceIdResponse200EndKind(StrEnum):
    BALANCE_DEPLETED = "balance_depleted"
    BOOT_FAILED = "boot_failed"
    IDLE_STOPPED = "idle_stopped"
    KEY_CAP = "key_cap"
    LOST = "lost"
    PREEMPTED = "preempted"
    TERMINATED = "terminated"

    def __str__(self) -> str:
        return str(self.value)
