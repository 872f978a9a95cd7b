from enum import StrEnum


class GetV1TemplatesResponse200DataItemCategory(StrEnum):
    CREATIVE = "creative"
    GENERAL = "general"
    INFERENCE = "inference"
    ML_TRAINING = "ml-training"

    def __str__(self) -> str:
        return str(self.value)
