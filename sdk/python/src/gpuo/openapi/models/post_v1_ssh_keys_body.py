from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PostV1SshKeysBody")


@_attrs_define
class PostV1SshKeysBody:
    """
    Attributes:
        name (str):
        public_key (str): one line: key type, base64 key, optional comment
    """

    name: str
    public_key: str

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        public_key = self.public_key

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "public_key": public_key,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        public_key = d.pop("public_key")

        post_v1_ssh_keys_body = cls(
            name=name,
            public_key=public_key,
        )

        return post_v1_ssh_keys_body
