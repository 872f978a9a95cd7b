from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PostV1BillingCreditBody")


@_attrs_define
class PostV1BillingCreditBody:
    """
    Attributes:
        amount (float): dollars, at least 5, at most two decimals
    """

    amount: float

    def to_dict(self) -> dict[str, Any]:
        amount = self.amount

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "amount": amount,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        amount = d.pop("amount")

        post_v1_billing_credit_body = cls(
            amount=amount,
        )

        return post_v1_billing_credit_body
