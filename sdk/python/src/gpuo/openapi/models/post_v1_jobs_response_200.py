from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.post_v1_jobs_response_200_providers_item import (
    PostV1JobsResponse200ProvidersItem,
)
from ..models.post_v1_jobs_response_200_status import PostV1JobsResponse200Status
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.post_v1_jobs_response_200_attempts_item import (
        PostV1JobsResponse200AttemptsItem,
    )


T = TypeVar("T", bound="PostV1JobsResponse200")


@_attrs_define
class PostV1JobsResponse200:
    """
    Attributes:
        id (str):
        name (str):
        status (PostV1JobsResponse200Status):
        gpu (str):
        gpu_count (float):
        command (str):
        env_keys (list[str]):
        providers (list[PostV1JobsResponse200ProvidersItem]):
        spot_policy (str):
        max_price_per_hour (float | None):
        max_cost (float | None):
        max_duration_hours (float | None):
        exit_code (float | None):
        error (None | str):
        cost (float):
        created_at (str): ISO 8601 UTC timestamp
        ended_at (None | str): ISO 8601 UTC timestamp
        attempts (list[PostV1JobsResponse200AttemptsItem] | Unset):
    """

    id: str
    name: str
    status: PostV1JobsResponse200Status
    gpu: str
    gpu_count: float
    command: str
    env_keys: list[str]
    providers: list[PostV1JobsResponse200ProvidersItem]
    spot_policy: str
    max_price_per_hour: float | None
    max_cost: float | None
    max_duration_hours: float | None
    exit_code: float | None
    error: None | str
    cost: float
    created_at: str
    ended_at: None | str
    attempts: list[PostV1JobsResponse200AttemptsItem] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        status = self.status.value

        gpu = self.gpu

        gpu_count = self.gpu_count

        command = self.command

        env_keys = self.env_keys

        providers = []
        for providers_item_data in self.providers:
            providers_item = providers_item_data.value
            providers.append(providers_item)

        spot_policy = self.spot_policy

        max_price_per_hour: float | None
        max_price_per_hour = self.max_price_per_hour

        max_cost: float | None
        max_cost = self.max_cost

        max_duration_hours: float | None
        max_duration_hours = self.max_duration_hours

        exit_code: float | None
        exit_code = self.exit_code

        error: None | str
        error = self.error

        cost = self.cost

        created_at = self.created_at

        ended_at: None | str
        ended_at = self.ended_at

        attempts: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.attempts, Unset):
            attempts = []
            for attempts_item_data in self.attempts:
                attempts_item = attempts_item_data.to_dict()
                attempts.append(attempts_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "status": status,
                "gpu": gpu,
                "gpu_count": gpu_count,
                "command": command,
                "env_keys": env_keys,
                "providers": providers,
                "spot_policy": spot_policy,
                "max_price_per_hour": max_price_per_hour,
                "max_cost": max_cost,
                "max_duration_hours": max_duration_hours,
                "exit_code": exit_code,
                "error": error,
                "cost": cost,
                "created_at": created_at,
                "ended_at": ended_at,
            }
        )
        if attempts is not UNSET:
            field_dict["attempts"] = attempts

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_v1_jobs_response_200_attempts_item import (
            PostV1JobsResponse200AttemptsItem,
        )

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        status = PostV1JobsResponse200Status(d.pop("status"))

        gpu = d.pop("gpu")

        gpu_count = d.pop("gpu_count")

        command = d.pop("command")

        env_keys = cast(list[str], d.pop("env_keys"))

        providers = []
        _providers = d.pop("providers")
        for providers_item_data in _providers:
            providers_item = PostV1JobsResponse200ProvidersItem(providers_item_data)

            providers.append(providers_item)

        spot_policy = d.pop("spot_policy")

        def _parse_max_price_per_hour(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        max_price_per_hour = _parse_max_price_per_hour(d.pop("max_price_per_hour"))

        def _parse_max_cost(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        max_cost = _parse_max_cost(d.pop("max_cost"))

        def _parse_max_duration_hours(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        max_duration_hours = _parse_max_duration_hours(d.pop("max_duration_hours"))

        def _parse_exit_code(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        exit_code = _parse_exit_code(d.pop("exit_code"))

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        cost = d.pop("cost")

        created_at = d.pop("created_at")

        def _parse_ended_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        ended_at = _parse_ended_at(d.pop("ended_at"))

        _attempts = d.pop("attempts", UNSET)
        attempts: list[PostV1JobsResponse200AttemptsItem] | Unset = UNSET
        if _attempts is not UNSET:
            attempts = []
            for attempts_item_data in _attempts:
                attempts_item = PostV1JobsResponse200AttemptsItem.from_dict(
                    attempts_item_data
                )

                attempts.append(attempts_item)

        post_v1_jobs_response_200 = cls(
            id=id,
            name=name,
            status=status,
            gpu=gpu,
            gpu_count=gpu_count,
            command=command,
            env_keys=env_keys,
            providers=providers,
            spot_policy=spot_policy,
            max_price_per_hour=max_price_per_hour,
            max_cost=max_cost,
            max_duration_hours=max_duration_hours,
            exit_code=exit_code,
            error=error,
            cost=cost,
            created_at=created_at,
            ended_at=ended_at,
            attempts=attempts,
        )

        post_v1_jobs_response_200.additional_properties = d
        return post_v1_jobs_response_200

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
