from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.post_v1_compute_plan_body_type_1_providers_item import (
    PostV1ComputePlanBodyType1ProvidersItem,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV1ComputePlanBodyType1")


@_attrs_define
class PostV1ComputePlanBodyType1:
    """
    Attributes:
        gpu_type (str): a GPU type slug (GET /v1/gpus), or an alias naming one (`4090`, `l40s`)
        gpu_count (int | Unset):  Default: 1.
        spot (bool | Unset): true: spot offers first (where sold), then on-demand Default: False.
        providers (list[PostV1ComputePlanBodyType1ProvidersItem] | Unset): default: all three
        max_price_per_hour (float | Unset): dollars per hour for the whole instance
    """

    gpu_type: str
    gpu_count: int | Unset = 1
    spot: bool | Unset = False
    providers: list[PostV1ComputePlanBodyType1ProvidersItem] | Unset = UNSET
    max_price_per_hour: float | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        gpu_type = self.gpu_type

        gpu_count = self.gpu_count

        spot = self.spot

        providers: list[str] | Unset = UNSET
        if not isinstance(self.providers, Unset):
            providers = []
            for providers_item_data in self.providers:
                providers_item = providers_item_data.value
                providers.append(providers_item)

        max_price_per_hour = self.max_price_per_hour

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "gpu_type": gpu_type,
            }
        )
        if gpu_count is not UNSET:
            field_dict["gpu_count"] = gpu_count
        if spot is not UNSET:
            field_dict["spot"] = spot
        if providers is not UNSET:
            field_dict["providers"] = providers
        if max_price_per_hour is not UNSET:
            field_dict["max_price_per_hour"] = max_price_per_hour

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        gpu_type = d.pop("gpu_type")

        gpu_count = d.pop("gpu_count", UNSET)

        spot = d.pop("spot", UNSET)

        _providers = d.pop("providers", UNSET)
        providers: list[PostV1ComputePlanBodyType1ProvidersItem] | Unset = UNSET
        if _providers is not UNSET:
            providers = []
            for providers_item_data in _providers:
                providers_item = PostV1ComputePlanBodyType1ProvidersItem(
                    providers_item_data
                )

                providers.append(providers_item)

        max_price_per_hour = d.pop("max_price_per_hour", UNSET)

        post_v1_compute_plan_body_type_1 = cls(
            gpu_type=gpu_type,
            gpu_count=gpu_count,
            spot=spot,
            providers=providers,
            max_price_per_hour=max_price_per_hour,
        )

        return post_v1_compute_plan_body_type_1
