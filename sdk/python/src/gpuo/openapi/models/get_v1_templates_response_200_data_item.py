from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_templates_response_200_data_item_category import (
    GetV1TemplatesResponse200DataItemCategory,
)

T = TypeVar("T", bound="GetV1TemplatesResponse200DataItem")


@_attrs_define
class GetV1TemplatesResponse200DataItem:
    """
    Attributes:
        slug (str):
        name (str):
        description (str):
        icon (str): Lucide icon name
        category (GetV1TemplatesResponse200DataItemCategory):
        docker_image (str):
        min_vram_gb (int):
        default_ports (list[int]):
    """

    slug: str
    name: str
    description: str
    icon: str
    category: GetV1TemplatesResponse200DataItemCategory
    docker_image: str
    min_vram_gb: int
    default_ports: list[int]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        slug = self.slug

        name = self.name

        description = self.description

        icon = self.icon

        category = self.category.value

        docker_image = self.docker_image

        min_vram_gb = self.min_vram_gb

        default_ports = self.default_ports

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "slug": slug,
                "name": name,
                "description": description,
                "icon": icon,
                "category": category,
                "docker_image": docker_image,
                "min_vram_gb": min_vram_gb,
                "default_ports": default_ports,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        slug = d.pop("slug")

        name = d.pop("name")

        description = d.pop("description")

        icon = d.pop("icon")

        category = GetV1TemplatesResponse200DataItemCategory(d.pop("category"))

        docker_image = d.pop("docker_image")

        min_vram_gb = d.pop("min_vram_gb")

        default_ports = cast(list[int], d.pop("default_ports"))

        get_v1_templates_response_200_data_item = cls(
            slug=slug,
            name=name,
            description=description,
            icon=icon,
            category=category,
            docker_image=docker_image,
            min_vram_gb=min_vram_gb,
            default_ports=default_ports,
        )

        get_v1_templates_response_200_data_item.additional_properties = d
        return get_v1_templates_response_200_data_item

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
