from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV1JobsExitBody")


@_attrs_define
class PostV1JobsExitBody:
    """
    Attributes:
        token (str):
        exit_code (int):
        tail (str | Unset):  Default: ''.
    """

    token: str
    exit_code: int
    tail: str | Unset = ""

    def to_dict(self) -> dict[str, Any]:
        token = self.token

        exit_code = self.exit_code

        tail = self.tail

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "token": token,
                "exit_code": exit_code,
            }
        )
        if tail is not UNSET:
            field_dict["tail"] = tail

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        token = d.pop("token")

        exit_code = d.pop("exit_code")

        tail = d.pop("tail", UNSET)

        post_v1_jobs_exit_body = cls(
            token=token,
            exit_code=exit_code,
            tail=tail,
        )

        return post_v1_jobs_exit_body
