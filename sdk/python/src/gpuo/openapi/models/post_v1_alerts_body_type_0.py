from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.post_v1_alerts_body_type_0_action import PostV1AlertsBodyType0Action
from ..models.post_v1_alerts_body_type_0_type import PostV1AlertsBodyType0Type
from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV1AlertsBodyType0")


@_attrs_define
class PostV1AlertsBodyType0:
    """
    Attributes:
        type_ (PostV1AlertsBodyType0Type):
        gpu_type (str): a GPU type slug (GET /v1/gpus), or an alias naming one (`4090`, `l40s`)
        threshold_price (float): triggers when the lowest available offer is at or below this, dollars per GPU per hour
        action (PostV1AlertsBodyType0Action | Unset): price_drop alerts only notify Default:
            PostV1AlertsBodyType0Action.NOTIFY.
    """

    type_: PostV1AlertsBodyType0Type
    gpu_type: str
    threshold_price: float
    action: PostV1AlertsBodyType0Action | Unset = PostV1AlertsBodyType0Action.NOTIFY

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        gpu_type = self.gpu_type

        threshold_price = self.threshold_price

        action: str | Unset = UNSET
        if not isinstance(self.action, Unset):
            action = self.action.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "gpu_type": gpu_type,
                "threshold_price": threshold_price,
            }
        )
        if action is not UNSET:
            field_dict["action"] = action

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        type_ = PostV1AlertsBodyType0Type(d.pop("type"))

        gpu_type = d.pop("gpu_type")

        threshold_price = d.pop("threshold_price")

        _action = d.pop("action", UNSET)
        action: PostV1AlertsBodyType0Action | Unset
        if isinstance(_action, Unset):
            action = UNSET
        else:
            action = PostV1AlertsBodyType0Action(_action)

        post_v1_alerts_body_type_0 = cls(
            type_=type_,
            gpu_type=gpu_type,
            threshold_price=threshold_price,
            action=action,
        )

        return post_v1_alerts_body_type_0
