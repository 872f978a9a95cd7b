from enum import StrEnum


class PostV1SettingsProvidersProviderVerifyResponse200Status(StrEnum):
    INVALID = "invalid"
    UNVERIFIED = "unverified"
    VALID = "valid"

    def __str__(self) -> str:
        return str(self.value)
