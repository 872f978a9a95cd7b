from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.get_v1_compute_provider_instance_id_response_200_charges_latest_item import (
        GetV1ComputeProviderInstanceIdResponse200ChargesLatestItem,
    )


T = TypeVar("T", bound="GetV1ComputeProviderInstanceIdResponse200Charges")


@_attrs_define
class GetV1ComputeProviderInstanceIdResponse200Charges:
    """
    Attributes:
        count (int):
        latest (list[GetV1ComputeProviderInstanceIdResponse200ChargesLatestItem]): the newest charges, at most 50,
            newest first (all of them: GET /v1/billing/transactions)
    """

    count: int
    latest: list[GetV1ComputeProviderInstanceIdResponse200ChargesLatestItem]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        count = self.count

        latest = []
        for latest_item_data in self.latest:
            latest_item = latest_item_data.to_dict()
            latest.append(latest_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "count": count,
                "latest": latest,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.get_v1_compute_provider_instance_id_response_200_charges_latest_item import (
            GetV1ComputeProviderInstanceIdResponse200ChargesLatestItem,
        )

        d = dict(src_dict)
        count = d.pop("count")

        latest = []
        _latest = d.pop("latest")
        for latest_item_data in _latest:
            latest_item = (
                GetV1ComputeProviderInstanceIdResponse200ChargesLatestItem.from_dict(
                    latest_item_data
                )
            )

            latest.append(latest_item)

        get_v1_compute_provider_instance_id_response_200_charges = cls(
            count=count,
            latest=latest,
        )

        get_v1_compute_provider_instance_id_response_200_charges.additional_properties = d
        return get_v1_compute_provider_instance_id_response_200_charges

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
