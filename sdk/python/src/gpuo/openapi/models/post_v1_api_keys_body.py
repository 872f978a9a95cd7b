from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.post_v1_api_keys_body_scopes_item import PostV1ApiKeysBodyScopesItem
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.post_v1_api_keys_body_spend_limit import PostV1ApiKeysBodySpendLimit


T = TypeVar("T", bound="PostV1ApiKeysBody")


@_attrs_define
class PostV1ApiKeysBody:
    """
    Attributes:
        name (str):
        scopes (list[PostV1ApiKeysBodyScopesItem]): read: every GET; <family>:write: POST/PUT/DELETE of that family;
            keys:admin: /v1/api-keys
        spend_limit (PostV1ApiKeysBodySpendLimit | Unset): launches and scheduled runs are admitted only while the key's
            spend in the period plus the next hour of its live instances fits; at the cap its instances are ended
        expires_at (datetime.datetime | Unset):
    """

    name: str
    scopes: list[PostV1ApiKeysBodyScopesItem]
    spend_limit: PostV1ApiKeysBodySpendLimit | Unset = UNSET
    expires_at: datetime.datetime | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        scopes = []
        for scopes_item_data in self.scopes:
            scopes_item = scopes_item_data.value
            scopes.append(scopes_item)

        spend_limit: dict[str, Any] | Unset = UNSET
        if not isinstance(self.spend_limit, Unset):
            spend_limit = self.spend_limit.to_dict()

        expires_at: str | Unset = UNSET
        if not isinstance(self.expires_at, Unset):
            expires_at = self.expires_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "scopes": scopes,
            }
        )
        if spend_limit is not UNSET:
            field_dict["spend_limit"] = spend_limit
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_v1_api_keys_body_spend_limit import (
            PostV1ApiKeysBodySpendLimit,
        )

        d = dict(src_dict)
        name = d.pop("name")

        scopes = []
        _scopes = d.pop("scopes")
        for scopes_item_data in _scopes:
            scopes_item = PostV1ApiKeysBodyScopesItem(scopes_item_data)

            scopes.append(scopes_item)

        _spend_limit = d.pop("spend_limit", UNSET)
        spend_limit: PostV1ApiKeysBodySpendLimit | Unset
        if isinstance(_spend_limit, Unset):
            spend_limit = UNSET
        else:
            spend_limit = PostV1ApiKeysBodySpendLimit.from_dict(_spend_limit)

        _expires_at = d.pop("expires_at", UNSET)
        expires_at: datetime.datetime | Unset
        if isinstance(_expires_at, Unset):
            expires_at = UNSET
        else:
            expires_at = datetime.datetime.fromisoformat(_expires_at)

        post_v1_api_keys_body = cls(
            name=name,
            scopes=scopes,
            spend_limit=spend_limit,
            expires_at=expires_at,
        )

        return post_v1_api_keys_body
