from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.put_v1_ssh_keys_id_default_response_200_key_type import (
    PutV1SshKeysIdDefaultResponse200KeyType,
)

T = TypeVar("T", bound="PutV1SshKeysIdDefaultResponse200")


@_attrs_define
class PutV1SshKeysIdDefaultResponse200:
    """
    Attributes:
        id (str):
        name (str):
        public_key (str):
        fingerprint (str): "SHA256:" + unpadded base64, as ssh-keygen -l prints it
        key_type (PutV1SshKeysIdDefaultResponse200KeyType):
        is_default (bool):
        created_at (str): ISO 8601 UTC timestamp
    """

    id: str
    name: str
    public_key: str
    fingerprint: str
    key_type: PutV1SshKeysIdDefaultResponse200KeyType
    is_default: bool
    created_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        public_key = self.public_key

        fingerprint = self.fingerprint

        key_type = self.key_type.value

        is_default = self.is_default

        created_at = self.created_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "public_key": public_key,
                "fingerprint": fingerprint,
                "key_type": key_type,
                "is_default": is_default,
                "created_at": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        public_key = d.pop("public_key")

        fingerprint = d.pop("fingerprint")

        key_type = PutV1SshKeysIdDefaultResponse200KeyType(d.pop("key_type"))

        is_default = d.pop("is_default")

        created_at = d.pop("created_at")

        put_v1_ssh_keys_id_default_response_200 = cls(
            id=id,
            name=name,
            public_key=public_key,
            fingerprint=fingerprint,
            key_type=key_type,
            is_default=is_default,
            created_at=created_at,
        )

        put_v1_ssh_keys_id_default_response_200.additional_properties = d
        return put_v1_ssh_keys_id_default_response_200

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
