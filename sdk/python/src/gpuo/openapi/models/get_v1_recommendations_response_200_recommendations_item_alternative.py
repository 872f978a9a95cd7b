from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_recommendations_response_200_recommendations_item_alternative_provider import (
    GetV1RecommendationsResponse200RecommendationsItemAlternativeProvider,
)

T = TypeVar("T", bound="GetV1RecommendationsResponse200RecommendationsItemAlternative")


@_attrs_define
class GetV1RecommendationsResponse200RecommendationsItemAlternative:
    """
    Attributes:
        provider (GetV1RecommendationsResponse200RecommendationsItemAlternativeProvider):
        price_per_hour (float): dollars per GPU per hour
        spot (bool):
        availability (int):
    """

    provider: GetV1RecommendationsResponse200RecommendationsItemAlternativeProvider
    price_per_hour: float
    spot: bool
    availability: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        provider = self.provider.value

        price_per_hour = self.price_per_hour

        spot = self.spot

        availability = self.availability

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "provider": provider,
                "price_per_hour": price_per_hour,
                "spot": spot,
                "availability": availability,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        provider = (
            GetV1RecommendationsResponse200RecommendationsItemAlternativeProvider(
                d.pop("provider")
            )
        )

        price_per_hour = d.pop("price_per_hour")

        spot = d.pop("spot")

        availability = d.pop("availability")

        get_v1_recommendations_response_200_recommendations_item_alternative = cls(
            provider=provider,
            price_per_hour=price_per_hour,
            spot=spot,
            availability=availability,
        )

        get_v1_recommendations_response_200_recommendations_item_alternative.additional_properties = d
        return get_v1_recommendations_response_200_recommendations_item_alternative

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
