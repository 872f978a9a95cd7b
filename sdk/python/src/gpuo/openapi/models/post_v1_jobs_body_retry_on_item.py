from enum import StrEnum


class PostV1JobsBodyRetryOnItem(StrEnum):
    ERROR = "error"
    NO_CAPACITY = "no_capacity"
    PREEMPTION = "preemption"

    def __str__(self) -> str:
        return str(self.value)
