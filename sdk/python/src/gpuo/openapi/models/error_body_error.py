from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.error_body_error_details_item import ErrorBodyErrorDetailsItem


T = TypeVar("T", bound="ErrorBodyError")


@_attrs_define
class ErrorBodyError:
    """
    Attributes:
        code (str):
        message (str):
        request_id (str):
        details (list[ErrorBodyErrorDetailsItem] | Unset):
    """

    code: str
    message: str
    request_id: str
    details: list[ErrorBodyErrorDetailsItem] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code

        message = self.message

        request_id = self.request_id

        details: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.details, Unset):
            details = []
            for details_item_data in self.details:
                details_item = details_item_data.to_dict()
                details.append(details_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
                "message": message,
                "request_id": request_id,
            }
        )
        if details is not UNSET:
            field_dict["details"] = details

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.error_body_error_details_item import ErrorBodyErrorDetailsItem

        d = dict(src_dict)
        code = d.pop("code")

        message = d.pop("message")

        request_id = d.pop("request_id")

        _details = d.pop("details", UNSET)
        details: list[ErrorBodyErrorDetailsItem] | Unset = UNSET
        if _details is not UNSET:
            details = []
            for details_item_data in _details:
                details_item = ErrorBodyErrorDetailsItem.from_dict(details_item_data)

                details.append(details_item)

        error_body_error = cls(
            code=code,
            message=message,
            request_id=request_id,
            details=details,
        )

        error_body_error.additional_properties = d
        return error_body_error

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
