from enum import StrEnum


class PostV1JobsBodySpotPolicy(StrEnum):
    AUTO = "auto"
    ON_DEMAND = "on-demand"
    SPOT = "spot"

    def __str__(self) -> str:
        return str(self.value)
