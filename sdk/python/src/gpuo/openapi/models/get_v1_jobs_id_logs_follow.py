from enum import StrEnum


class GetV1JobsIdLogsFollow(StrEnum):
    FALSE = "false"
    TRUE = "true"

    def __str__(self) -> str:
        return str(self.value)
