from enum import StrEnum


class GetV1JobsIdResponse200AttemptsItemProvider(StrEnum):
    LAMBDA = "lambda"
    RUNPOD = "runpod"
    VASTAI = "vastai"

    def __str__(self) -> str:
        return str(self.value)
