from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PostV1ComputeProviderInstanceIdStartResponse202SshType0")


@_attrs_define
class PostV1ComputeProviderInstanceIdStartResponse202SshType0:
    """
    Attributes:
        host (str):
        port (float):
        user (str):
    """

    host: str
    port: float
    user: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        host = self.host

        port = self.port

        user = self.user

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "host": host,
                "port": port,
                "user": user,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        host = d.pop("host")

        port = d.pop("port")

        user = d.pop("user")

        post_v1_compute_provider_instance_id_start_response_202_ssh_type_0 = cls(
            host=host,
            port=port,
            user=user,
        )

        post_v1_compute_provider_instance_id_start_response_202_ssh_type_0.additional_properties = d
        return post_v1_compute_provider_instance_id_start_response_202_ssh_type_0

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
