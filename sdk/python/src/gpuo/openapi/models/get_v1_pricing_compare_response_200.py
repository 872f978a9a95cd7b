from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.get_v1_pricing_compare_response_200_cheapest_type_0 import (
        GetV1PricingCompareResponse200CheapestType0,
    )
    from ..models.get_v1_pricing_compare_response_200_offers_item import (
        GetV1PricingCompareResponse200OffersItem,
    )


T = TypeVar("T", bound="GetV1PricingCompareResponse200")


@_attrs_define
class GetV1PricingCompareResponse200:
    """
    Attributes:
        gpu_type (str):
        display_name (str):
        offers (list[GetV1PricingCompareResponse200OffersItem]):
        cheapest (GetV1PricingCompareResponse200CheapestType0 | None):
        last_updated (str): ISO 8601 UTC timestamp
    """

    gpu_type: str
    display_name: str
    offers: list[GetV1PricingCompareResponse200OffersItem]
    cheapest: GetV1PricingCompareResponse200CheapestType0 | None
    last_updated: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.get_v1_pricing_compare_response_200_cheapest_type_0 import (
            GetV1PricingCompareResponse200CheapestType0,
        )

        gpu_type = self.gpu_type

        display_name = self.display_name

        offers = []
        for offers_item_data in self.offers:
            offers_item = offers_item_data.to_dict()
            offers.append(offers_item)

        cheapest: dict[str, Any] | None
        if isinstance(self.cheapest, GetV1PricingCompareResponse200CheapestType0):
            cheapest = self.cheapest.to_dict()
        else:
            cheapest = self.cheapest

        last_updated = self.last_updated

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "gpu_type": gpu_type,
                "display_name": display_name,
                "offers": offers,
                "cheapest": cheapest,
                "last_updated": last_updated,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.get_v1_pricing_compare_response_200_cheapest_type_0 import (
            GetV1PricingCompareResponse200CheapestType0,
        )
        from ..models.get_v1_pricing_compare_response_200_offers_item import (
            GetV1PricingCompareResponse200OffersItem,
        )

        d = dict(src_dict)
        gpu_type = d.pop("gpu_type")

        display_name = d.pop("display_name")

        offers = []
        _offers = d.pop("offers")
        for offers_item_data in _offers:
            offers_item = GetV1PricingCompareResponse200OffersItem.from_dict(
                offers_item_data
            )

            offers.append(offers_item)

        def _parse_cheapest(
            data: object,
        ) -> GetV1PricingCompareResponse200CheapestType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                cheapest_type_0 = GetV1PricingCompareResponse200CheapestType0.from_dict(
                    data
                )

                return cheapest_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GetV1PricingCompareResponse200CheapestType0 | None, data)

        cheapest = _parse_cheapest(d.pop("cheapest"))

        last_updated = d.pop("last_updated")

        get_v1_pricing_compare_response_200 = cls(
            gpu_type=gpu_type,
            display_name=display_name,
            offers=offers,
            cheapest=cheapest,
            last_updated=last_updated,
        )

        get_v1_pricing_compare_response_200.additional_properties = d
        return get_v1_pricing_compare_response_200

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
