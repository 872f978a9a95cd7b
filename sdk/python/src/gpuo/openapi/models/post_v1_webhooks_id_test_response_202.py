from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.post_v1_webhooks_id_test_response_202_data import (
        PostV1WebhooksIdTestResponse202Data,
    )


T = TypeVar("T", bound="PostV1WebhooksIdTestResponse202")


@_attrs_define
class PostV1WebhooksIdTestResponse202:
    """
    Attributes:
        id (str):
        type_ (str):
        created_at (str): ISO 8601 UTC timestamp
        data (PostV1WebhooksIdTestResponse202Data):
    """

    id: str
    type_: str
    created_at: str
    data: PostV1WebhooksIdTestResponse202Data
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
        from ..models.post_v1_webhooks_id_test_response_202_data import (
            PostV1WebhooksIdTestResponse202Data,
        )

        d = dict(src_dict)
        id = d.pop("id")

        type_ = d.pop("type")

        created_at = d.pop("created_at")

        data = PostV1WebhooksIdTestResponse202Data.from_dict(d.pop("data"))

        post_v1_webhooks_id_test_response_202 = cls(
            id=id,
            type_=type_,
            created_at=created_at,
            data=data,
        )

        post_v1_webhooks_id_test_response_202.additional_properties = d
        return post_v1_webhooks_id_test_response_202

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
