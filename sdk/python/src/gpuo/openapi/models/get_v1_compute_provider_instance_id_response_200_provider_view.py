from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="GetV1ComputeProviderInstanceIdResponse200ProviderView")


@_attrs_define
class GetV1ComputeProviderInstanceIdResponse200ProviderView:
    """what the provider last listed, when it differs from an ended record (the service keeps ending it)

    Attributes:
        status (None | str):
        provider_status (None | str):
        observed_at (None | str): ISO 8601 UTC timestamp
    """

    status: None | str
    provider_status: None | str
    observed_at: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        status: None | str
        status = self.status

        provider_status: None | str
        provider_status = self.provider_status

        observed_at: None | str
        observed_at = self.observed_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "provider_status": provider_status,
                "observed_at": observed_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_status(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        status = _parse_status(d.pop("status"))

        def _parse_provider_status(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        provider_status = _parse_provider_status(d.pop("provider_status"))

        def _parse_observed_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        observed_at = _parse_observed_at(d.pop("observed_at"))

        get_v1_compute_provider_instance_id_response_200_provider_view = cls(
            status=status,
            provider_status=provider_status,
            observed_at=observed_at,
        )

        get_v1_compute_provider_instance_id_response_200_provider_view.additional_properties = d
        return get_v1_compute_provider_instance_id_response_200_provider_view

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
