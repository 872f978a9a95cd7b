from enum import StrEnum


class GetV1JobsIdResponse200ProvidersItem(StrEnum):
    LAMBDA = "lambda"
    RUNPOD = "runpod"
    VASTAI = "vastai"

    def __str__(self) -> str:
        return str(self.value)
