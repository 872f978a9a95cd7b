from enum import StrEnum


class GetV1RecommendationsResponse200RecommendationsItemAlternativeProvider(StrEnum):
    LAMBDA = "lambda"
    RUNPOD = "runpod"
    VASTAI = "vastai"

    def __str__(self) -> str:
        return str(self.value)
