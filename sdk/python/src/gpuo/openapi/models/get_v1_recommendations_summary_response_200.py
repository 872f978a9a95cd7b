from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="GetV1RecommendationsSummaryResponse200")


@_attrs_define
class GetV1RecommendationsSummaryResponse200:
    """
    Attributes:
        estimated_monthly_savings (float):
        recommendation_count (int):
    """

    estimated_monthly_savings: float
    recommendation_count: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        estimated_monthly_savings = self.estimated_monthly_savings

        recommendation_count = self.recommendation_count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "estimated_monthly_savings": estimated_monthly_savings,
                "recommendation_count": recommendation_count,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        estimated_monthly_savings = d.pop("estimated_monthly_savings")

        recommendation_count = d.pop("recommendation_count")

        get_v1_recommendations_summary_response_200 = cls(
            estimated_monthly_savings=estimated_monthly_savings,
            recommendation_count=recommendation_count,
        )

        get_v1_recommendations_summary_response_200.additional_properties = d
        return get_v1_recommendations_summary_response_200

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
