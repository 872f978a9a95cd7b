from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_schedules_id_response_200_status import (
    GetV1SchedulesIdResponse200Status,
)
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.get_v1_schedules_id_response_200_idle_stop import (
        GetV1SchedulesIdResponse200IdleStop,
    )


T = TypeVar("T", bound="GetV1SchedulesIdResponse200")


@_attrs_define
class GetV1SchedulesIdResponse200:
    """
    Attributes:
        id (str):
        name (str):
        gpu (str):
        template (str):
        cron (str):
        max_duration_hours (float | None):
        max_cost (float | None): dollars
        prefer_spot (bool):
        docker_image (None | str):
        startup_script (None | str):
        status (GetV1SchedulesIdResponse200Status):
        next_run_at (None | str): next firing (UTC); null while paused
        last_run_at (None | str): ISO 8601 UTC timestamp
        created_at (str): ISO 8601 UTC timestamp
        updated_at (str): ISO 8601 UTC timestamp
        idle_stop (GetV1SchedulesIdResponse200IdleStop | Unset): beyond the spec: each run's instance is ended once its
            GPUs idle this long; absent: never
    """

    id: str
    name: str
    gpu: str
    template: str
    cron: str
    max_duration_hours: float | None
    max_cost: float | None
    prefer_spot: bool
    docker_image: None | str
    startup_script: None | str
    status: GetV1SchedulesIdResponse200Status
    next_run_at: None | str
    last_run_at: None | str
    created_at: str
    updated_at: str
    idle_stop: GetV1SchedulesIdResponse200IdleStop | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        gpu = self.gpu

        template = self.template

        cron = self.cron

        max_duration_hours: float | None
        max_duration_hours = self.max_duration_hours

        max_cost: float | None
        max_cost = self.max_cost

        prefer_spot = self.prefer_spot

        docker_image: None | str
        docker_image = self.docker_image

        startup_script: None | str
        startup_script = self.startup_script

        status = self.status.value

        next_run_at: None | str
        next_run_at = self.next_run_at

        last_run_at: None | str
        last_run_at = self.last_run_at

        created_at = self.created_at

        updated_at = self.updated_at

        idle_stop: dict[str, Any] | Unset = UNSET
        if not isinstance(self.idle_stop, Unset):
            idle_stop = self.idle_stop.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "gpu": gpu,
                "template": template,
                "cron": cron,
                "max_duration_hours": max_duration_hours,
                "max_cost": max_cost,
                "prefer_spot": prefer_spot,
                "docker_image": docker_image,
                "startup_script": startup_script,
                "status": status,
                "next_run_at": next_run_at,
                "last_run_at": last_run_at,
                "created_at": created_at,
                "updated_at": updated_at,
            }
        )
        if idle_stop is not UNSET:
            field_dict["idle_stop"] = idle_stop

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.get_v1_schedules_id_response_200_idle_stop import (
            GetV1SchedulesIdResponse200IdleStop,
        )

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        gpu = d.pop("gpu")

        template = d.pop("template")

        cron = d.pop("cron")

        def _parse_max_duration_hours(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        max_duration_hours = _parse_max_duration_hours(d.pop("max_duration_hours"))

        def _parse_max_cost(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        max_cost = _parse_max_cost(d.pop("max_cost"))

        prefer_spot = d.pop("prefer_spot")

        def _parse_docker_image(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        docker_image = _parse_docker_image(d.pop("docker_image"))

        def _parse_startup_script(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        startup_script = _parse_startup_script(d.pop("startup_script"))

        status = GetV1SchedulesIdResponse200Status(d.pop("status"))

        def _parse_next_run_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_run_at = _parse_next_run_at(d.pop("next_run_at"))

        def _parse_last_run_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_run_at = _parse_last_run_at(d.pop("last_run_at"))

        created_at = d.pop("created_at")

        updated_at = d.pop("updated_at")

        _idle_stop = d.pop("idle_stop", UNSET)
        idle_stop: GetV1SchedulesIdResponse200IdleStop | Unset
        if isinstance(_idle_stop, Unset):
            idle_stop = UNSET
        else:
            idle_stop = GetV1SchedulesIdResponse200IdleStop.from_dict(_idle_stop)

        get_v1_schedules_id_response_200 = cls(
            id=id,
            name=name,
            gpu=gpu,
            template=template,
            cron=cron,
            max_duration_hours=max_duration_hours,
            max_cost=max_cost,
            prefer_spot=prefer_spot,
            docker_image=docker_image,
            startup_script=startup_script,
            status=status,
            next_run_at=next_run_at,
            last_run_at=last_run_at,
            created_at=created_at,
            updated_at=updated_at,
            idle_stop=idle_stop,
        )

        get_v1_schedules_id_response_200.additional_properties = d
        return get_v1_schedules_id_response_200

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
