from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.post_v1_api_keys_response_201_spend_limit_type_0_period import (
    PostV1ApiKeysResponse201SpendLimitType0Period,
)

T = TypeVar("T", bound="PostV1ApiKeysResponse201SpendLimitType0")


@_attrs_define
class PostV1ApiKeysResponse201SpendLimitType0:
    """
    Attributes:
        amount (float): dollars per period
        period (PostV1ApiKeysResponse201SpendLimitType0Period): UTC calendar day or month
    """

    amount: float
    period: PostV1ApiKeysResponse201SpendLimitType0Period

    def to_dict(self) -> dict[str, Any]:
        amount = self.amount

        period = self.period.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "amount": amount,
                "period": period,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        amount = d.pop("amount")

        period = PostV1ApiKeysResponse201SpendLimitType0Period(d.pop("period"))

        post_v1_api_keys_response_201_spend_limit_type_0 = cls(
            amount=amount,
            period=period,
        )

        return post_v1_api_keys_response_201_spend_limit_type_0
