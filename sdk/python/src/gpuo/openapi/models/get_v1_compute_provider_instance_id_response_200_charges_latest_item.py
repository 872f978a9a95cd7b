from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_compute_provider_instance_id_response_200_charges_latest_item_type import (
    GetV1ComputeProviderInstanceIdResponse200ChargesLatestItemType,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="GetV1ComputeProviderInstanceIdResponse200ChargesLatestItem")


@_attrs_define
class GetV1ComputeProviderInstanceIdResponse200ChargesLatestItem:
    """
    Attributes:
        id (str):
        type_ (GetV1ComputeProviderInstanceIdResponse200ChargesLatestItemType):
        amount (float): dollars; negative for charges, refunds and opened disputes, positive for top-ups, grants and won
            disputes
        balance_after (float): the balance right after this transaction, dollars
        description (str):
        created_at (str): ISO 8601 UTC timestamp
        instance_id (str | Unset): present on instance_charge and instance_storage_charge, absent on credits
    """

    id: str
    type_: GetV1ComputeProviderInstanceIdResponse200ChargesLatestItemType
    amount: float
    balance_after: float
    description: str
    created_at: str
    instance_id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        type_ = self.type_.value

        amount = self.amount

        balance_after = self.balance_after

        description = self.description

        created_at = self.created_at

        instance_id = self.instance_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "type": type_,
                "amount": amount,
                "balance_after": balance_after,
                "description": description,
                "created_at": created_at,
            }
        )
        if instance_id is not UNSET:
            field_dict["instance_id"] = instance_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        type_ = GetV1ComputeProviderInstanceIdResponse200ChargesLatestItemType(
            d.pop("type")
        )

        amount = d.pop("amount")

        balance_after = d.pop("balance_after")

        description = d.pop("description")

        created_at = d.pop("created_at")

        instance_id = d.pop("instance_id", UNSET)

        get_v1_compute_provider_instance_id_response_200_charges_latest_item = cls(
            id=id,
            type_=type_,
            amount=amount,
            balance_after=balance_after,
            description=description,
            created_at=created_at,
            instance_id=instance_id,
        )

        get_v1_compute_provider_instance_id_response_200_charges_latest_item.additional_properties = d
        return get_v1_compute_provider_instance_id_response_200_charges_latest_item

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
