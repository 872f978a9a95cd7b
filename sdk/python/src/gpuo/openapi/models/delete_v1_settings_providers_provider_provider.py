from enum import StrEnum


class DeleteV1SettingsProvidersProviderProvider(StrEnum):
    LAMBDA = "lambda"
    RUNPOD = "runpod"
    VASTAI = "vastai"

    def __str__(self) -> str:
        return str(self.value)
