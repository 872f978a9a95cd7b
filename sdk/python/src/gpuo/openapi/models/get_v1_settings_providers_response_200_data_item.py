from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_settings_providers_response_200_data_item_provider import (
    GetV1SettingsProvidersResponse200DataItemProvider,
)
from ..models.get_v1_settings_providers_response_200_data_item_status import (
    GetV1SettingsProvidersResponse200DataItemStatus,
)

T = TypeVar("T", bound="GetV1SettingsProvidersResponse200DataItem")


@_attrs_define
class GetV1SettingsProvidersResponse200DataItem:
    """
    Attributes:
        provider (GetV1SettingsProvidersResponse200DataItemProvider):
        display_label (str):
        key_hint (str): the last characters of the key, e.g. "…abcd"; the key itself is never returned
        status (GetV1SettingsProvidersResponse200DataItemStatus):
        last_verified_at (None | str): ISO 8601 UTC timestamp
        created_at (str): ISO 8601 UTC timestamp
        updated_at (str): ISO 8601 UTC timestamp
    """

    provider: GetV1SettingsProvidersResponse200DataItemProvider
    display_label: str
    key_hint: str
    status: GetV1SettingsProvidersResponse200DataItemStatus
    last_verified_at: None | str
    created_at: str
    updated_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        provider = self.provider.value

        display_label = self.display_label

        key_hint = self.key_hint

        status = self.status.value

        last_verified_at: None | str
        last_verified_at = self.last_verified_at

        created_at = self.created_at

        updated_at = self.updated_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "provider": provider,
                "display_label": display_label,
                "key_hint": key_hint,
                "status": status,
                "last_verified_at": last_verified_at,
                "created_at": created_at,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        provider = GetV1SettingsProvidersResponse200DataItemProvider(d.pop("provider"))

        display_label = d.pop("display_label")

        key_hint = d.pop("key_hint")

        status = GetV1SettingsProvidersResponse200DataItemStatus(d.pop("status"))

        def _parse_last_verified_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_verified_at = _parse_last_verified_at(d.pop("last_verified_at"))

        created_at = d.pop("created_at")

        updated_at = d.pop("updated_at")

        get_v1_settings_providers_response_200_data_item = cls(
            provider=provider,
            display_label=display_label,
            key_hint=key_hint,
            status=status,
            last_verified_at=last_verified_at,
            created_at=created_at,
            updated_at=updated_at,
        )

        get_v1_settings_providers_response_200_data_item.additional_properties = d
        return get_v1_settings_providers_response_200_data_item

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
