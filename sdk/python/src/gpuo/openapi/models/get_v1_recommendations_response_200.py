from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.get_v1_recommendations_response_200_recommendations_item import (
        GetV1RecommendationsResponse200RecommendationsItem,
    )


T = TypeVar("T", bound="GetV1RecommendationsResponse200")


@_attrs_define
class GetV1RecommendationsResponse200:
    """
    Attributes:
        instances_evaluated (int):
        recommendations (list[GetV1RecommendationsResponse200RecommendationsItem]):
        estimated_monthly_savings (float): dollars; the best recommendation of each instance, summed
        message (str | Unset): set when the account has no running instances
    """

    instances_evaluated: int
    recommendations: list[GetV1RecommendationsResponse200RecommendationsItem]
    estimated_monthly_savings: float
    message: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        instances_evaluated = self.instances_evaluated

        recommendations = []
        for recommendations_item_data in self.recommendations:
            recommendations_item = recommendations_item_data.to_dict()
            recommendations.append(recommendations_item)

        estimated_monthly_savings = self.estimated_monthly_savings

        message = self.message

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "instances_evaluated": instances_evaluated,
                "recommendations": recommendations,
                "estimated_monthly_savings": estimated_monthly_savings,
            }
        )
        if message is not UNSET:
            field_dict["message"] = message

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.get_v1_recommendations_response_200_recommendations_item import (
            GetV1RecommendationsResponse200RecommendationsItem,
        )

        d = dict(src_dict)
        instances_evaluated = d.pop("instances_evaluated")

        recommendations = []
        _recommendations = d.pop("recommendations")
        for recommendations_item_data in _recommendations:
            recommendations_item = (
                GetV1RecommendationsResponse200RecommendationsItem.from_dict(
                    recommendations_item_data
                )
            )

            recommendations.append(recommendations_item)

        estimated_monthly_savings = d.pop("estimated_monthly_savings")

        message = d.pop("message", UNSET)

        get_v1_recommendations_response_200 = cls(
            instances_evaluated=instances_evaluated,
            recommendations=recommendations,
            estimated_monthly_savings=estimated_monthly_savings,
            message=message,
        )

        get_v1_recommendations_response_200.additional_properties = d
        return get_v1_recommendations_response_200

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
