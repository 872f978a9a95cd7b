from enum import StrEnum


class PostV1AlertsBodyType0Action(StrEnum):
    NOTIFY = "notify"

    def __str__(self) -> str:
        return str(self.value)
