from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.get_v1_compute_refresh import GetV1ComputeRefresh
from ...models.get_v1_compute_response_200 import GetV1ComputeResponse200
from ...models.get_v1_compute_status import GetV1ComputeStatus
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    refresh: GetV1ComputeRefresh | Unset = UNSET,
    status: GetV1ComputeStatus | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_refresh: str | Unset = UNSET
    if not isinstance(refresh, Unset):
        json_refresh = refresh.value

    params["refresh"] = json_refresh

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/compute",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | GetV1ComputeResponse200 | None:
    if response.status_code == 200:
        response_200 = GetV1ComputeResponse200.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())

        return response_403

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = ErrorBody.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = ErrorBody.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorBody | GetV1ComputeResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    refresh: GetV1ComputeRefresh | Unset = UNSET,
    status: GetV1ComputeStatus | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> Response[ErrorBody | GetV1ComputeResponse200]:
    """All instances visible through the account's connected provider keys

     Served from what the observers last listed at each provider (no provider call per request): each
    record has `observed_at`, `providers` says per provider when it was observed and whether that view
    is `fresh`, `stale` (its last round failed; the provider is also in `errors`) or `pending`.
    `?refresh=true` asks for a round now and answers when it ends or within a few seconds. An instance
    leaves this list once it ended (terminate answered). `?status=ended` lists the ended instances
    instead, paged (`limit`, `cursor`), newest first, each with `started_at`, `ended_at`, `end_kind`,
    `end_reason` and `total_cost`.

    Args:
        refresh (GetV1ComputeRefresh | Unset): true: ask the providers for a round now (answered
            within a few seconds)
        status (GetV1ComputeStatus | Unset): `ended`: the ended instances instead (paged, newest
            first, with why and what they cost)
        limit (int | Unset): page size of `status=ended`, 1-200 (default 50)
        cursor (str | Unset): `status=ended`: next_cursor of the previous page

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetV1ComputeResponse200]
    """

    kwargs = _get_kwargs(
        refresh=refresh,
        status=status,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    refresh: GetV1ComputeRefresh | Unset = UNSET,
    status: GetV1ComputeStatus | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> ErrorBody | GetV1ComputeResponse200 | None:
    """All instances visible through the account's connected provider keys

     Served from what the observers last listed at each provider (no provider call per request): each
    record has `observed_at`, `providers` says per provider when it was observed and whether that view
    is `fresh`, `stale` (its last round failed; the provider is also in `errors`) or `pending`.
    `?refresh=true` asks for a round now and answers when it ends or within a few seconds. An instance
    leaves this list once it ended (terminate answered). `?status=ended` lists the ended instances
    instead, paged (`limit`, `cursor`), newest first, each with `started_at`, `ended_at`, `end_kind`,
    `end_reason` and `total_cost`.

    Args:
        refresh (GetV1ComputeRefresh | Unset): true: ask the providers for a round now (answered
            within a few seconds)
        status (GetV1ComputeStatus | Unset): `ended`: the ended instances instead (paged, newest
            first, with why and what they cost)
        limit (int | Unset): page size of `status=ended`, 1-200 (default 50)
        cursor (str | Unset): `status=ended`: next_cursor of the previous page

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetV1ComputeResponse200
    """

    return sync_detailed(
        client=client,
        refresh=refresh,
        status=status,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    refresh: GetV1ComputeRefresh | Unset = UNSET,
    status: GetV1ComputeStatus | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> Response[ErrorBody | GetV1ComputeResponse200]:
    """All instances visible through the account's connected provider keys

     Served from what the observers last listed at each provider (no provider call per request): each
    record has `observed_at`, `providers` says per provider when it was observed and whether that view
    is `fresh`, `stale` (its last round failed; the provider is also in `errors`) or `pending`.
    `?refresh=true` asks for a round now and answers when it ends or within a few seconds. An instance
    leaves this list once it ended (terminate answered). `?status=ended` lists the ended instances
    instead, paged (`limit`, `cursor`), newest first, each with `started_at`, `ended_at`, `end_kind`,
    `end_reason` and `total_cost`.

    Args:
        refresh (GetV1ComputeRefresh | Unset): true: ask the providers for a round now (answered
            within a few seconds)
        status (GetV1ComputeStatus | Unset): `ended`: the ended instances instead (paged, newest
            first, with why and what they cost)
        limit (int | Unset): page size of `status=ended`, 1-200 (default 50)
        cursor (str | Unset): `status=ended`: next_cursor of the previous page

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetV1ComputeResponse200]
    """

    kwargs = _get_kwargs(
        refresh=refresh,
        status=status,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    refresh: GetV1ComputeRefresh | Unset = UNSET,
    status: GetV1ComputeStatus | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> ErrorBody | GetV1ComputeResponse200 | None:
    """All instances visible through the account's connected provider keys

     Served from what the observers last listed at each provider (no provider call per request): each
    record has `observed_at`, `providers` says per provider when it was observed and whether that view
    is `fresh`, `stale` (its last round failed; the provider is also in `errors`) or `pending`.
    `?refresh=true` asks for a round now and answers when it ends or within a few seconds. An instance
    leaves this list once it ended (terminate answered). `?status=ended` lists the ended instances
    instead, paged (`limit`, `cursor`), newest first, each with `started_at`, `ended_at`, `end_kind`,
    `end_reason` and `total_cost`.

    Args:
        refresh (GetV1ComputeRefresh | Unset): true: ask the providers for a round now (answered
            within a few seconds)
        status (GetV1ComputeStatus | Unset): `ended`: the ended instances instead (paged, newest
            first, with why and what they cost)
        limit (int | Unset): page size of `status=ended`, 1-200 (default 50)
        cursor (str | Unset): `status=ended`: next_cursor of the previous page

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetV1ComputeResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            refresh=refresh,
            status=status,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
