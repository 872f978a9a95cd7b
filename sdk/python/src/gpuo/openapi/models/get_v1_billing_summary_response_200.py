from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_billing_summary_response_200_currency import (
    GetV1BillingSummaryResponse200Currency,
)

T = TypeVar("T", bound="GetV1BillingSummaryResponse200")


@_attrs_define
class GetV1BillingSummaryResponse200:
    """
    Attributes:
        balance (float): dollars: exactly GET /v1/billing/balance (the last transaction's balance_after)
        uncharged (float): dollars live instances (and stopped pods' storage) have run up since their last charge
            (charged at the next meter or end)
        available (float): balance − uncharged: what launches are admitted against
        burn_rate_per_hour (float): dollars per hour of every live managed instance and of stopped pods' storage
        runway_hours (float | None): available / burn_rate_per_hour; null when nothing burns
        depletes_at (None | str): ISO 8601 UTC moment available reaches zero at this burn; null when nothing burns
        month_to_date_spend (float): dollars of instance_charge and instance_storage_charge transactions since the start
            of this UTC month
        forecast_month_spend (float): month to date + uncharged + the burn rate until the end of the month
        live_instances (int): managed instances that cost money by the hour (provisioning, running, stopping,
            terminating)
        currency (GetV1BillingSummaryResponse200Currency):
    """

    balance: float
    uncharged: float
    available: float
    burn_rate_per_hour: float
    runway_hours: float | None
    depletes_at: None | str
    month_to_date_spend: float
    forecast_month_spend: float
    live_instances: int
    currency: GetV1BillingSummaryResponse200Currency
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        balance = self.balance

        uncharged = self.uncharged

        available = self.available

        burn_rate_per_hour = self.burn_rate_per_hour

        runway_hours: float | None
        runway_hours = self.runway_hours

        depletes_at: None | str
        depletes_at = self.depletes_at

        month_to_date_spend = self.month_to_date_spend

        forecast_month_spend = self.forecast_month_spend

        live_instances = self.live_instances

        currency = self.currency.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "balance": balance,
                "uncharged": uncharged,
                "available": available,
                "burn_rate_per_hour": burn_rate_per_hour,
                "runway_hours": runway_hours,
                "depletes_at": depletes_at,
                "month_to_date_spend": month_to_date_spend,
                "forecast_month_spend": forecast_month_spend,
                "live_instances": live_instances,
                "currency": currency,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        balance = d.pop("balance")

        uncharged = d.pop("uncharged")

        available = d.pop("available")

        burn_rate_per_hour = d.pop("burn_rate_per_hour")

        def _parse_runway_hours(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        runway_hours = _parse_runway_hours(d.pop("runway_hours"))

        def _parse_depletes_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        depletes_at = _parse_depletes_at(d.pop("depletes_at"))

        month_to_date_spend = d.pop("month_to_date_spend")

        forecast_month_spend = d.pop("forecast_month_spend")

        live_instances = d.pop("live_instances")

        currency = GetV1BillingSummaryResponse200Currency(d.pop("currency"))

        get_v1_billing_summary_response_200 = cls(
            balance=balance,
            uncharged=uncharged,
            available=available,
            burn_rate_per_hour=burn_rate_per_hour,
            runway_hours=runway_hours,
            depletes_at=depletes_at,
            month_to_date_spend=month_to_date_spend,
            forecast_month_spend=forecast_month_spend,
            live_instances=live_instances,
            currency=currency,
        )

        get_v1_billing_summary_response_200.additional_properties = d
        return get_v1_billing_summary_response_200

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
