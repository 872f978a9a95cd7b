from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="GetV1ComputeProviderInstanceIdResponse200Cost")


@_attrs_define
class GetV1ComputeProviderInstanceIdResponse200Cost:
    """the cost of the instance so far, at `price_per_hour`

    Attributes:
        to_date (float): posted + accrued
        posted (float): what the ledger has charged the instance (the sum of its instance charges)
        accrued (float): what it has run up since its last charge, charged at the next meter interval or at its end
    """

    to_date: float
    posted: float
    accrued: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        to_date = self.to_date

        posted = self.posted

        accrued = self.accrued

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "to_date": to_date,
                "posted": posted,
                "accrued": accrued,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        to_date = d.pop("to_date")

        posted = d.pop("posted")

        accrued = d.pop("accrued")

        get_v1_compute_provider_instance_id_response_200_cost = cls(
            to_date=to_date,
            posted=posted,
            accrued=accrued,
        )

        get_v1_compute_provider_instance_id_response_200_cost.additional_properties = d
        return get_v1_compute_provider_instance_id_response_200_cost

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
