from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_limits_response_200_data_item_name import (
    GetV1LimitsResponse200DataItemName,
)

T = TypeVar("T", bound="GetV1LimitsResponse200DataItem")


@_attrs_define
class GetV1LimitsResponse200DataItem:
    """
    Attributes:
        name (GetV1LimitsResponse200DataItemName):
        limit (int): the most this account may have; the next create beyond it is 422 limit_reached
        used (int): how many the account has now
        description (str): what counts, and which requests the limit refuses
    """

    name: GetV1LimitsResponse200DataItemName
    limit: int
    used: int
    description: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name.value

        limit = self.limit

        used = self.used

        description = self.description

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "limit": limit,
                "used": used,
                "description": description,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = GetV1LimitsResponse200DataItemName(d.pop("name"))

        limit = d.pop("limit")

        used = d.pop("used")

        description = d.pop("description")

        get_v1_limits_response_200_data_item = cls(
            name=name,
            limit=limit,
            used=used,
            description=description,
        )

        get_v1_limits_response_200_data_item.additional_properties = d
        return get_v1_limits_response_200_data_item

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
