from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.put_v1_schedules_id_body_status import PutV1SchedulesIdBodyStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.put_v1_schedules_id_body_idle_stop_type_0 import (
        PutV1SchedulesIdBodyIdleStopType0,
    )


T = TypeVar("T", bound="PutV1SchedulesIdBody")


@_attrs_define
class PutV1SchedulesIdBody:
    """
    Attributes:
        name (str | Unset):
        gpu (str | Unset): a GPU type slug (GET /v1/gpus), or an alias naming one (`4090`, `l40s`)
        template (str | Unset):
        cron (str | Unset):
        max_duration_hours (float | None | Unset):
        max_cost (float | None | Unset):
        prefer_spot (bool | Unset):
        docker_image (None | str | Unset):
        startup_script (None | str | Unset):
        idle_stop (None | PutV1SchedulesIdBodyIdleStopType0 | Unset): beyond the spec: stop (runpod) or terminate
            (vastai) the instance once every GPU reported utilization below the threshold for that long (the end is charged
            up to that moment, its record says why, and instance.idle_stopped is emitted). Not for lambda, which reports no
            GPU utilization.
        status (PutV1SchedulesIdBodyStatus | Unset):
    """

    name: str | Unset = UNSET
    gpu: str | Unset = UNSET
    template: str | Unset = UNSET
    cron: str | Unset = UNSET
    max_duration_hours: float | None | Unset = UNSET
    max_cost: float | None | Unset = UNSET
    prefer_spot: bool | Unset = UNSET
    docker_image: None | str | Unset = UNSET
    startup_script: None | str | Unset = UNSET
    idle_stop: None | PutV1SchedulesIdBodyIdleStopType0 | Unset = UNSET
    status: PutV1SchedulesIdBodyStatus | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.put_v1_schedules_id_body_idle_stop_type_0 import (
            PutV1SchedulesIdBodyIdleStopType0,
        )

        name = self.name

        gpu = self.gpu

        template = self.template

        cron = self.cron

        max_duration_hours: float | None | Unset
        if isinstance(self.max_duration_hours, Unset):
            max_duration_hours = UNSET
        else:
            max_duration_hours = self.max_duration_hours

        max_cost: float | None | Unset
        if isinstance(self.max_cost, Unset):
            max_cost = UNSET
        else:
            max_cost = self.max_cost

        prefer_spot = self.prefer_spot

        docker_image: None | str | Unset
        if isinstance(self.docker_image, Unset):
            docker_image = UNSET
        else:
            docker_image = self.docker_image

        startup_script: None | str | Unset
        if isinstance(self.startup_script, Unset):
            startup_script = UNSET
        else:
            startup_script = self.startup_script

        idle_stop: dict[str, Any] | None | Unset
        if isinstance(self.idle_stop, Unset):
            idle_stop = UNSET
        elif isinstance(self.idle_stop, PutV1SchedulesIdBodyIdleStopType0):
            idle_stop = self.idle_stop.to_dict()
        else:
            idle_stop = self.idle_stop

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if name is not UNSET:
            field_dict["name"] = name
        if gpu is not UNSET:
            field_dict["gpu"] = gpu
        if template is not UNSET:
            field_dict["template"] = template
        if cron is not UNSET:
            field_dict["cron"] = cron
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
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.put_v1_schedules_id_body_idle_stop_type_0 import (
            PutV1SchedulesIdBodyIdleStopType0,
        )

        d = dict(src_dict)
        name = d.pop("name", UNSET)

        gpu = d.pop("gpu", UNSET)

        template = d.pop("template", UNSET)

        cron = d.pop("cron", UNSET)

        def _parse_max_duration_hours(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        max_duration_hours = _parse_max_duration_hours(
            d.pop("max_duration_hours", UNSET)
        )

        def _parse_max_cost(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        max_cost = _parse_max_cost(d.pop("max_cost", UNSET))

        prefer_spot = d.pop("prefer_spot", UNSET)

        def _parse_docker_image(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        docker_image = _parse_docker_image(d.pop("docker_image", UNSET))

        def _parse_startup_script(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        startup_script = _parse_startup_script(d.pop("startup_script", UNSET))

        def _parse_idle_stop(
            data: object,
        ) -> None | PutV1SchedulesIdBodyIdleStopType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                idle_stop_type_0 = PutV1SchedulesIdBodyIdleStopType0.from_dict(data)

                return idle_stop_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PutV1SchedulesIdBodyIdleStopType0 | Unset, data)

        idle_stop = _parse_idle_stop(d.pop("idle_stop", UNSET))

        _status = d.pop("status", UNSET)
        status: PutV1SchedulesIdBodyStatus | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = PutV1SchedulesIdBodyStatus(_status)

        put_v1_schedules_id_body = cls(
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
            status=status,
        )

        return put_v1_schedules_id_body
