from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.get_v1_pricing_response_200_gpu_types_item import (
        GetV1PricingResponse200GpuTypesItem,
    )


T = TypeVar("T", bound="GetV1PricingResponse200")


@_attrs_define
class GetV1PricingResponse200:
    """
    Attributes:
        gpu_types (list[GetV1PricingResponse200GpuTypesItem]):
        last_updated (str): ISO 8601 UTC timestamp
    """

    gpu_types: list[GetV1PricingResponse200GpuTypesItem]
    last_updated: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        gpu_types = []
        for gpu_types_item_data in self.gpu_types:
            gpu_types_item = gpu_types_item_data.to_dict()
            gpu_types.append(gpu_types_item)

        last_updated = self.last_updated

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "gpu_types": gpu_types,
                "last_updated": last_updated,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.get_v1_pricing_response_200_gpu_types_item import (
            GetV1PricingResponse200GpuTypesItem,
        )

        d = dict(src_dict)
        gpu_types = []
        _gpu_types = d.pop("gpu_types")
        for gpu_types_item_data in _gpu_types:
            gpu_types_item = GetV1PricingResponse200GpuTypesItem.from_dict(
                gpu_types_item_data
            )

            gpu_types.append(gpu_types_item)

        last_updated = d.pop("last_updated")

        get_v1_pricing_response_200 = cls(
            gpu_types=gpu_types,
            last_updated=last_updated,
        )

        get_v1_pricing_response_200.additional_properties = d
        return get_v1_pricing_response_200

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
