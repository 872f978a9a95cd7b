from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.post_v1_webhooks_response_201_events_item import (
    PostV1WebhooksResponse201EventsItem,
)

T = TypeVar("T", bound="PostV1WebhooksResponse201")


@_attrs_define
class PostV1WebhooksResponse201:
    """
    Attributes:
        id (str):
        url (str):
        events (list[PostV1WebhooksResponse201EventsItem]):
        active (bool):
        created_at (str): ISO 8601 UTC timestamp
        updated_at (str): ISO 8601 UTC timestamp
        secret (str): whsec_… signing secret: shown only here (and when set by PUT)
    """

    id: str
    url: str
    events: list[PostV1WebhooksResponse201EventsItem]
    active: bool
    created_at: str
    updated_at: str
    secret: str
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

        secret = self.secret

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
                "secret": secret,
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
            events_item = PostV1WebhooksResponse201EventsItem(events_item_data)

            events.append(events_item)

        active = d.pop("active")

        created_at = d.pop("created_at")

        updated_at = d.pop("updated_at")

        secret = d.pop("secret")

        post_v1_webhooks_response_201 = cls(
            id=id,
            url=url,
            events=events,
            active=active,
            created_at=created_at,
            updated_at=updated_at,
            secret=secret,
        )

        post_v1_webhooks_response_201.additional_properties = d
        return post_v1_webhooks_response_201

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
