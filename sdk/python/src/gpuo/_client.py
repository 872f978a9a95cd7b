"""``Client`` and ``AsyncClient``: the generated operations (``gpuo.openapi``) behind a few namespaces that raise
typed errors, put an Idempotency-Key on every launch and walk paged lists to their end.

Every operation the helpers do not cover is one call away on ``client.api``, the generated
``AuthenticatedClient``: ``gpuo.openapi.api.<tag>.<operation>.sync(client=client.api, ...)``.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Iterator,
    Mapping,
    Sequence,
)
from types import TracebackType
from typing import Any, Protocol, Self, TypeVar, overload

import httpx

from .errors import error_from_response
from .openapi.api.billing import get_v1_billing_balance, get_v1_billing_transactions
from .openapi.api.compute import (
    get_v1_compute,
    post_v1_compute_launch,
    post_v1_compute_plan,
    post_v1_compute_provider_instance_id_stop,
    post_v1_compute_provider_instance_id_terminate,
)
from .openapi.api.pricing import get_v1_pricing, get_v1_pricing_compare
from .openapi.api.webhooks import get_v1_events
from .openapi.client import AuthenticatedClient
from .openapi.models import (
    GetV1BillingBalanceResponse200,
    GetV1BillingTransactionsResponse200,
    GetV1BillingTransactionsResponse200DataItem,
    GetV1BillingTransactionsType,
    GetV1ComputeResponse200,
    GetV1EventsResponse200,
    GetV1EventsResponse200DataItem,
    GetV1EventsType,
    GetV1PricingCompareResponse200,
    GetV1PricingResponse200,
    PostV1ComputeLaunchResponse201,
    PostV1ComputePlanResponse200Type0,
    PostV1ComputePlanResponse200Type1,
    PostV1ComputeProviderInstanceIdStopResponse200,
    PostV1ComputeProviderInstanceIdStopResponse202,
    PostV1ComputeProviderInstanceIdTerminateResponse200,
    PostV1ComputeProviderInstanceIdTerminateResponse202,
)
from .openapi.types import UNSET, Response

DEFAULT_BASE_URL = "http://127.0.0.1:3000"

T = TypeVar("T")
U = TypeVar("U")
T_co = TypeVar("T_co", covariant=True)

Plan = PostV1ComputePlanResponse200Type0 | PostV1ComputePlanResponse200Type1
Stopped = (
    PostV1ComputeProviderInstanceIdStopResponse200
    | PostV1ComputeProviderInstanceIdStopResponse202
)
Terminated = (
    PostV1ComputeProviderInstanceIdTerminateResponse200
    | PostV1ComputeProviderInstanceIdTerminateResponse202
)


class Page(Protocol[T_co]):
    """A page as the paged lists answer it (``limit`` and ``cursor`` in, this out)."""

    @property
    def data(self) -> Sequence[T_co]: ...
    @property
    def has_more(self) -> bool: ...
    @property
    def next_cursor(self) -> str | None: ...


def new_idempotency_key() -> str:
    """A new random Idempotency-Key: a launch retried with the same key and body makes one instance."""
    return f"sdk_{uuid.uuid4()}"


@overload
def _unwrap(response: Response[Any], kind: type[T], /) -> T: ...
@overload
def _unwrap(response: Response[Any], kind: type[T], other: type[U], /) -> T | U: ...
def _unwrap(response: Response[Any], *kinds: type[Any]) -> Any:
    """The parsed answer when it is a success of the expected kind, else the typed error from the body."""
    if response.status_code < 400 and isinstance(response.parsed, kinds):
        return response.parsed
    raise error_from_response(response.status_code, response.content, response.headers)


def paginate(fetch_page: Callable[[str | None], Page[T]]) -> Iterator[T]:
    """Every item of a paged list, page after page: ``fetch_page(cursor)`` gets one (the first with None)."""
    cursor: str | None = None
    while True:
        page = fetch_page(cursor)
        yield from page.data
        if not page.has_more or not page.next_cursor:
            return
        cursor = page.next_cursor


async def apaginate(
    fetch_page: Callable[[str | None], Awaitable[Page[T]]],
) -> AsyncIterator[T]:
    """:func:`paginate` for ``AsyncClient``."""
    cursor: str | None = None
    while True:
        page = await fetch_page(cursor)
        for item in page.data:
            yield item
        if not page.has_more or not page.next_cursor:
            return
        cursor = page.next_cursor


def _authenticated(
    api_key: str | None, base_url: str | None, timeout: float
) -> AuthenticatedClient:
    key = api_key or os.environ.get("GPUO_API_KEY")
    if not key:
        raise ValueError("no API key: pass api_key= or set GPUO_API_KEY")
    url = (
        base_url
        or os.environ.get("GPUO_BASE_URL")
        or os.environ.get("GPUO_API_URL")
        or DEFAULT_BASE_URL
    )
    return AuthenticatedClient(
        base_url=url.rstrip("/"), token=key, timeout=httpx.Timeout(timeout)
    )


def _launch_request(
    body: Mapping[str, Any], idempotency_key: str | None
) -> dict[str, Any]:
    # The body goes out as given: the API validates it, and an unknown field is its 400, not silently dropped.
    headers = {"Idempotency-Key": idempotency_key or new_idempotency_key()}
    return {
        "method": "POST",
        "url": "/v1/compute/launch",
        "json": dict(body),
        "headers": headers,
    }


class _Namespace:
    def __init__(self, api: AuthenticatedClient) -> None:
        self._api = api


class Compute(_Namespace):
    def launch(
        self, *, idempotency_key: str | None = None, **body: Any
    ) -> PostV1ComputeLaunchResponse201:
        """Launches an instance (``provider``, ``gpu_type``, …: the launch body). An Idempotency-Key is sent
        (generated unless given): repeating the call with the same key and body gives the same instance."""
        http = self._api.get_httpx_client().request(
            **_launch_request(body, idempotency_key)
        )
        return _unwrap(
            post_v1_compute_launch._build_response(client=self._api, response=http),
            PostV1ComputeLaunchResponse201,
        )

    def plan(self, **body: Any) -> Plan:
        """What a launch with this body would do (price, admission, refusal), creating nothing; without
        ``provider``, the candidates across providers, cheapest first."""
        http = self._api.get_httpx_client().post("/v1/compute/plan", json=body)
        return _unwrap(
            post_v1_compute_plan._build_response(client=self._api, response=http),
            PostV1ComputePlanResponse200Type0,
            PostV1ComputePlanResponse200Type1,
        )

    def list(self) -> GetV1ComputeResponse200:
        return _unwrap(
            get_v1_compute.sync_detailed(client=self._api), GetV1ComputeResponse200
        )

    def stop(self, instance_id: str) -> Stopped:
        return _unwrap(
            post_v1_compute_provider_instance_id_stop.sync_detailed(
                instance_id, client=self._api
            ),
            PostV1ComputeProviderInstanceIdStopResponse200,
            PostV1ComputeProviderInstanceIdStopResponse202,
        )

    def terminate(self, instance_id: str) -> Terminated:
        return _unwrap(
            post_v1_compute_provider_instance_id_terminate.sync_detailed(
                instance_id, client=self._api
            ),
            PostV1ComputeProviderInstanceIdTerminateResponse200,
            PostV1ComputeProviderInstanceIdTerminateResponse202,
        )


class Pricing(_Namespace):
    def list(self) -> GetV1PricingResponse200:
        """The latest offers of every GPU type across the providers."""
        return _unwrap(
            get_v1_pricing.sync_detailed(client=self._api), GetV1PricingResponse200
        )

    def compare(self, gpu: str) -> GetV1PricingCompareResponse200:
        """One GPU type's offers, with the cheapest available."""
        return _unwrap(
            get_v1_pricing_compare.sync_detailed(client=self._api, gpu=gpu),
            GetV1PricingCompareResponse200,
        )


class Billing(_Namespace):
    def balance(self) -> GetV1BillingBalanceResponse200:
        return _unwrap(
            get_v1_billing_balance.sync_detailed(client=self._api),
            GetV1BillingBalanceResponse200,
        )

    def transactions(
        self,
        *,
        type: GetV1BillingTransactionsType | str | None = None,
        page_size: int = 50,
    ) -> Iterator[GetV1BillingTransactionsResponse200DataItem]:
        """Every ledger entry, newest first, fetched ``page_size`` at a time as the iteration goes."""
        kind = GetV1BillingTransactionsType(type) if type is not None else UNSET
        return paginate(
            lambda cursor: _unwrap(
                get_v1_billing_transactions.sync_detailed(
                    client=self._api,
                    type_=kind,
                    limit=page_size,
                    cursor=cursor or UNSET,
                ),
                GetV1BillingTransactionsResponse200,
            )
        )


class Events(_Namespace):
    def list(
        self, *, type: GetV1EventsType | str | None = None, page_size: int = 50
    ) -> Iterator[GetV1EventsResponse200DataItem]:
        """Every event of the account, newest first, fetched ``page_size`` at a time as the iteration goes."""
        kind = GetV1EventsType(type) if type is not None else UNSET
        return paginate(
            lambda cursor: _unwrap(
                get_v1_events.sync_detailed(
                    client=self._api,
                    type_=kind,
                    limit=page_size,
                    cursor=cursor or UNSET,
                ),
                GetV1EventsResponse200,
            )
        )


class Client:
    """The API with a key: ``api_key`` defaults to ``$GPUO_API_KEY``, ``base_url`` to ``$GPUO_BASE_URL`` (or
    ``$GPUO_API_URL``, as the ``gpuo`` CLI reads it), else a local ``npm start``. Use it in a ``with`` block, or
    ``close()`` it, to release its connections."""

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        timeout: float = 30.0,
    ) -> None:
        #: The generated client: every operation of the API, ``gpuo.openapi.api.<tag>.<operation>``.
        self.api = _authenticated(api_key, base_url, timeout)
        self.compute = Compute(self.api)
        self.pricing = Pricing(self.api)
        self.billing = Billing(self.api)
        self.events = Events(self.api)

    def close(self) -> None:
        self.api.get_httpx_client().close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncCompute(_Namespace):
    async def launch(
        self, *, idempotency_key: str | None = None, **body: Any
    ) -> PostV1ComputeLaunchResponse201:
        """:meth:`Compute.launch`."""
        http = await self._api.get_async_httpx_client().request(
            **_launch_request(body, idempotency_key)
        )
        return _unwrap(
            post_v1_compute_launch._build_response(client=self._api, response=http),
            PostV1ComputeLaunchResponse201,
        )

    async def plan(self, **body: Any) -> Plan:
        http = await self._api.get_async_httpx_client().post(
            "/v1/compute/plan", json=body
        )
        return _unwrap(
            post_v1_compute_plan._build_response(client=self._api, response=http),
            PostV1ComputePlanResponse200Type0,
            PostV1ComputePlanResponse200Type1,
        )

    async def list(self) -> GetV1ComputeResponse200:
        return _unwrap(
            await get_v1_compute.asyncio_detailed(client=self._api),
            GetV1ComputeResponse200,
        )

    async def stop(self, instance_id: str) -> Stopped:
        return _unwrap(
            await post_v1_compute_provider_instance_id_stop.asyncio_detailed(
                instance_id, client=self._api
            ),
            PostV1ComputeProviderInstanceIdStopResponse200,
            PostV1ComputeProviderInstanceIdStopResponse202,
        )

    async def terminate(self, instance_id: str) -> Terminated:
        return _unwrap(
            await post_v1_compute_provider_instance_id_terminate.asyncio_detailed(
                instance_id, client=self._api
            ),
            PostV1ComputeProviderInstanceIdTerminateResponse200,
            PostV1ComputeProviderInstanceIdTerminateResponse202,
        )


class AsyncPricing(_Namespace):
    async def list(self) -> GetV1PricingResponse200:
        return _unwrap(
            await get_v1_pricing.asyncio_detailed(client=self._api),
            GetV1PricingResponse200,
        )

    async def compare(self, gpu: str) -> GetV1PricingCompareResponse200:
        return _unwrap(
            await get_v1_pricing_compare.asyncio_detailed(client=self._api, gpu=gpu),
            GetV1PricingCompareResponse200,
        )


class AsyncBilling(_Namespace):
    async def balance(self) -> GetV1BillingBalanceResponse200:
        return _unwrap(
            await get_v1_billing_balance.asyncio_detailed(client=self._api),
            GetV1BillingBalanceResponse200,
        )

    def transactions(
        self,
        *,
        type: GetV1BillingTransactionsType | str | None = None,
        page_size: int = 50,
    ) -> AsyncIterator[GetV1BillingTransactionsResponse200DataItem]:
        """:meth:`Billing.transactions`, for ``async for``."""
        kind = GetV1BillingTransactionsType(type) if type is not None else UNSET

        async def page(
            cursor: str | None,
        ) -> Page[GetV1BillingTransactionsResponse200DataItem]:
            return _unwrap(
                await get_v1_billing_transactions.asyncio_detailed(
                    client=self._api,
                    type_=kind,
                    limit=page_size,
                    cursor=cursor or UNSET,
                ),
                GetV1BillingTransactionsResponse200,
            )

        return apaginate(page)


class AsyncEvents(_Namespace):
    def list(
        self, *, type: GetV1EventsType | str | None = None, page_size: int = 50
    ) -> AsyncIterator[GetV1EventsResponse200DataItem]:
        """:meth:`Events.list`, for ``async for``."""
        kind = GetV1EventsType(type) if type is not None else UNSET

        async def page(cursor: str | None) -> Page[GetV1EventsResponse200DataItem]:
            return _unwrap(
                await get_v1_events.asyncio_detailed(
                    client=self._api,
                    type_=kind,
                    limit=page_size,
                    cursor=cursor or UNSET,
                ),
                GetV1EventsResponse200,
            )

        return apaginate(page)


class AsyncClient:
    """:class:`Client` for asyncio: the same namespaces, each call awaited, paged lists for ``async for``."""

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        timeout: float = 30.0,
    ) -> None:
        self.api = _authenticated(api_key, base_url, timeout)
        self.compute = AsyncCompute(self.api)
        self.pricing = AsyncPricing(self.api)
        self.billing = AsyncBilling(self.api)
        self.events = AsyncEvents(self.api)

    async def aclose(self) -> None:
        await self.api.get_async_httpx_client().aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
