from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.post_v1_webhooks_body_events_item import PostV1WebhooksBodyEventsItem
from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV1WebhooksBody")


@_attrs_define
class PostV1WebhooksBody:
    """
    Attributes:
        url (str): https URL
        events (list[PostV1WebhooksBodyEventsItem]):
        secret (str | Unset): whsec_ + base64 of 24..64 bytes; generated when omitted
    """

    url: str
    events: list[PostV1WebhooksBodyEventsItem]
    secret: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        events = []
        for events_item_data in self.events:
            events_item = events_item_data.value
            events.append(events_item)

        secret = self.secret

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "url": url,
                "events": events,
            }
        )
        if secret is not UNSET:
            field_dict["secret"] = secret

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        url = d.pop("url")

        events = []
        _events = d.pop("events")
        for events_item_data in _events:
            events_item = PostV1WebhooksBodyEventsItem(events_item_data)

            events.append(events_item)

        secret = d.pop("secret", UNSET)

        post_v1_webhooks_body = cls(
            url=url,
            events=events,
            secret=secret,
        )

        return post_v1_webhooks_body
