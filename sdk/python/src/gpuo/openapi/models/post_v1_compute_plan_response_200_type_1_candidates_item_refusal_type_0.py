from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.post_v1_compute_plan_response_200_type_1_candidates_item_refusal_type_0_details_item import (
        PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0DetailsItem,
    )


T = TypeVar("T", bound="PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0")


@_attrs_define
class PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0:
    """what the launch would answer instead of 201

    Attributes:
        status (int):
        code (str):
        message (str):
        details (list[PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0DetailsItem] | Unset):
    """

    status: int
    code: str
    message: str
    details: (
        list[PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0DetailsItem]
        | Unset
    ) = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        status = self.status

        code = self.code

        message = self.message

        details: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.details, Unset):
            details = []
            for details_item_data in self.details:
                details_item = details_item_data.to_dict()
                details.append(details_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "code": code,
                "message": message,
            }
        )
        if details is not UNSET:
            field_dict["details"] = details

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_v1_compute_plan_response_200_type_1_candidates_item_refusal_type_0_details_item import (
            PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0DetailsItem,
        )

        d = dict(src_dict)
        status = d.pop("status")

        code = d.pop("code")

        message = d.pop("message")

        _details = d.pop("details", UNSET)
        details: (
            list[PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0DetailsItem]
            | Unset
        ) = UNSET
        if _details is not UNSET:
            details = []
            for details_item_data in _details:
                details_item = PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0DetailsItem.from_dict(
                    details_item_data
                )

                details.append(details_item)

        post_v1_compute_plan_response_200_type_1_candidates_item_refusal_type_0 = cls(
            status=status,
            code=code,
            message=message,
            details=details,
        )

        post_v1_compute_plan_response_200_type_1_candidates_item_refusal_type_0.additional_properties = d
        return post_v1_compute_plan_response_200_type_1_candidates_item_refusal_type_0

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
