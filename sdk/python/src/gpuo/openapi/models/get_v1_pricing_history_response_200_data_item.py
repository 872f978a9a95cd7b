from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_pricing_history_response_200_data_item_provider import (
    GetV1PricingHistoryResponse200DataItemProvider,
)

T = TypeVar("T", bound="GetV1PricingHistoryResponse200DataItem")


@_attrs_define
class GetV1PricingHistoryResponse200DataItem:
    """
    Attributes:
        timestamp (str): ISO 8601 UTC timestamp
        provider (GetV1PricingHistoryResponse200DataItemProvider):
        min_price_per_hour (float):
    """

    timestamp: str
    provider: GetV1PricingHistoryResponse200DataItemProvider
    min_price_per_hour: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        timestamp = self.timestamp

        provider = self.provider.value

        min_price_per_hour = self.min_price_per_hour

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "timestamp": timestamp,
                "provider": provider,
                "min_price_per_hour": min_price_per_hour,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        timestamp = d.pop("timestamp")

        provider = GetV1PricingHistoryResponse200DataItemProvider(d.pop("provider"))

        min_price_per_hour = d.pop("min_price_per_hour")

        get_v1_pricing_history_response_200_data_item = cls(
            timestamp=timestamp,
            provider=provider,
            min_price_per_hour=min_price_per_hour,
        )

        get_v1_pricing_history_response_200_data_item.additional_properties = d
        return get_v1_pricing_history_response_200_data_item

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
