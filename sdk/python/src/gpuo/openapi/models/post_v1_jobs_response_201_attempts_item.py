from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.post_v1_jobs_response_201_attempts_item_provider import (
    PostV1JobsResponse201AttemptsItemProvider,
)

T = TypeVar("T", bound="PostV1JobsResponse201AttemptsItem")


@_attrs_define
class PostV1JobsResponse201AttemptsItem:
    """
    Attributes:
        n (float):
        provider (PostV1JobsResponse201AttemptsItemProvider):
        spot (bool):
        instance_id (None | str):
        price_per_hour (float):
        started_at (None | str): ISO 8601 UTC timestamp
        ended_at (None | str): ISO 8601 UTC timestamp
        end_reason (None | str):
        end_detail (None | str):
        exit_code (float | None):
        output_tail (None | str):
        cost (float):
    """

    n: float
    provider: PostV1JobsResponse201AttemptsItemProvider
    spot: bool
    instance_id: None | str
    price_per_hour: float
    started_at: None | str
    ended_at: None | str
    end_reason: None | str
    end_detail: None | str
    exit_code: float | None
    output_tail: None | str
    cost: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        n = self.n

        provider = self.provider.value

        spot = self.spot

        instance_id: None | str
        instance_id = self.instance_id

        price_per_hour = self.price_per_hour

        started_at: None | str
        started_at = self.started_at

        ended_at: None | str
        ended_at = self.ended_at

        end_reason: None | str
        end_reason = self.end_reason

        end_detail: None | str
        end_detail = self.end_detail

        exit_code: float | None
        exit_code = self.exit_code

        output_tail: None | str
        output_tail = self.output_tail

        cost = self.cost

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "n": n,
                "provider": provider,
                "spot": spot,
                "instance_id": instance_id,
                "price_per_hour": price_per_hour,
                "started_at": started_at,
                "ended_at": ended_at,
                "end_reason": end_reason,
                "end_detail": end_detail,
                "exit_code": exit_code,
                "output_tail": output_tail,
                "cost": cost,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        n = d.pop("n")

        provider = PostV1JobsResponse201AttemptsItemProvider(d.pop("provider"))

        spot = d.pop("spot")

        def _parse_instance_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        instance_id = _parse_instance_id(d.pop("instance_id"))

        price_per_hour = d.pop("price_per_hour")

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

        def _parse_end_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        end_reason = _parse_end_reason(d.pop("end_reason"))

        def _parse_end_detail(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        end_detail = _parse_end_detail(d.pop("end_detail"))

        def _parse_exit_code(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        exit_code = _parse_exit_code(d.pop("exit_code"))

        def _parse_output_tail(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        output_tail = _parse_output_tail(d.pop("output_tail"))

        cost = d.pop("cost")

        post_v1_jobs_response_201_attempts_item = cls(
            n=n,
            provider=provider,
            spot=spot,
            instance_id=instance_id,
            price_per_hour=price_per_hour,
            started_at=started_at,
            ended_at=ended_at,
            end_reason=end_reason,
            end_detail=end_detail,
            exit_code=exit_code,
            output_tail=output_tail,
            cost=cost,
        )

        post_v1_jobs_response_201_attempts_item.additional_properties = d
        return post_v1_jobs_response_201_attempts_item

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
