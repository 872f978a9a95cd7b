from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_webhooks_id_response_200_events_item import (
    GetV1WebhooksIdResponse200EventsItem,
)

T = TypeVar("T", bound="GetV1WebhooksIdResponse200")


@_attrs_define
class GetV1WebhooksIdResponse200:
    """
    Attributes:
        id (str):
        url (str):
        events (list[GetV1WebhooksIdResponse200EventsItem]):
        active (bool):
        created_at (str): ISO 8601 UTC timestamp
        updated_at (str): ISO 8601 UTC timestamp
    """

    id: str
    url: str
    events: list[GetV1WebhooksIdResponse200EventsItem]
    active: bool
    created_at: str
    updated_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        url = self.url

        events = []
        for events_item_data in self.events:
            events_item = events_item_data.value
            events.append(events_item)

        active = self.active

        created_at = self.created_at

        updated_at = self.updated_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "url": url,
                "events": events,
                "active": active,
                "created_at": created_at,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        url = d.pop("url")

        events = []
        _events = d.pop("events")
        for events_item_data in _events:
            events_item = GetV1WebhooksIdResponse200EventsItem(events_item_data)

            events.append(events_item)

        active = d.pop("active")

        created_at = d.pop("created_at")

        updated_at = d.pop("updated_at")

        get_v1_webhooks_id_response_200 = cls(
            id=id,
            url=url,
            events=events,
            active=active,
            created_at=created_at,
            updated_at=updated_at,
        )

        get_v1_webhooks_id_response_200.additional_properties = d
        return get_v1_webhooks_id_response_200

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
