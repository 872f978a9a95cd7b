from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_recommendations_response_200_recommendations_item_provider import (
    GetV1RecommendationsResponse200RecommendationsItemProvider,
)

if TYPE_CHECKING:
    from ..models.get_v1_recommendations_response_200_recommendations_item_alternative import (
        GetV1RecommendationsResponse200RecommendationsItemAlternative,
    )


T = TypeVar("T", bound="GetV1RecommendationsResponse200RecommendationsItem")


@_attrs_define
class GetV1RecommendationsResponse200RecommendationsItem:
    """
    Attributes:
        instance_id (str): the provider's instance id
        provider (GetV1RecommendationsResponse200RecommendationsItemProvider):
        gpu_type (str):
        gpu_count (int):
        current_price_per_hour (float): dollars per GPU per hour
        alternative (GetV1RecommendationsResponse200RecommendationsItemAlternative):
        estimated_monthly_savings (float): dollars: price difference × gpu_count × 730 hours
    """

    instance_id: str
    provider: GetV1RecommendationsResponse200RecommendationsItemProvider
    gpu_type: str
    gpu_count: int
    current_price_per_hour: float
    alternative: GetV1RecommendationsResponse200RecommendationsItemAlternative
    estimated_monthly_savings: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        instance_id = self.instance_id

        provider = self.provider.value

        gpu_type = self.gpu_type

        gpu_count = self.gpu_count

        current_price_per_hour = self.current_price_per_hour

        alternative = self.alternative.to_dict()

        estimated_monthly_savings = self.estimated_monthly_savings

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "instance_id": instance_id,
                "provider": provider,
                "gpu_type": gpu_type,
                "gpu_count": gpu_count,
                "current_price_per_hour": current_price_per_hour,
                "alternative": alternative,
                "estimated_monthly_savings": estimated_monthly_savings,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.get_v1_recommendations_response_200_recommendations_item_alternative import (
            GetV1RecommendationsResponse200RecommendationsItemAlternative,
        )

        d = dict(src_dict)
        instance_id = d.pop("instance_id")

        provider = GetV1RecommendationsResponse200RecommendationsItemProvider(
            d.pop("provider")
        )

        gpu_type = d.pop("gpu_type")

        gpu_count = d.pop("gpu_count")

        current_price_per_hour = d.pop("current_price_per_hour")

        alternative = (
            GetV1RecommendationsResponse200RecommendationsItemAlternative.from_dict(
                d.pop("alternative")
            )
        )

        estimated_monthly_savings = d.pop("estimated_monthly_savings")

        get_v1_recommendations_response_200_recommendations_item = cls(
            instance_id=instance_id,
            provider=provider,
            gpu_type=gpu_type,
            gpu_count=gpu_count,
            current_price_per_hour=current_price_per_hour,
            alternative=alternative,
            estimated_monthly_savings=estimated_monthly_savings,
        )

        get_v1_recommendations_response_200_recommendations_item.additional_properties = d
        return get_v1_recommendations_response_200_recommendations_item

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
