from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_pricing_response_200_gpu_types_item_offers_item_provider import (
    GetV1PricingResponse200GpuTypesItemOffersItemProvider,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="GetV1PricingResponse200GpuTypesItemOffersItem")


@_attrs_define
class GetV1PricingResponse200GpuTypesItemOffersItem:
    """
    Attributes:
        provider (GetV1PricingResponse200GpuTypesItemOffersItemProvider):
        price_per_hour (float): dollars per GPU per hour
        availability (int): units available now
        spot (bool):
        region (str | Unset):
    """

    provider: GetV1PricingResponse200GpuTypesItemOffersItemProvider
    price_per_hour: float
    availability: int
    spot: bool
    region: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        provider = self.provider.value

        price_per_hour = self.price_per_hour

        availability = self.availability

        spot = self.spot

        region = self.region

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "provider": provider,
                "price_per_hour": price_per_hour,
                "availability": availability,
                "spot": spot,
            }
        )
        if region is not UNSET:
            field_dict["region"] = region

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        provider = GetV1PricingResponse200GpuTypesItemOffersItemProvider(
            d.pop("provider")
        )

        price_per_hour = d.pop("price_per_hour")

        availability = d.pop("availability")

        spot = d.pop("spot")

        region = d.pop("region", UNSET)

        get_v1_pricing_response_200_gpu_types_item_offers_item = cls(
            provider=provider,
            price_per_hour=price_per_hour,
            availability=availability,
            spot=spot,
            region=region,
        )

        get_v1_pricing_response_200_gpu_types_item_offers_item.additional_properties = d
        return get_v1_pricing_response_200_gpu_types_item_offers_item

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
