from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.post_v1_settings_providers_provider_verify_response_200_provider import (
    PostV1SettingsProvidersProviderVerifyResponse200Provider,
)
from ..models.post_v1_settings_providers_provider_verify_response_200_status import (
    PostV1SettingsProvidersProviderVerifyResponse200Status,
)

T = TypeVar("T", bound="PostV1SettingsProvidersProviderVerifyResponse200")


@_attrs_define
class PostV1SettingsProvidersProviderVerifyResponse200:
    """
    Attributes:
        provider (PostV1SettingsProvidersProviderVerifyResponse200Provider):
        valid (bool):
        status (PostV1SettingsProvidersProviderVerifyResponse200Status):
        message (str):
        checked_at (str): ISO 8601 UTC timestamp
    """

    provider: PostV1SettingsProvidersProviderVerifyResponse200Provider
    valid: bool
    status: PostV1SettingsProvidersProviderVerifyResponse200Status
    message: str
    checked_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        provider = self.provider.value

        valid = self.valid

        status = self.status.value

        message = self.message

        checked_at = self.checked_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "provider": provider,
                "valid": valid,
                "status": status,
                "message": message,
                "checked_at": checked_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        provider = PostV1SettingsProvidersProviderVerifyResponse200Provider(
            d.pop("provider")
        )

        valid = d.pop("valid")

        status = PostV1SettingsProvidersProviderVerifyResponse200Status(d.pop("status"))

        message = d.pop("message")

        checked_at = d.pop("checked_at")

        post_v1_settings_providers_provider_verify_response_200 = cls(
            provider=provider,
            valid=valid,
            status=status,
            message=message,
            checked_at=checked_at,
        )

        post_v1_settings_providers_provider_verify_response_200.additional_properties = d
        return post_v1_settings_providers_provider_verify_response_200

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
