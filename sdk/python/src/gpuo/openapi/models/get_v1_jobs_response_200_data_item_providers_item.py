from enum import StrEnum


class GetV1JobsResponse200DataItemProvidersItem(StrEnum):
    LAMBDA = "lambda"
    RUNPOD = "runpod"
    VASTAI = "vastai"

    def __str__(self) -> str:
        return str(self.value)
