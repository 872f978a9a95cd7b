from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.put_v1_webhooks_id_body_events_item import PutV1WebhooksIdBodyEventsItem
from ..types import UNSET, Unset

T = TypeVar("T", bound="PutV1WebhooksIdBody")


@_attrs_define
class PutV1WebhooksIdBody:
    """
    Attributes:
        url (str | Unset): https URL
        events (list[PutV1WebhooksIdBodyEventsItem] | Unset):
        secret (str | Unset): whsec_ + base64 of 24..64 bytes; generated when omitted
        active (bool | Unset):
    """

    url: str | Unset = UNSET
    events: list[PutV1WebhooksIdBodyEventsItem] | Unset = UNSET
    secret: str | Unset = UNSET
    active: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        events: list[str] | Unset = UNSET
        if not isinstance(self.events, Unset):
            events = []
            for events_item_data in self.events:
                events_item = events_item_data.value
                events.append(events_item)

        secret = self.secret

        active = self.active

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if url is not UNSET:
            field_dict["url"] = url
        if events is not UNSET:
            field_dict["events"] = events
        if secret is not UNSET:
            field_dict["secret"] = secret
        if active is not UNSET:
            field_dict["active"] = active

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        url = d.pop("url", UNSET)

        _events = d.pop("events", UNSET)
        events: list[PutV1WebhooksIdBodyEventsItem] | Unset = UNSET
        if _events is not UNSET:
            events = []
            for events_item_data in _events:
                events_item = PutV1WebhooksIdBodyEventsItem(events_item_data)

                events.append(events_item)

        secret = d.pop("secret", UNSET)

        active = d.pop("active", UNSET)

        put_v1_webhooks_id_body = cls(
            url=url,
            events=events,
            secret=secret,
            active=active,
        )

        return put_v1_webhooks_id_body
