from enum import StrEnum


class GetV1PricingCompareResponse200CheapestType0Provider(StrEnum):
    LAMBDA = "lambda"
    RUNPOD = "runpod"
    VASTAI = "vastai"

    def __str__(self) -> str:
        return str(self.value)
