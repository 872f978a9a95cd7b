from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="GetV1GpusResponse200DataItem")


@_attrs_define
class GetV1GpusResponse200DataItem:
    """
    Attributes:
        gpu_type (str): the slug every route takes
        display_name (str):
        vram_gb (float):
        aliases (list[str]): other names that mean this GPU type alone (compared without case, spaces, dashes)
    """

    gpu_type: str
    display_name: str
    vram_gb: float
    aliases: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        gpu_type = self.gpu_type

        display_name = self.display_name

        vram_gb = self.vram_gb

        aliases = self.aliases

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "gpu_type": gpu_type,
                "display_name": display_name,
                "vram_gb": vram_gb,
                "aliases": aliases,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        gpu_type = d.pop("gpu_type")

        display_name = d.pop("display_name")

        vram_gb = d.pop("vram_gb")

        aliases = cast(list[str], d.pop("aliases"))

        get_v1_gpus_response_200_data_item = cls(
            gpu_type=gpu_type,
            display_name=display_name,
            vram_gb=vram_gb,
            aliases=aliases,
        )

        get_v1_gpus_response_200_data_item.additional_properties = d
        return get_v1_gpus_response_200_data_item

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
