from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.get_v1_alerts_response_200_data_item_action import (
    GetV1AlertsResponse200DataItemAction,
)
from ..models.get_v1_alerts_response_200_data_item_status import (
    GetV1AlertsResponse200DataItemStatus,
)
from ..models.get_v1_alerts_response_200_data_item_type import (
    GetV1AlertsResponse200DataItemType,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="GetV1AlertsResponse200DataItem")


@_attrs_define
class GetV1AlertsResponse200DataItem:
    """
    Attributes:
        id (str):
        type_ (GetV1AlertsResponse200DataItemType):
        action (GetV1AlertsResponse200DataItemAction):
        status (GetV1AlertsResponse200DataItemStatus):
        current_value (float | None): price_drop: the lowest available price for the GPU now (null when no provider
            offers it); budget_limit: the accrued spend of the current UTC calendar month (charges posted plus what live
            instances have run since their last charge)
        triggered_at (None | str): ISO 8601 UTC timestamp; null while active
        created_at (str): ISO 8601 UTC timestamp
        gpu_type (str | Unset): price_drop only
        threshold_price (float | Unset): price_drop only: dollars per GPU per hour
        threshold_dollars (float | Unset): budget_limit only: month-to-date spend in dollars
    """

    id: str
    type_: GetV1AlertsResponse200DataItemType
    action: GetV1AlertsResponse200DataItemAction
    status: GetV1AlertsResponse200DataItemStatus
    current_value: float | None
    triggered_at: None | str
    created_at: str
    gpu_type: str | Unset = UNSET
    threshold_price: float | Unset = UNSET
    threshold_dollars: float | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        type_ = self.type_.value

        action = self.action.value

        status = self.status.value

        current_value: float | None
        current_value = self.current_value

        triggered_at: None | str
        triggered_at = self.triggered_at

        created_at = self.created_at

        gpu_type = self.gpu_type

        threshold_price = self.threshold_price

        threshold_dollars = self.threshold_dollars

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "type": type_,
                "action": action,
                "status": status,
                "current_value": current_value,
                "triggered_at": triggered_at,
                "created_at": created_at,
            }
        )
        if gpu_type is not UNSET:
            field_dict["gpu_type"] = gpu_type
        if threshold_price is not UNSET:
            field_dict["threshold_price"] = threshold_price
        if threshold_dollars is not UNSET:
            field_dict["threshold_dollars"] = threshold_dollars

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        type_ = GetV1AlertsResponse200DataItemType(d.pop("type"))

        action = GetV1AlertsResponse200DataItemAction(d.pop("action"))

        status = GetV1AlertsResponse200DataItemStatus(d.pop("status"))

        def _parse_current_value(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        current_value = _parse_current_value(d.pop("current_value"))

        def _parse_triggered_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        triggered_at = _parse_triggered_at(d.pop("triggered_at"))

        created_at = d.pop("created_at")

        gpu_type = d.pop("gpu_type", UNSET)

        threshold_price = d.pop("threshold_price", UNSET)

        threshold_dollars = d.pop("threshold_dollars", UNSET)

        get_v1_alerts_response_200_data_item = cls(
            id=id,
            type_=type_,
            action=action,
            status=status,
            current_value=current_value,
            triggered_at=triggered_at,
            created_at=created_at,
            gpu_type=gpu_type,
            threshold_price=threshold_price,
            threshold_dollars=threshold_dollars,
        )

        get_v1_alerts_response_200_data_item.additional_properties = d
        return get_v1_alerts_response_200_data_item

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
