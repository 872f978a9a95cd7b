from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_compute_response_200_errors_item_provider import (
    GetV1ComputeResponse200ErrorsItemProvider,
)

T = TypeVar("T", bound="GetV1ComputeResponse200ErrorsItem")


@_attrs_define
class GetV1ComputeResponse200ErrorsItem:
    """
    Attributes:
        provider (GetV1ComputeResponse200ErrorsItemProvider):
        code (str):
        message (str):
    """

    provider: GetV1ComputeResponse200ErrorsItemProvider
    code: str
    message: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        provider = self.provider.value

        code = self.code

        message = self.message

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "provider": provider,
                "code": code,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        provider = GetV1ComputeResponse200ErrorsItemProvider(d.pop("provider"))

        code = d.pop("code")

        message = d.pop("message")

        get_v1_compute_response_200_errors_item = cls(
            provider=provider,
            code=code,
            message=message,
        )

        get_v1_compute_response_200_errors_item.additional_properties = d
        return get_v1_compute_response_200_errors_item

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
