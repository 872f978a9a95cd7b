from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PostV1ComputeProviderInstanceIdStartResponse202IdleStop")


@_attrs_define
class PostV1ComputeProviderInstanceIdStartResponse202IdleStop:
    """the idle-stop rule the instance was launched with (beyond the spec); absent: none

    Attributes:
        utilization_below_percent (float): every GPU below this utilization (percent, 1-100) counts as idle
        for_minutes (int): idle this many minutes (1 to 10080, a week) before the stop
    """

    utilization_below_percent: float
    for_minutes: int

    def to_dict(self) -> dict[str, Any]:
        utilization_below_percent = self.utilization_below_percent

        for_minutes = self.for_minutes

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "utilization_below_percent": utilization_below_percent,
                "for_minutes": for_minutes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        utilization_below_percent = d.pop("utilization_below_percent")

        for_minutes = d.pop("for_minutes")

        post_v1_compute_provider_instance_id_start_response_202_idle_stop = cls(
            utilization_below_percent=utilization_below_percent,
            for_minutes=for_minutes,
        )

        return post_v1_compute_provider_instance_id_start_response_202_idle_stop
