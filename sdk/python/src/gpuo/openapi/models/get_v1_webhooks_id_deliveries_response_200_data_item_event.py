from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.get_v1_webhooks_id_deliveries_response_200_data_item_event_data import (
        GetV1WebhooksIdDeliveriesResponse200DataItemEventData,
    )


T = TypeVar("T", bound="GetV1WebhooksIdDeliveriesResponse200DataItemEvent")


@_attrs_define
class GetV1WebhooksIdDeliveriesResponse200DataItemEvent:
    """
    Attributes:
        id (str):
        type_ (str):
        created_at (str): ISO 8601 UTC timestamp
        data (GetV1WebhooksIdDeliveriesResponse200DataItemEventData):
    """

    id: str
    type_: str
    created_at: str
    data: GetV1WebhooksIdDeliveriesResponse200DataItemEventData
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        type_ = self.type_

        created_at = self.created_at

        data = self.data.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "type": type_,
                "created_at": created_at,
                "data": data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.get_v1_webhooks_id_deliveries_response_200_data_item_event_data import (
            GetV1WebhooksIdDeliveriesResponse200DataItemEventData,
        )

        d = dict(src_dict)
        id = d.pop("id")

        type_ = d.pop("type")

        created_at = d.pop("created_at")

        data = GetV1WebhooksIdDeliveriesResponse200DataItemEventData.from_dict(
            d.pop("data")
        )

        get_v1_webhooks_id_deliveries_response_200_data_item_event = cls(
            id=id,
            type_=type_,
            created_at=created_at,
            data=data,
        )

        get_v1_webhooks_id_deliveries_response_200_data_item_event.additional_properties = d
        return get_v1_webhooks_id_deliveries_response_200_data_item_event

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
