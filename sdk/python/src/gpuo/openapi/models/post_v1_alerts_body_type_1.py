from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.post_v1_alerts_body_type_1_action import PostV1AlertsBodyType1Action
from ..models.post_v1_alerts_body_type_1_type import PostV1AlertsBodyType1Type
from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV1AlertsBodyType1")


@_attrs_define
class PostV1AlertsBodyType1:
    """
    Attributes:
        type_ (PostV1AlertsBodyType1Type):
        threshold_dollars (float): triggers when the instance charges of the current UTC month reach this, dollars
        action (PostV1AlertsBodyType1Action | Unset): stop_instances also stops (runpod) or terminates the account's
            running instances Default: PostV1AlertsBodyType1Action.NOTIFY.
    """

    type_: PostV1AlertsBodyType1Type
    threshold_dollars: float
    action: PostV1AlertsBodyType1Action | Unset = PostV1AlertsBodyType1Action.NOTIFY

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        threshold_dollars = self.threshold_dollars

        action: str | Unset = UNSET
        if not isinstance(self.action, Unset):
            action = self.action.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "threshold_dollars": threshold_dollars,
            }
        )
        if action is not UNSET:
            field_dict["action"] = action

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        type_ = PostV1AlertsBodyType1Type(d.pop("type"))

        threshold_dollars = d.pop("threshold_dollars")

        _action = d.pop("action", UNSET)
        action: PostV1AlertsBodyType1Action | Unset
        if isinstance(_action, Unset):
            action = UNSET
        else:
            action = PostV1AlertsBodyType1Action(_action)

        post_v1_alerts_body_type_1 = cls(
            type_=type_,
            threshold_dollars=threshold_dollars,
            action=action,
        )

        return post_v1_alerts_body_type_1
