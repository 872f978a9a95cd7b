from enum import StrEnum


class PostV1ComputePlanResponse200Type1CandidatesItemProvider(StrEnum):
    LAMBDA = "lambda"
    RUNPOD = "runpod"
    VASTAI = "vastai"

    def __str__(self) -> str:
        return str(self.value)
