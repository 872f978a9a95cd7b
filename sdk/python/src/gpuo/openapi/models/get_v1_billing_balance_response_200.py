from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_billing_balance_response_200_currency import (
    GetV1BillingBalanceResponse200Currency,
)

T = TypeVar("T", bound="GetV1BillingBalanceResponse200")


@_attrs_define
class GetV1BillingBalanceResponse200:
    """
    Attributes:
        balance (float): dollars
        currency (GetV1BillingBalanceResponse200Currency):
    """

    balance: float
    currency: GetV1BillingBalanceResponse200Currency
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        balance = self.balance

        currency = self.currency.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "balance": balance,
                "currency": currency,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        balance = d.pop("balance")

        currency = GetV1BillingBalanceResponse200Currency(d.pop("currency"))

        get_v1_billing_balance_response_200 = cls(
            balance=balance,
            currency=currency,
        )

        get_v1_billing_balance_response_200.additional_properties = d
        return get_v1_billing_balance_response_200

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
