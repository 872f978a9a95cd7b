from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_compute_provider_instance_id_response_200_timeline_item_event import (
    GetV1ComputeProviderInstanceIdResponse200TimelineItemEvent,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="GetV1ComputeProviderInstanceIdResponse200TimelineItem")


@_attrs_define
class GetV1ComputeProviderInstanceIdResponse200TimelineItem:
    """
    Attributes:
        event (GetV1ComputeProviderInstanceIdResponse200TimelineItemEvent):
        at (str): ISO 8601 UTC timestamp
        reason (str | Unset): why, where the service or the provider said
    """

    event: GetV1ComputeProviderInstanceIdResponse200TimelineItemEvent
    at: str
    reason: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        event = self.event.value

        at = self.at

        reason = self.reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "event": event,
                "at": at,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        event = GetV1ComputeProviderInstanceIdResponse200TimelineItemEvent(
            d.pop("event")
        )

        at = d.pop("at")

        reason = d.pop("reason", UNSET)

        get_v1_compute_provider_instance_id_response_200_timeline_item = cls(
            event=event,
            at=at,
            reason=reason,
        )

        get_v1_compute_provider_instance_id_response_200_timeline_item.additional_properties = d
        return get_v1_compute_provider_instance_id_response_200_timeline_item

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
