from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.get_v1_compute_provider_instance_id_response_200 import (
    GetV1ComputeProviderInstanceIdResponse200,
)
from ...types import Response


def _get_kwargs(
    provider_instance_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/compute/{provider_instance_id}".format(
            provider_instance_id=quote(str(provider_instance_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | GetV1ComputeProviderInstanceIdResponse200 | None:
    if response.status_code == 200:
        response_200 = GetV1ComputeProviderInstanceIdResponse200.from_dict(
            response.json()
        )

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

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

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
) -> Response[ErrorBody | GetV1ComputeProviderInstanceIdResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    provider_instance_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | GetV1ComputeProviderInstanceIdResponse200]:
    """One instance: its record, timeline, cost to date and charges

     A managed instance of this account, live or ended: what happened to it and when (`timeline`), what
    it cost so far (`cost.to_date` = the ledger's charges `cost.posted` + `cost.accrued` since its last
    charge), its latest charges and the price it runs at. An instance ended here that its provider still
    lists shows `terminating` with `provider_view`.

    Args:
        provider_instance_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetV1ComputeProviderInstanceIdResponse200]
    """

    kwargs = _get_kwargs(
        provider_instance_id=provider_instance_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    provider_instance_id: str,
    *,
    client: AuthenticatedClient,
) -> ErrorBody | GetV1ComputeProviderInstanceIdResponse200 | None:
    """One instance: its record, timeline, cost to date and charges

     A managed instance of this account, live or ended: what happened to it and when (`timeline`), what
    it cost so far (`cost.to_date` = the ledger's charges `cost.posted` + `cost.accrued` since its last
    charge), its latest charges and the price it runs at. An instance ended here that its provider still
    lists shows `terminating` with `provider_view`.

    Args:
        provider_instance_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetV1ComputeProviderInstanceIdResponse200
    """

    return sync_detailed(
        provider_instance_id=provider_instance_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    provider_instance_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | GetV1ComputeProviderInstanceIdResponse200]:
    """One instance: its record, timeline, cost to date and charges

     A managed instance of this account, live or ended: what happened to it and when (`timeline`), what
    it cost so far (`cost.to_date` = the ledger's charges `cost.posted` + `cost.accrued` since its last
    charge), its latest charges and the price it runs at. An instance ended here that its provider still
    lists shows `terminating` with `provider_view`.

    Args:
        provider_instance_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetV1ComputeProviderInstanceIdResponse200]
    """

    kwargs = _get_kwargs(
        provider_instance_id=provider_instance_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    provider_instance_id: str,
    *,
    client: AuthenticatedClient,
) -> ErrorBody | GetV1ComputeProviderInstanceIdResponse200 | None:
    """One instance: its record, timeline, cost to date and charges

     A managed instance of this account, live or ended: what happened to it and when (`timeline`), what
    it cost so far (`cost.to_date` = the ledger's charges `cost.posted` + `cost.accrued` since its last
    charge), its latest charges and the price it runs at. An instance ended here that its provider still
    lists shows `terminating` with `provider_view`.

    Args:
        provider_instance_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetV1ComputeProviderInstanceIdResponse200
    """

    return (
        await asyncio_detailed(
            provider_instance_id=provider_instance_id,
            client=client,
        )
    ).parsed
