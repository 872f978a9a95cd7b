from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.post_v1_jobs_body_retry_on_item import PostV1JobsBodyRetryOnItem
from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV1JobsBodyRetry")


@_attrs_define
class PostV1JobsBodyRetry:
    """
    Attributes:
        on (list[PostV1JobsBodyRetryOnItem] | Unset):
        max_attempts (int | Unset):  Default: 3.
        within (str | Unset):  Default: '2h'.
        on_demand_after_preemptions (int | Unset):
    """

    on: list[PostV1JobsBodyRetryOnItem] | Unset = UNSET
    max_attempts: int | Unset = 3
    within: str | Unset = "2h"
    on_demand_after_preemptions: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        on: list[str] | Unset = UNSET
        if not isinstance(self.on, Unset):
            on = []
            for on_item_data in self.on:
                on_item = on_item_data.value
                on.append(on_item)

        max_attempts = self.max_attempts

        within = self.within

        on_demand_after_preemptions = self.on_demand_after_preemptions

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if on is not UNSET:
            field_dict["on"] = on
        if max_attempts is not UNSET:
            field_dict["max_attempts"] = max_attempts
        if within is not UNSET:
            field_dict["within"] = within
        if on_demand_after_preemptions is not UNSET:
            field_dict["on_demand_after_preemptions"] = on_demand_after_preemptions

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        _on = d.pop("on", UNSET)
        on: list[PostV1JobsBodyRetryOnItem] | Unset = UNSET
        if _on is not UNSET:
            on = []
            for on_item_data in _on:
                on_item = PostV1JobsBodyRetryOnItem(on_item_data)

                on.append(on_item)

        max_attempts = d.pop("max_attempts", UNSET)

        within = d.pop("within", UNSET)

        on_demand_after_preemptions = d.pop("on_demand_after_preemptions", UNSET)

        post_v1_jobs_body_retry = cls(
            on=on,
            max_attempts=max_attempts,
            within=within,
            on_demand_after_preemptions=on_demand_after_preemptions,
        )

        return post_v1_jobs_body_retry
