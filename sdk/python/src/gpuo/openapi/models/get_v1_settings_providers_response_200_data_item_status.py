from enum import StrEnum


class GetV1SettingsProvidersResponse200DataItemStatus(StrEnum):
    INVALID = "invalid"
    UNVERIFIED = "unverified"
    VALID = "valid"

    def __str__(self) -> str:
        return str(self.value)
