from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.get_v1_gpus_response_200_data_item import GetV1GpusResponse200DataItem
    from ..models.get_v1_gpus_response_200_families import GetV1GpusResponse200Families


T = TypeVar("T", bound="GetV1GpusResponse200")


@_attrs_define
class GetV1GpusResponse200:
    """
    Attributes:
        data (list[GetV1GpusResponse200DataItem]):
        families (GetV1GpusResponse200Families): names of several GPU types (refused with the list): the slugs each
            means
    """

    data: list[GetV1GpusResponse200DataItem]
    families: GetV1GpusResponse200Families
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = []
        for data_item_data in self.data:
            data_item = data_item_data.to_dict()
            data.append(data_item)

        families = self.families.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
                "families": families,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.get_v1_gpus_response_200_data_item import (
            GetV1GpusResponse200DataItem,
        )
        from ..models.get_v1_gpus_response_200_families import (
            GetV1GpusResponse200Families,
        )

        d = dict(src_dict)
        data = []
        _data = d.pop("data")
        for data_item_data in _data:
            data_item = GetV1GpusResponse200DataItem.from_dict(data_item_data)

            data.append(data_item)

        families = GetV1GpusResponse200Families.from_dict(d.pop("families"))

        get_v1_gpus_response_200 = cls(
            data=data,
            families=families,
        )

        get_v1_gpus_response_200.additional_properties = d
        return get_v1_gpus_response_200

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
