from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.get_v1_api_keys_current_response_200_spend_limit_type_0_period import (
    GetV1ApiKeysCurrentResponse200SpendLimitType0Period,
)

T = TypeVar("T", bound="GetV1ApiKeysCurrentResponse200SpendLimitType0")


@_attrs_define
class GetV1ApiKeysCurrentResponse200SpendLimitType0:
    """
    Attributes:
        amount (float): dollars per period
        period (GetV1ApiKeysCurrentResponse200SpendLimitType0Period): UTC calendar day or month
    """

    amount: float
    period: GetV1ApiKeysCurrentResponse200SpendLimitType0Period

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

        period = GetV1ApiKeysCurrentResponse200SpendLimitType0Period(d.pop("period"))

        get_v1_api_keys_current_response_200_spend_limit_type_0 = cls(
            amount=amount,
            period=period,
        )

        return get_v1_api_keys_current_response_200_spend_limit_type_0
