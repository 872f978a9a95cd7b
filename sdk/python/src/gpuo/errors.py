"""Typed errors built from the API's one error body: ``{"error": {code, message, details, request_id}}``.

The class follows the HTTP status (docs/api.md lists the codes of each); ``code`` tells apart the cases that
share one, e.g. ``no_capacity`` and ``provider_not_connected`` under 422.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


class GpuoError(Exception):
    """An error answer of the API."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        details: list[dict[str, Any]] | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details: list[dict[str, Any]] = details or []
        self.request_id = request_id
        #: Seconds to wait before trying again, from ``Retry-After`` (429, 503), else None.
        self.retry_after = retry_after


class ValidationError(GpuoError):
    """400 (``validation_error``, ``invalid_json``): ``details`` names each field; or 422: the request is valid
    but cannot be served (``no_capacity``, ``provider_not_connected``, ``unsupported_operation``,
    ``limit_reached``)."""


class AuthenticationError(GpuoError):
    """401: the API key is missing, unknown, revoked or expired."""


class PaymentRequired(GpuoError):
    """402 ``insufficient_balance``: the balance, or the key's spend cap, does not cover the launch."""


class PermissionDenied(GpuoError):
    """403: the API key lacks the scope (the message names it)."""


class NotFound(GpuoError):
    """404: no such resource in this account."""


class Conflict(GpuoError):
    """409: a duplicate, or an Idempotency-Key reused with another body."""


class RateLimited(GpuoError):
    """429: wait ``retry_after`` seconds."""


class Unavailable(GpuoError):
    """502, 503: a provider or the service is unavailable; ``retry_after`` when the API says when."""


_BY_STATUS: dict[int, type[GpuoError]] = {
    400: ValidationError,
    401: AuthenticationError,
    402: PaymentRequired,
    403: PermissionDenied,
    404: NotFound,
    409: Conflict,
    422: ValidationError,
    429: RateLimited,
    502: Unavailable,
    503: Unavailable,
}


def error_from_response(
    status: int, content: bytes, headers: Mapping[str, str]
) -> GpuoError:
    """The typed error for an error answer (any status; a body that is not the API's gives ``http_error``)."""
    body: Any
    try:
        body = json.loads(content)
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        error = {}
    try:
        retry_after: float | None = float(headers.get("retry-after", ""))
    except ValueError:
        retry_after = None
    details = error.get("details")
    return _BY_STATUS.get(status, GpuoError)(
        status,
        str(error.get("code", "http_error")),
        str(error.get("message", f"HTTP {status}")),
        details=details if isinstance(details, list) else None,
        request_id=error.get("request_id") or headers.get("x-request-id"),
        retry_after=retry_after,
    )
