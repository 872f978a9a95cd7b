from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PostV1SchedulesIdTriggerResponse202")


@_attrs_define
class PostV1SchedulesIdTriggerResponse202:
    """
    Attributes:
        schedule_id (str):
        triggered_at (str): ISO 8601 UTC timestamp
    """

    schedule_id: str
    triggered_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        schedule_id = self.schedule_id

        triggered_at = self.triggered_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "schedule_id": schedule_id,
                "triggered_at": triggered_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        schedule_id = d.pop("schedule_id")

        triggered_at = d.pop("triggered_at")

        post_v1_schedules_id_trigger_response_202 = cls(
            schedule_id=schedule_id,
            triggered_at=triggered_at,
        )

        post_v1_schedules_id_trigger_response_202.additional_properties = d
        return post_v1_schedules_id_trigger_response_202

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
