from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_schedules_id_runs_response_200_data_item_provider import (
    GetV1SchedulesIdRunsResponse200DataItemProvider,
)
from ..models.get_v1_schedules_id_runs_response_200_data_item_status import (
    GetV1SchedulesIdRunsResponse200DataItemStatus,
)

T = TypeVar("T", bound="GetV1SchedulesIdRunsResponse200DataItem")


@_attrs_define
class GetV1SchedulesIdRunsResponse200DataItem:
    """
    Attributes:
        id (str):
        schedule_id (str):
        status (GetV1SchedulesIdRunsResponse200DataItemStatus):
        scheduled_at (str): ISO 8601 UTC timestamp
        started_at (None | str): the instance reached running
        ended_at (None | str): ISO 8601 UTC timestamp
        provider (GetV1SchedulesIdRunsResponse200DataItemProvider):
        instance_id (None | str): the provider's instance id
        price_per_hour (float | None): dollars per hour for the whole instance
        cost (float): dollars: the sum of the run's instance charges
        stop_reason (None | str):
        error (None | str):
        job_id (None | str): beyond the spec: the job that carries the run out (GET /v1/jobs/{id}); null when none was
            made
        exit_code (int | None): beyond the spec: the startup script's exit code, once the run's job ended on one
    """

    id: str
    schedule_id: str
    status: GetV1SchedulesIdRunsResponse200DataItemStatus
    scheduled_at: str
    started_at: None | str
    ended_at: None | str
    provider: GetV1SchedulesIdRunsResponse200DataItemProvider
    instance_id: None | str
    price_per_hour: float | None
    cost: float
    stop_reason: None | str
    error: None | str
    job_id: None | str
    exit_code: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        schedule_id = self.schedule_id

        status = self.status.value

        scheduled_at = self.scheduled_at

        started_at: None | str
        started_at = self.started_at

        ended_at: None | str
        ended_at = self.ended_at

        provider = self.provider.value

        instance_id: None | str
        instance_id = self.instance_id

        price_per_hour: float | None
        price_per_hour = self.price_per_hour

        cost = self.cost

        stop_reason: None | str
        stop_reason = self.stop_reason

        error: None | str
        error = self.error

        job_id: None | str
        job_id = self.job_id

        exit_code: int | None
        exit_code = self.exit_code

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "schedule_id": schedule_id,
                "status": status,
                "scheduled_at": scheduled_at,
                "started_at": started_at,
                "ended_at": ended_at,
                "provider": provider,
                "instance_id": instance_id,
                "price_per_hour": price_per_hour,
                "cost": cost,
                "stop_reason": stop_reason,
                "error": error,
                "job_id": job_id,
                "exit_code": exit_code,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        schedule_id = d.pop("schedule_id")

        status = GetV1SchedulesIdRunsResponse200DataItemStatus(d.pop("status"))

        scheduled_at = d.pop("scheduled_at")

        def _parse_started_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        started_at = _parse_started_at(d.pop("started_at"))

        def _parse_ended_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        ended_at = _parse_ended_at(d.pop("ended_at"))

        provider = GetV1SchedulesIdRunsResponse200DataItemProvider(d.pop("provider"))

        def _parse_instance_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        instance_id = _parse_instance_id(d.pop("instance_id"))

        def _parse_price_per_hour(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        price_per_hour = _parse_price_per_hour(d.pop("price_per_hour"))

        cost = d.pop("cost")

        def _parse_stop_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        stop_reason = _parse_stop_reason(d.pop("stop_reason"))

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        def _parse_job_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        job_id = _parse_job_id(d.pop("job_id"))

        def _parse_exit_code(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        exit_code = _parse_exit_code(d.pop("exit_code"))

        get_v1_schedules_id_runs_response_200_data_item = cls(
            id=id,
            schedule_id=schedule_id,
            status=status,
            scheduled_at=scheduled_at,
            started_at=started_at,
            ended_at=ended_at,
            provider=provider,
            instance_id=instance_id,
            price_per_hour=price_per_hour,
            cost=cost,
            stop_reason=stop_reason,
            error=error,
            job_id=job_id,
            exit_code=exit_code,
        )

        get_v1_schedules_id_runs_response_200_data_item.additional_properties = d
        return get_v1_schedules_id_runs_response_200_data_item

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
