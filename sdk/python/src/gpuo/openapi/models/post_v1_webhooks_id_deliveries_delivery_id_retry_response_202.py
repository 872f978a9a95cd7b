from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.post_v1_webhooks_id_deliveries_delivery_id_retry_response_202_status import (
    PostV1WebhooksIdDeliveriesDeliveryIdRetryResponse202Status,
)

T = TypeVar("T", bound="PostV1WebhooksIdDeliveriesDeliveryIdRetryResponse202")


@_attrs_define
class PostV1WebhooksIdDeliveriesDeliveryIdRetryResponse202:
    """
    Attributes:
        id (str):
        status (PostV1WebhooksIdDeliveriesDeliveryIdRetryResponse202Status):
        attempt_count (float):
    """

    id: str
    status: PostV1WebhooksIdDeliveriesDeliveryIdRetryResponse202Status
    attempt_count: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        status = self.status.value

        attempt_count = self.attempt_count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "status": status,
                "attempt_count": attempt_count,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        status = PostV1WebhooksIdDeliveriesDeliveryIdRetryResponse202Status(
            d.pop("status")
        )

        attempt_count = d.pop("attempt_count")

        post_v1_webhooks_id_deliveries_delivery_id_retry_response_202 = cls(
            id=id,
            status=status,
            attempt_count=attempt_count,
        )

        post_v1_webhooks_id_deliveries_delivery_id_retry_response_202.additional_properties = d
        return post_v1_webhooks_id_deliveries_delivery_id_retry_response_202

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
