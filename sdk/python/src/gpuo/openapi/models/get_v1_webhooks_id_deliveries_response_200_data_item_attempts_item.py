from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="GetV1WebhooksIdDeliveriesResponse200DataItemAttemptsItem")


@_attrs_define
class GetV1WebhooksIdDeliveriesResponse200DataItemAttemptsItem:
    """
    Attributes:
        attempted_at (str): ISO 8601 UTC timestamp
        status_code (float | None): null when no HTTP answer came (refused, timeout, connection error)
        latency_ms (float):
        response_body (None | str): first 1 KiB
        error (None | str):
        success (bool):
    """

    attempted_at: str
    status_code: float | None
    latency_ms: float
    response_body: None | str
    error: None | str
    success: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempted_at = self.attempted_at

        status_code: float | None
        status_code = self.status_code

        latency_ms = self.latency_ms

        response_body: None | str
        response_body = self.response_body

        error: None | str
        error = self.error

        success = self.success

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempted_at": attempted_at,
                "status_code": status_code,
                "latency_ms": latency_ms,
                "response_body": response_body,
                "error": error,
                "success": success,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        attempted_at = d.pop("attempted_at")

        def _parse_status_code(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        status_code = _parse_status_code(d.pop("status_code"))

        latency_ms = d.pop("latency_ms")

        def _parse_response_body(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        response_body = _parse_response_body(d.pop("response_body"))

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        success = d.pop("success")

        get_v1_webhooks_id_deliveries_response_200_data_item_attempts_item = cls(
            attempted_at=attempted_at,
            status_code=status_code,
            latency_ms=latency_ms,
            response_body=response_body,
            error=error,
            success=success,
        )

        get_v1_webhooks_id_deliveries_response_200_data_item_attempts_item.additional_properties = d
        return get_v1_webhooks_id_deliveries_response_200_data_item_attempts_item

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
