from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.post_v1_api_keys_response_201_scopes_item import (
    PostV1ApiKeysResponse201ScopesItem,
)

if TYPE_CHECKING:
    from ..models.post_v1_api_keys_response_201_spend_limit_type_0 import (
        PostV1ApiKeysResponse201SpendLimitType0,
    )


T = TypeVar("T", bound="PostV1ApiKeysResponse201")


@_attrs_define
class PostV1ApiKeysResponse201:
    """
    Attributes:
        id (str):
        name (str):
        key_prefix (str): the first characters of the key, to recognise it
        scopes (list[PostV1ApiKeysResponse201ScopesItem]):
        spend_limit (None | PostV1ApiKeysResponse201SpendLimitType0):
        spend_in_period (float | None): dollars charged in the current period to the instances of the key and of the
            keys made under it (null without a cap)
        last_used_at (None | str): to the minute
        expires_at (None | str): ISO 8601 UTC timestamp
        created_at (str): ISO 8601 UTC timestamp
        api_key (str):
    """

    id: str
    name: str
    key_prefix: str
    scopes: list[PostV1ApiKeysResponse201ScopesItem]
    spend_limit: None | PostV1ApiKeysResponse201SpendLimitType0
    spend_in_period: float | None
    last_used_at: None | str
    expires_at: None | str
    created_at: str
    api_key: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.post_v1_api_keys_response_201_spend_limit_type_0 import (
            PostV1ApiKeysResponse201SpendLimitType0,
        )

        id = self.id

        name = self.name

        key_prefix = self.key_prefix

        scopes = []
        for scopes_item_data in self.scopes:
            scopes_item = scopes_item_data.value
            scopes.append(scopes_item)

        spend_limit: dict[str, Any] | None
        if isinstance(self.spend_limit, PostV1ApiKeysResponse201SpendLimitType0):
            spend_limit = self.spend_limit.to_dict()
        else:
            spend_limit = self.spend_limit

        spend_in_period: float | None
        spend_in_period = self.spend_in_period

        last_used_at: None | str
        last_used_at = self.last_used_at

        expires_at: None | str
        expires_at = self.expires_at

        created_at = self.created_at

        api_key = self.api_key

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "key_prefix": key_prefix,
                "scopes": scopes,
                "spend_limit": spend_limit,
                "spend_in_period": spend_in_period,
                "last_used_at": last_used_at,
                "expires_at": expires_at,
                "created_at": created_at,
                "api_key": api_key,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_v1_api_keys_response_201_spend_limit_type_0 import (
            PostV1ApiKeysResponse201SpendLimitType0,
        )

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        key_prefix = d.pop("key_prefix")

        scopes = []
        _scopes = d.pop("scopes")
        for scopes_item_data in _scopes:
            scopes_item = PostV1ApiKeysResponse201ScopesItem(scopes_item_data)

            scopes.append(scopes_item)

        def _parse_spend_limit(
            data: object,
        ) -> None | PostV1ApiKeysResponse201SpendLimitType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                spend_limit_type_0 = PostV1ApiKeysResponse201SpendLimitType0.from_dict(
                    data
                )

                return spend_limit_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PostV1ApiKeysResponse201SpendLimitType0, data)

        spend_limit = _parse_spend_limit(d.pop("spend_limit"))

        def _parse_spend_in_period(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        spend_in_period = _parse_spend_in_period(d.pop("spend_in_period"))

        def _parse_last_used_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_used_at = _parse_last_used_at(d.pop("last_used_at"))

        def _parse_expires_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        expires_at = _parse_expires_at(d.pop("expires_at"))

        created_at = d.pop("created_at")

        api_key = d.pop("api_key")

        post_v1_api_keys_response_201 = cls(
            id=id,
            name=name,
            key_prefix=key_prefix,
            scopes=scopes,
            spend_limit=spend_limit,
            spend_in_period=spend_in_period,
            last_used_at=last_used_at,
            expires_at=expires_at,
            created_at=created_at,
            api_key=api_key,
        )

        post_v1_api_keys_response_201.additional_properties = d
        return post_v1_api_keys_response_201

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
