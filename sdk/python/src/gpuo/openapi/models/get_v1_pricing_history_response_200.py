from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_pricing_history_response_200_offer_kind import (
    GetV1PricingHistoryResponse200OfferKind,
)
from ..models.get_v1_pricing_history_response_200_period import (
    GetV1PricingHistoryResponse200Period,
)

if TYPE_CHECKING:
    from ..models.get_v1_pricing_history_response_200_data_item import (
        GetV1PricingHistoryResponse200DataItem,
    )


T = TypeVar("T", bound="GetV1PricingHistoryResponse200")


@_attrs_define
class GetV1PricingHistoryResponse200:
    """
    Attributes:
        gpu_type (str):
        display_name (str):
        period (GetV1PricingHistoryResponse200Period):
        from_ (str): ISO 8601 UTC timestamp
        to (str): ISO 8601 UTC timestamp
        resolution (str):
        offer_kind (GetV1PricingHistoryResponse200OfferKind): `spot` when asked with spot=true, else `on_demand`
        data (list[GetV1PricingHistoryResponse200DataItem]):
    """

    gpu_type: str
    display_name: str
    period: GetV1PricingHistoryResponse200Period
    from_: str
    to: str
    resolution: str
    offer_kind: GetV1PricingHistoryResponse200OfferKind
    data: list[GetV1PricingHistoryResponse200DataItem]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        gpu_type = self.gpu_type

        display_name = self.display_name

        period = self.period.value

        from_ = self.from_

        to = self.to

        resolution = self.resolution

        offer_kind = self.offer_kind.value

        data = []
        for data_item_data in self.data:
            data_item = data_item_data.to_dict()
            data.append(data_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "gpu_type": gpu_type,
                "display_name": display_name,
                "period": period,
                "from": from_,
                "to": to,
                "resolution": resolution,
                "offer_kind": offer_kind,
                "data": data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.get_v1_pricing_history_response_200_data_item import (
            GetV1PricingHistoryResponse200DataItem,
        )

        d = dict(src_dict)
        gpu_type = d.pop("gpu_type")

        display_name = d.pop("display_name")

        period = GetV1PricingHistoryResponse200Period(d.pop("period"))

        from_ = d.pop("from")

        to = d.pop("to")

        resolution = d.pop("resolution")

        offer_kind = GetV1PricingHistoryResponse200OfferKind(d.pop("offer_kind"))

        data = []
        _data = d.pop("data")
        for data_item_data in _data:
            data_item = GetV1PricingHistoryResponse200DataItem.from_dict(data_item_data)

            data.append(data_item)

        get_v1_pricing_history_response_200 = cls(
            gpu_type=gpu_type,
            display_name=display_name,
            period=period,
            from_=from_,
            to=to,
            resolution=resolution,
            offer_kind=offer_kind,
            data=data,
        )

        get_v1_pricing_history_response_200.additional_properties = d
        return get_v1_pricing_history_response_200

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
