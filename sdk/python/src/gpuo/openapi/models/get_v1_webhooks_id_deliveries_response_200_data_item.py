from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_webhooks_id_deliveries_response_200_data_item_status import (
    GetV1WebhooksIdDeliveriesResponse200DataItemStatus,
)

if TYPE_CHECKING:
    from ..models.get_v1_webhooks_id_deliveries_response_200_data_item_attempts_item import (
        GetV1WebhooksIdDeliveriesResponse200DataItemAttemptsItem,
    )
    from ..models.get_v1_webhooks_id_deliveries_response_200_data_item_event import (
        GetV1WebhooksIdDeliveriesResponse200DataItemEvent,
    )


T = TypeVar("T", bound="GetV1WebhooksIdDeliveriesResponse200DataItem")


@_attrs_define
class GetV1WebhooksIdDeliveriesResponse200DataItem:
    """
    Attributes:
        id (str): also the webhook-id header of every attempt
        webhook_id (str):
        event (GetV1WebhooksIdDeliveriesResponse200DataItemEvent):
        status (GetV1WebhooksIdDeliveriesResponse200DataItemStatus):
        attempt_count (float):
        next_attempt_at (None | str): ISO 8601 UTC timestamp
        attempts (list[GetV1WebhooksIdDeliveriesResponse200DataItemAttemptsItem]):
        created_at (str): ISO 8601 UTC timestamp
        updated_at (str): ISO 8601 UTC timestamp
    """

    id: str
    webhook_id: str
    event: GetV1WebhooksIdDeliveriesResponse200DataItemEvent
    status: GetV1WebhooksIdDeliveriesResponse200DataItemStatus
    attempt_count: float
    next_attempt_at: None | str
    attempts: list[GetV1WebhooksIdDeliveriesResponse200DataItemAttemptsItem]
    created_at: str
    updated_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        webhook_id = self.webhook_id

        event = self.event.to_dict()

        status = self.status.value

        attempt_count = self.attempt_count

        next_attempt_at: None | str
        next_attempt_at = self.next_attempt_at

        attempts = []
        for attempts_item_data in self.attempts:
            attempts_item = attempts_item_data.to_dict()
            attempts.append(attempts_item)

        created_at = self.created_at

        updated_at = self.updated_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "webhook_id": webhook_id,
                "event": event,
                "status": status,
                "attempt_count": attempt_count,
                "next_attempt_at": next_attempt_at,
                "attempts": attempts,
                "created_at": created_at,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.get_v1_webhooks_id_deliveries_response_200_data_item_attempts_item import (
            GetV1WebhooksIdDeliveriesResponse200DataItemAttemptsItem,
        )
        from ..models.get_v1_webhooks_id_deliveries_response_200_data_item_event import (
            GetV1WebhooksIdDeliveriesResponse200DataItemEvent,
        )

        d = dict(src_dict)
        id = d.pop("id")

        webhook_id = d.pop("webhook_id")

        event = GetV1WebhooksIdDeliveriesResponse200DataItemEvent.from_dict(
            d.pop("event")
        )

        status = GetV1WebhooksIdDeliveriesResponse200DataItemStatus(d.pop("status"))

        attempt_count = d.pop("attempt_count")

        def _parse_next_attempt_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("next_attempt_at"))

        attempts = []
        _attempts = d.pop("attempts")
        for attempts_item_data in _attempts:
            attempts_item = (
                GetV1WebhooksIdDeliveriesResponse200DataItemAttemptsItem.from_dict(
                    attempts_item_data
                )
            )

            attempts.append(attempts_item)

        created_at = d.pop("created_at")

        updated_at = d.pop("updated_at")

        get_v1_webhooks_id_deliveries_response_200_data_item = cls(
            id=id,
            webhook_id=webhook_id,
            event=event,
            status=status,
            attempt_count=attempt_count,
            next_attempt_at=next_attempt_at,
            attempts=attempts,
            created_at=created_at,
            updated_at=updated_at,
        )

        get_v1_webhooks_id_deliveries_response_200_data_item.additional_properties = d
        return get_v1_webhooks_id_deliveries_response_200_data_item

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
