from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.get_v1_billing_summary_response_200 import GetV1BillingSummaryResponse200
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/billing/summary",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | GetV1BillingSummaryResponse200 | None:
    if response.status_code == 200:
        response_200 = GetV1BillingSummaryResponse200.from_dict(response.json())

        return response_200

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
) -> Response[ErrorBody | GetV1BillingSummaryResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | GetV1BillingSummaryResponse200]:
    """Where the balance stands and where it goes: uncharged usage, burn rate, runway, month to date and
    forecast

     Beyond the spec. Read in one snapshot: balance and month_to_date_spend agree with the ledger to the
    micro-dollar.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetV1BillingSummaryResponse200]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
) -> ErrorBody | GetV1BillingSummaryResponse200 | None:
    """Where the balance stands and where it goes: uncharged usage, burn rate, runway, month to date and
    forecast

     Beyond the spec. Read in one snapshot: balance and month_to_date_spend agree with the ledger to the
    micro-dollar.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetV1BillingSummaryResponse200
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | GetV1BillingSummaryResponse200]:
    """Where the balance stands and where it goes: uncharged usage, burn rate, runway, month to date and
    forecast

     Beyond the spec. Read in one snapshot: balance and month_to_date_spend agree with the ledger to the
    micro-dollar.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetV1BillingSummaryResponse200]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
) -> ErrorBody | GetV1BillingSummaryResponse200 | None:
    """Where the balance stands and where it goes: uncharged usage, burn rate, runway, month to date and
    forecast

     Beyond the spec. Read in one snapshot: balance and month_to_date_spend agree with the ledger to the
    micro-dollar.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetV1BillingSummaryResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
