from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.post_v1_schedules_body_idle_stop import PostV1SchedulesBodyIdleStop


T = TypeVar("T", bound="PostV1SchedulesBody")


@_attrs_define
class PostV1SchedulesBody:
    """
    Attributes:
        name (str):
        gpu (str): a GPU type slug (GET /v1/gpus), or an alias naming one (`4090`, `l40s`)
        template (str):
        cron (str):
        max_duration_hours (float | Unset):
        max_cost (float | Unset):
        prefer_spot (bool | Unset):  Default: True.
        docker_image (str | Unset):
        startup_script (str | Unset):
        idle_stop (PostV1SchedulesBodyIdleStop | Unset): beyond the spec: stop (runpod) or terminate (vastai) the
            instance once every GPU reported utilization below the threshold for that long (the end is charged up to that
            moment, its record says why, and instance.idle_stopped is emitted). Not for lambda, which reports no GPU
            utilization.
    """

    name: str
    gpu: str
    template: str
    cron: str
    max_duration_hours: float | Unset = UNSET
    max_cost: float | Unset = UNSET
    prefer_spot: bool | Unset = True
    docker_image: str | Unset = UNSET
    startup_script: str | Unset = UNSET
    idle_stop: PostV1SchedulesBodyIdleStop | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        gpu = self.gpu

        template = self.template

        cron = self.cron

        max_duration_hours = self.max_duration_hours

        max_cost = self.max_cost

        prefer_spot = self.prefer_spot

        docker_image = self.docker_image

        startup_script = self.startup_script

        idle_stop: dict[str, Any] | Unset = UNSET
        if not isinstance(self.idle_stop, Unset):
            idle_stop = self.idle_stop.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "gpu": gpu,
                "template": template,
                "cron": cron,
            }
        )
        if max_duration_hours is not UNSET:
            field_dict["max_duration_hours"] = max_duration_hours
        if max_cost is not UNSET:
            field_dict["max_cost"] = max_cost
        if prefer_spot is not UNSET:
            field_dict["prefer_spot"] = prefer_spot
        if docker_image is not UNSET:
            field_dict["docker_image"] = docker_image
        if startup_script is not UNSET:
            field_dict["startup_script"] = startup_script
        if idle_stop is not UNSET:
            field_dict["idle_stop"] = idle_stop

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_v1_schedules_body_idle_stop import (
            PostV1SchedulesBodyIdleStop,
        )

        d = dict(src_dict)
        name = d.pop("name")

        gpu = d.pop("gpu")

        template = d.pop("template")

        cron = d.pop("cron")

        max_duration_hours = d.pop("max_duration_hours", UNSET)

        max_cost = d.pop("max_cost", UNSET)

        prefer_spot = d.pop("prefer_spot", UNSET)

        docker_image = d.pop("docker_image", UNSET)

        startup_script = d.pop("startup_script", UNSET)

        _idle_stop = d.pop("idle_stop", UNSET)
        idle_stop: PostV1SchedulesBodyIdleStop | Unset
        if isinstance(_idle_stop, Unset):
            idle_stop = UNSET
        else:
            idle_stop = PostV1SchedulesBodyIdleStop.from_dict(_idle_stop)

        post_v1_schedules_body = cls(
            name=name,
            gpu=gpu,
            template=template,
            cron=cron,
            max_duration_hours=max_duration_hours,
            max_cost=max_cost,
            prefer_spot=prefer_spot,
            docker_image=docker_image,
            startup_script=startup_script,
            idle_stop=idle_stop,
        )

        return post_v1_schedules_body
