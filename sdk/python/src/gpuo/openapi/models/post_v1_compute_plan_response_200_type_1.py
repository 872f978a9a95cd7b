from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.post_v1_compute_plan_response_200_type_1_candidates_item import (
        PostV1ComputePlanResponse200Type1CandidatesItem,
    )


T = TypeVar("T", bound="PostV1ComputePlanResponse200Type1")


@_attrs_define
class PostV1ComputePlanResponse200Type1:
    """
    Attributes:
        gpu_type (str):
        gpu_count (int):
        candidates (list[PostV1ComputePlanResponse200Type1CandidatesItem]):
    """

    gpu_type: str
    gpu_count: int
    candidates: list[PostV1ComputePlanResponse200Type1CandidatesItem]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        gpu_type = self.gpu_type

        gpu_count = self.gpu_count

        candidates = []
        for candidates_item_data in self.candidates:
            candidates_item = candidates_item_data.to_dict()
            candidates.append(candidates_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "gpu_type": gpu_type,
                "gpu_count": gpu_count,
                "candidates": candidates,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_v1_compute_plan_response_200_type_1_candidates_item import (
            PostV1ComputePlanResponse200Type1CandidatesItem,
        )

        d = dict(src_dict)
        gpu_type = d.pop("gpu_type")

        gpu_count = d.pop("gpu_count")

        candidates = []
        _candidates = d.pop("candidates")
        for candidates_item_data in _candidates:
            candidates_item = PostV1ComputePlanResponse200Type1CandidatesItem.from_dict(
                candidates_item_data
            )

            candidates.append(candidates_item)

        post_v1_compute_plan_response_200_type_1 = cls(
            gpu_type=gpu_type,
            gpu_count=gpu_count,
            candidates=candidates,
        )

        post_v1_compute_plan_response_200_type_1.additional_properties = d
        return post_v1_compute_plan_response_200_type_1

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
