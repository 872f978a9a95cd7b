from enum import StrEnum


class PostV1ComputeProviderInstanceIdStartResponse202Provider(StrEnum):
    LAMBDA = "lambda"
    RUNPOD = "runpod"
    VASTAI = "vastai"

    def __str__(self) -> str:
        return str(self.value)
