from enum import StrEnum


class DeleteV1SettingsProvidersProviderResponse200Id(StrEnum):
    LAMBDA = "lambda"
    RUNPOD = "runpod"
    VASTAI = "vastai"

    def __str__(self) -> str:
        return str(self.value)
