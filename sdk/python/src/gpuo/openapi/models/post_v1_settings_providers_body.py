from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.post_v1_settings_providers_body_provider import (
    PostV1SettingsProvidersBodyProvider,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV1SettingsProvidersBody")


@_attrs_define
class PostV1SettingsProvidersBody:
    """
    Attributes:
        provider (PostV1SettingsProvidersBodyProvider):
        api_key (str):
        display_label (str | Unset):
    """

    provider: PostV1SettingsProvidersBodyProvider
    api_key: str
    display_label: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        provider = self.provider.value

        api_key = self.api_key

        display_label = self.display_label

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "provider": provider,
                "api_key": api_key,
            }
        )
        if display_label is not UNSET:
            field_dict["display_label"] = display_label

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        provider = PostV1SettingsProvidersBodyProvider(d.pop("provider"))

        api_key = d.pop("api_key")

        display_label = d.pop("display_label", UNSET)

        post_v1_settings_providers_body = cls(
            provider=provider,
            api_key=api_key,
            display_label=display_label,
        )

        return post_v1_settings_providers_body
