from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_compute_response_200_providers_item_provider import (
    GetV1ComputeResponse200ProvidersItemProvider,
)
from ..models.get_v1_compute_response_200_providers_item_status import (
    GetV1ComputeResponse200ProvidersItemStatus,
)

T = TypeVar("T", bound="GetV1ComputeResponse200ProvidersItem")


@_attrs_define
class GetV1ComputeResponse200ProvidersItem:
    """
    Attributes:
        provider (GetV1ComputeResponse200ProvidersItemProvider):
        observed_at (None | str): when the provider answered the last good round (the list is as of then)
        status (GetV1ComputeResponse200ProvidersItemStatus):
    """

    provider: GetV1ComputeResponse200ProvidersItemProvider
    observed_at: None | str
    status: GetV1ComputeResponse200ProvidersItemStatus
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        provider = self.provider.value

        observed_at: None | str
        observed_at = self.observed_at

        status = self.status.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "provider": provider,
                "observed_at": observed_at,
                "status": status,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        provider = GetV1ComputeResponse200ProvidersItemProvider(d.pop("provider"))

        def _parse_observed_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        observed_at = _parse_observed_at(d.pop("observed_at"))

        status = GetV1ComputeResponse200ProvidersItemStatus(d.pop("status"))

        get_v1_compute_response_200_providers_item = cls(
            provider=provider,
            observed_at=observed_at,
            status=status,
        )

        get_v1_compute_response_200_providers_item.additional_properties = d
        return get_v1_compute_response_200_providers_item

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
