from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.get_v1_pricing_response_200_gpu_types_item_offers_item import (
        GetV1PricingResponse200GpuTypesItemOffersItem,
    )


T = TypeVar("T", bound="GetV1PricingResponse200GpuTypesItem")


@_attrs_define
class GetV1PricingResponse200GpuTypesItem:
    """
    Attributes:
        gpu_type (str):
        display_name (str):
        offers (list[GetV1PricingResponse200GpuTypesItemOffersItem]):
    """

    gpu_type: str
    display_name: str
    offers: list[GetV1PricingResponse200GpuTypesItemOffersItem]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        gpu_type = self.gpu_type

        display_name = self.display_name

        offers = []
        for offers_item_data in self.offers:
            offers_item = offers_item_data.to_dict()
            offers.append(offers_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "gpu_type": gpu_type,
                "display_name": display_name,
                "offers": offers,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.get_v1_pricing_response_200_gpu_types_item_offers_item import (
            GetV1PricingResponse200GpuTypesItemOffersItem,
        )

        d = dict(src_dict)
        gpu_type = d.pop("gpu_type")

        display_name = d.pop("display_name")

        offers = []
        _offers = d.pop("offers")
        for offers_item_data in _offers:
            offers_item = GetV1PricingResponse200GpuTypesItemOffersItem.from_dict(
                offers_item_data
            )

            offers.append(offers_item)

        get_v1_pricing_response_200_gpu_types_item = cls(
            gpu_type=gpu_type,
            display_name=display_name,
            offers=offers,
        )

        get_v1_pricing_response_200_gpu_types_item.additional_properties = d
        return get_v1_pricing_response_200_gpu_types_item

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
