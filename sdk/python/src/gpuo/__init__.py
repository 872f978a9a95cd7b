"""Python client of the GPU orchestrator API.

``gpuo.openapi`` is generated from the API's OpenAPI document (``npm run sdk:generate``); the rest is a small
hand-written layer over it: :class:`Client` / :class:`AsyncClient`, typed errors, Idempotency-Keys on launches
and iterators over paged lists.
"""

from ._client import AsyncClient, Client, Page, apaginate, new_idempotency_key, paginate
from .errors import (
    AuthenticationError,
    Conflict,
    GpuoError,
    NotFound,
    PaymentRequired,
    PermissionDenied,
    RateLimited,
    Unavailable,
    ValidationError,
)

__all__ = [
    "AsyncClient",
    "AuthenticationError",
    "Client",
    "Conflict",
    "GpuoError",
    "NotFound",
    "Page",
    "PaymentRequired",
    "PermissionDenied",
    "RateLimited",
    "Unavailable",
    "ValidationError",
    "apaginate",
    "new_idempotency_key",
    "paginate",
]
