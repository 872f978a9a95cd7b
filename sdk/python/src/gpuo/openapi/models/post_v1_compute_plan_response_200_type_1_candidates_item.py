from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.post_v1_compute_plan_response_200_type_1_candidates_item_provider import (
    PostV1ComputePlanResponse200Type1CandidatesItemProvider,
)

if TYPE_CHECKING:
    from ..models.post_v1_compute_plan_response_200_type_1_candidates_item_launch import (
        PostV1ComputePlanResponse200Type1CandidatesItemLaunch,
    )
    from ..models.post_v1_compute_plan_response_200_type_1_candidates_item_refusal_type_0 import (
        PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0,
    )


T = TypeVar("T", bound="PostV1ComputePlanResponse200Type1CandidatesItem")


@_attrs_define
class PostV1ComputePlanResponse200Type1CandidatesItem:
    """
    Attributes:
        provider (PostV1ComputePlanResponse200Type1CandidatesItemProvider):
        gpu_type (str):
        gpu_count (int):
        spot (bool):
        region (None | str):
        price_per_hour (float | None): dollars per hour for the whole instance; null when no price is known
        availability (float | None): offers available now at the provider (null: not asked)
        warnings (list[str]):
        admitted (bool):
        refusal (None | PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0): what the launch would answer
            instead of 201
        launch (PostV1ComputePlanResponse200Type1CandidatesItemLaunch): the body to POST to /v1/compute/launch
    """

    provider: PostV1ComputePlanResponse200Type1CandidatesItemProvider
    gpu_type: str
    gpu_count: int
    spot: bool
    region: None | str
    price_per_hour: float | None
    availability: float | None
    warnings: list[str]
    admitted: bool
    refusal: None | PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0
    launch: PostV1ComputePlanResponse200Type1CandidatesItemLaunch
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.post_v1_compute_plan_response_200_type_1_candidates_item_refusal_type_0 import (
            PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0,
        )

        provider = self.provider.value

        gpu_type = self.gpu_type

        gpu_count = self.gpu_count

        spot = self.spot

        region: None | str
        region = self.region

        price_per_hour: float | None
        price_per_hour = self.price_per_hour

        availability: float | None
        availability = self.availability

        warnings = self.warnings

        admitted = self.admitted

        refusal: dict[str, Any] | None
        if isinstance(
            self.refusal, PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0
        ):
            refusal = self.refusal.to_dict()
        else:
            refusal = self.refusal

        launch = self.launch.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "provider": provider,
                "gpu_type": gpu_type,
                "gpu_count": gpu_count,
                "spot": spot,
                "region": region,
                "price_per_hour": price_per_hour,
                "availability": availability,
                "warnings": warnings,
                "admitted": admitted,
                "refusal": refusal,
                "launch": launch,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_v1_compute_plan_response_200_type_1_candidates_item_launch import (
            PostV1ComputePlanResponse200Type1CandidatesItemLaunch,
        )
        from ..models.post_v1_compute_plan_response_200_type_1_candidates_item_refusal_type_0 import (
            PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0,
        )

        d = dict(src_dict)
        provider = PostV1ComputePlanResponse200Type1CandidatesItemProvider(
            d.pop("provider")
        )

        gpu_type = d.pop("gpu_type")

        gpu_count = d.pop("gpu_count")

        spot = d.pop("spot")

        def _parse_region(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        region = _parse_region(d.pop("region"))

        def _parse_price_per_hour(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        price_per_hour = _parse_price_per_hour(d.pop("price_per_hour"))

        def _parse_availability(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        availability = _parse_availability(d.pop("availability"))

        warnings = cast(list[str], d.pop("warnings"))

        admitted = d.pop("admitted")

        def _parse_refusal(
            data: object,
        ) -> None | PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                refusal_type_0 = PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0.from_dict(
                    data
                )

                return refusal_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                None | PostV1ComputePlanResponse200Type1CandidatesItemRefusalType0, data
            )

        refusal = _parse_refusal(d.pop("refusal"))

        launch = PostV1ComputePlanResponse200Type1CandidatesItemLaunch.from_dict(
            d.pop("launch")
        )

        post_v1_compute_plan_response_200_type_1_candidates_item = cls(
            provider=provider,
            gpu_type=gpu_type,
            gpu_count=gpu_count,
            spot=spot,
            region=region,
            price_per_hour=price_per_hour,
            availability=availability,
            warnings=warnings,
            admitted=admitted,
            refusal=refusal,
            launch=launch,
        )

        post_v1_compute_plan_response_200_type_1_candidates_item.additional_properties = d
        return post_v1_compute_plan_response_200_type_1_candidates_item

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
