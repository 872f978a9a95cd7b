from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.get_v1_pricing_history_period import GetV1PricingHistoryPeriod
from ...models.get_v1_pricing_history_response_200 import GetV1PricingHistoryResponse200
from ...models.get_v1_pricing_history_spot import GetV1PricingHistorySpot
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    gpu: str,
    period: GetV1PricingHistoryPeriod,
    spot: GetV1PricingHistorySpot | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["gpu"] = gpu

    json_period = period.value
    params["period"] = json_period

    json_spot: str | Unset = UNSET
    if not isinstance(spot, Unset):
        json_spot = spot.value

    params["spot"] = json_spot

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/pricing/history",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | GetV1PricingHistoryResponse200 | None:
    if response.status_code == 200:
        response_200 = GetV1PricingHistoryResponse200.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

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
) -> Response[ErrorBody | GetV1PricingHistoryResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    gpu: str,
    period: GetV1PricingHistoryPeriod,
    spot: GetV1PricingHistorySpot | Unset = UNSET,
) -> Response[ErrorBody | GetV1PricingHistoryResponse200]:
    """Lowest on-demand (or spot) price per provider over a period (public)

     Every refresh is persisted. `24h` returns one point per refresh; `7d` the lowest price per hour;
    `30d` per 6 hours. On-demand prices unless `spot=true`, which answers the spot series instead: only
    Vast.ai sells spot (interruptible), so RunPod and Lambda have no points in it. `gpu` takes a slug or
    an alias naming one GPU type (GET /v1/gpus); a name of several GPU types (`h100`) or of none is 400
    `validation_error`, with the slugs it could mean or a pointer to GET /v1/gpus in `details`.

    Args:
        gpu (str):
        period (GetV1PricingHistoryPeriod):
        spot (GetV1PricingHistorySpot | Unset): true: the spot prices; false or absent: the on-
            demand prices

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetV1PricingHistoryResponse200]
    """

    kwargs = _get_kwargs(
        gpu=gpu,
        period=period,
        spot=spot,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    gpu: str,
    period: GetV1PricingHistoryPeriod,
    spot: GetV1PricingHistorySpot | Unset = UNSET,
) -> ErrorBody | GetV1PricingHistoryResponse200 | None:
    """Lowest on-demand (or spot) price per provider over a period (public)

     Every refresh is persisted. `24h` returns one point per refresh; `7d` the lowest price per hour;
    `30d` per 6 hours. On-demand prices unless `spot=true`, which answers the spot series instead: only
    Vast.ai sells spot (interruptible), so RunPod and Lambda have no points in it. `gpu` takes a slug or
    an alias naming one GPU type (GET /v1/gpus); a name of several GPU types (`h100`) or of none is 400
    `validation_error`, with the slugs it could mean or a pointer to GET /v1/gpus in `details`.

    Args:
        gpu (str):
        period (GetV1PricingHistoryPeriod):
        spot (GetV1PricingHistorySpot | Unset): true: the spot prices; false or absent: the on-
            demand prices

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetV1PricingHistoryResponse200
    """

    return sync_detailed(
        client=client,
        gpu=gpu,
        period=period,
        spot=spot,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    gpu: str,
    period: GetV1PricingHistoryPeriod,
    spot: GetV1PricingHistorySpot | Unset = UNSET,
) -> Response[ErrorBody | GetV1PricingHistoryResponse200]:
    """Lowest on-demand (or spot) price per provider over a period (public)

     Every refresh is persisted. `24h` returns one point per refresh; `7d` the lowest price per hour;
    `30d` per 6 hours. On-demand prices unless `spot=true`, which answers the spot series instead: only
    Vast.ai sells spot (interruptible), so RunPod and Lambda have no points in it. `gpu` takes a slug or
    an alias naming one GPU type (GET /v1/gpus); a name of several GPU types (`h100`) or of none is 400
    `validation_error`, with the slugs it could mean or a pointer to GET /v1/gpus in `details`.

    Args:
        gpu (str):
        period (GetV1PricingHistoryPeriod):
        spot (GetV1PricingHistorySpot | Unset): true: the spot prices; false or absent: the on-
            demand prices

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetV1PricingHistoryResponse200]
    """

    kwargs = _get_kwargs(
        gpu=gpu,
        period=period,
        spot=spot,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    gpu: str,
    period: GetV1PricingHistoryPeriod,
    spot: GetV1PricingHistorySpot | Unset = UNSET,
) -> ErrorBody | GetV1PricingHistoryResponse200 | None:
    """Lowest on-demand (or spot) price per provider over a period (public)

     Every refresh is persisted. `24h` returns one point per refresh; `7d` the lowest price per hour;
    `30d` per 6 hours. On-demand prices unless `spot=true`, which answers the spot series instead: only
    Vast.ai sells spot (interruptible), so RunPod and Lambda have no points in it. `gpu` takes a slug or
    an alias naming one GPU type (GET /v1/gpus); a name of several GPU types (`h100`) or of none is 400
    `validation_error`, with the slugs it could mean or a pointer to GET /v1/gpus in `details`.

    Args:
        gpu (str):
        period (GetV1PricingHistoryPeriod):
        spot (GetV1PricingHistorySpot | Unset): true: the spot prices; false or absent: the on-
            demand prices

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetV1PricingHistoryResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            gpu=gpu,
            period=period,
            spot=spot,
        )
    ).parsed
