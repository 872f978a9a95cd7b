from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PostV1JobsTailBody")


@_attrs_define
class PostV1JobsTailBody:
    """
    Attributes:
        token (str):
        tail (str):
    """

    token: str
    tail: str

    def to_dict(self) -> dict[str, Any]:
        token = self.token

        tail = self.tail

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "token": token,
                "tail": tail,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        token = d.pop("token")

        tail = d.pop("tail")

        post_v1_jobs_tail_body = cls(
            token=token,
            tail=tail,
        )

        return post_v1_jobs_tail_body
