from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.get_v1_compute_response_200_data_item import (
        GetV1ComputeResponse200DataItem,
    )
    from ..models.get_v1_compute_response_200_errors_item import (
        GetV1ComputeResponse200ErrorsItem,
    )
    from ..models.get_v1_compute_response_200_providers_item import (
        GetV1ComputeResponse200ProvidersItem,
    )


T = TypeVar("T", bound="GetV1ComputeResponse200")


@_attrs_define
class GetV1ComputeResponse200:
    """
    Attributes:
        data (list[GetV1ComputeResponse200DataItem]):
        errors (list[GetV1ComputeResponse200ErrorsItem] | Unset):
        providers (list[GetV1ComputeResponse200ProvidersItem] | Unset):
        has_more (bool | Unset): `status=ended`: whether another page follows
        next_cursor (None | str | Unset): `status=ended`: pass as `cursor` for the next page; null on the last page
    """

    data: list[GetV1ComputeResponse200DataItem]
    errors: list[GetV1ComputeResponse200ErrorsItem] | Unset = UNSET
    providers: list[GetV1ComputeResponse200ProvidersItem] | Unset = UNSET
    has_more: bool | Unset = UNSET
    next_cursor: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = []
        for data_item_data in self.data:
            data_item = data_item_data.to_dict()
            data.append(data_item)

        errors: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = []
            for errors_item_data in self.errors:
                errors_item = errors_item_data.to_dict()
                errors.append(errors_item)

        providers: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.providers, Unset):
            providers = []
            for providers_item_data in self.providers:
                providers_item = providers_item_data.to_dict()
                providers.append(providers_item)

        has_more = self.has_more

        next_cursor: None | str | Unset
        if isinstance(self.next_cursor, Unset):
            next_cursor = UNSET
        else:
            next_cursor = self.next_cursor

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
            }
        )
        if errors is not UNSET:
            field_dict["errors"] = errors
        if providers is not UNSET:
            field_dict["providers"] = providers
        if has_more is not UNSET:
            field_dict["has_more"] = has_more
        if next_cursor is not UNSET:
            field_dict["next_cursor"] = next_cursor

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.get_v1_compute_response_200_data_item import (
            GetV1ComputeResponse200DataItem,
        )
        from ..models.get_v1_compute_response_200_errors_item import (
            GetV1ComputeResponse200ErrorsItem,
        )
        from ..models.get_v1_compute_response_200_providers_item import (
            GetV1ComputeResponse200ProvidersItem,
        )

        d = dict(src_dict)
        data = []
        _data = d.pop("data")
        for data_item_data in _data:
            data_item = GetV1ComputeResponse200DataItem.from_dict(data_item_data)

            data.append(data_item)

        _errors = d.pop("errors", UNSET)
        errors: list[GetV1ComputeResponse200ErrorsItem] | Unset = UNSET
        if _errors is not UNSET:
            errors = []
            for errors_item_data in _errors:
                errors_item = GetV1ComputeResponse200ErrorsItem.from_dict(
                    errors_item_data
                )

                errors.append(errors_item)

        _providers = d.pop("providers", UNSET)
        providers: list[GetV1ComputeResponse200ProvidersItem] | Unset = UNSET
        if _providers is not UNSET:
            providers = []
            for providers_item_data in _providers:
                providers_item = GetV1ComputeResponse200ProvidersItem.from_dict(
                    providers_item_data
                )

                providers.append(providers_item)

        has_more = d.pop("has_more", UNSET)

        def _parse_next_cursor(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        next_cursor = _parse_next_cursor(d.pop("next_cursor", UNSET))

        get_v1_compute_response_200 = cls(
            data=data,
            errors=errors,
            providers=providers,
            has_more=has_more,
            next_cursor=next_cursor,
        )

        get_v1_compute_response_200.additional_properties = d
        return get_v1_compute_response_200

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
