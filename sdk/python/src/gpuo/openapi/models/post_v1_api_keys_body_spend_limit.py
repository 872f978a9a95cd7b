from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.post_v1_api_keys_body_spend_limit_period import (
    PostV1ApiKeysBodySpendLimitPeriod,
)

T = TypeVar("T", bound="PostV1ApiKeysBodySpendLimit")


@_attrs_define
class PostV1ApiKeysBodySpendLimit:
    """launches and scheduled runs are admitted only while the key's spend in the period plus the next hour of its live
    instances fits; at the cap its instances are ended

        Attributes:
            amount (float): dollars per period
            period (PostV1ApiKeysBodySpendLimitPeriod): UTC calendar day or month
    """

    amount: float
    period: PostV1ApiKeysBodySpendLimitPeriod

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

        period = PostV1ApiKeysBodySpendLimitPeriod(d.pop("period"))

        post_v1_api_keys_body_spend_limit = cls(
            amount=amount,
            period=period,
        )

        return post_v1_api_keys_body_spend_limit
