from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.post_v1_compute_provider_instance_id_start_response_200 import (
    PostV1ComputeProviderInstanceIdStartResponse200,
)
from ...models.post_v1_compute_provider_instance_id_start_response_202 import (
    PostV1ComputeProviderInstanceIdStartResponse202,
)
from ...types import Response


def _get_kwargs(
    provider_instance_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/compute/{provider_instance_id}/start".format(
            provider_instance_id=quote(str(provider_instance_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | PostV1ComputeProviderInstanceIdStartResponse200
    | PostV1ComputeProviderInstanceIdStartResponse202
    | None
):
    if response.status_code == 200:
        response_200 = PostV1ComputeProviderInstanceIdStartResponse200.from_dict(
            response.json()
        )

        return response_200

    if response.status_code == 202:
        response_202 = PostV1ComputeProviderInstanceIdStartResponse202.from_dict(
            response.json()
        )

        return response_202

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 402:
        response_402 = ErrorBody.from_dict(response.json())

        return response_402

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 408:
        response_408 = ErrorBody.from_dict(response.json())

        return response_408

    if response.status_code == 413:
        response_413 = ErrorBody.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = ErrorBody.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = ErrorBody.from_dict(response.json())

        return response_500

    if response.status_code == 502:
        response_502 = ErrorBody.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = ErrorBody.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    ErrorBody
    | PostV1ComputeProviderInstanceIdStartResponse200
    | PostV1ComputeProviderInstanceIdStartResponse202
]:
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
) -> Response[
    ErrorBody
    | PostV1ComputeProviderInstanceIdStartResponse200
    | PostV1ComputeProviderInstanceIdStartResponse202
]:
    """Start a stopped instance again (runpod)

     Admitted like a launch, at the instance's own price: the available balance must cover the admission
    window of every live instance plus this one, and the account must be under its live-instance limit.
    Metering resumes when the instance is seen running; its storage is charged until then. An instance
    already running answers as it is; one terminated while its start waited answers with its terminated
    record.

    Args:
        provider_instance_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PostV1ComputeProviderInstanceIdStartResponse200 | PostV1ComputeProviderInstanceIdStartResponse202]
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
) -> (
    ErrorBody
    | PostV1ComputeProviderInstanceIdStartResponse200
    | PostV1ComputeProviderInstanceIdStartResponse202
    | None
):
    """Start a stopped instance again (runpod)

     Admitted like a launch, at the instance's own price: the available balance must cover the admission
    window of every live instance plus this one, and the account must be under its live-instance limit.
    Metering resumes when the instance is seen running; its storage is charged until then. An instance
    already running answers as it is; one terminated while its start waited answers with its terminated
    record.

    Args:
        provider_instance_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PostV1ComputeProviderInstanceIdStartResponse200 | PostV1ComputeProviderInstanceIdStartResponse202
    """

    return sync_detailed(
        provider_instance_id=provider_instance_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    provider_instance_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[
    ErrorBody
    | PostV1ComputeProviderInstanceIdStartResponse200
    | PostV1ComputeProviderInstanceIdStartResponse202
]:
    """Start a stopped instance again (runpod)

     Admitted like a launch, at the instance's own price: the available balance must cover the admission
    window of every live instance plus this one, and the account must be under its live-instance limit.
    Metering resumes when the instance is seen running; its storage is charged until then. An instance
    already running answers as it is; one terminated while its start waited answers with its terminated
    record.

    Args:
        provider_instance_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PostV1ComputeProviderInstanceIdStartResponse200 | PostV1ComputeProviderInstanceIdStartResponse202]
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
) -> (
    ErrorBody
    | PostV1ComputeProviderInstanceIdStartResponse200
    | PostV1ComputeProviderInstanceIdStartResponse202
    | None
):
    """Start a stopped instance again (runpod)

     Admitted like a launch, at the instance's own price: the available balance must cover the admission
    window of every live instance plus this one, and the account must be under its live-instance limit.
    Metering resumes when the instance is seen running; its storage is charged until then. An instance
    already running answers as it is; one terminated while its start waited answers with its terminated
    record.

    Args:
        provider_instance_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PostV1ComputeProviderInstanceIdStartResponse200 | PostV1ComputeProviderInstanceIdStartResponse202
    """

    return (
        await asyncio_detailed(
            provider_instance_id=provider_instance_id,
            client=client,
        )
    ).parsed
