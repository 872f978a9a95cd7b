from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.post_v1_settings_providers_provider_verify_provider import (
    PostV1SettingsProvidersProviderVerifyProvider,
)
from ...models.post_v1_settings_providers_provider_verify_response_200 import (
    PostV1SettingsProvidersProviderVerifyResponse200,
)
from ...types import Response


def _get_kwargs(
    provider: PostV1SettingsProvidersProviderVerifyProvider,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/settings/providers/{provider}/verify".format(
            provider=quote(str(provider), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | PostV1SettingsProvidersProviderVerifyResponse200 | None:
    if response.status_code == 200:
        response_200 = PostV1SettingsProvidersProviderVerifyResponse200.from_dict(
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

    if response.status_code == 408:
        response_408 = ErrorBody.from_dict(response.json())

        return response_408

    if response.status_code == 413:
        response_413 = ErrorBody.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = ErrorBody.from_dict(response.json())

        return response_415

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
) -> Response[ErrorBody | PostV1SettingsProvidersProviderVerifyResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    provider: PostV1SettingsProvidersProviderVerifyProvider,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | PostV1SettingsProvidersProviderVerifyResponse200]:
    """Check the saved key against the provider

     Calls a cheap authenticated provider endpoint. 200 also when the key is invalid; 503 when the
    provider cannot be reached.

    Args:
        provider (PostV1SettingsProvidersProviderVerifyProvider):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PostV1SettingsProvidersProviderVerifyResponse200]
    """

    kwargs = _get_kwargs(
        provider=provider,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    provider: PostV1SettingsProvidersProviderVerifyProvider,
    *,
    client: AuthenticatedClient,
) -> ErrorBody | PostV1SettingsProvidersProviderVerifyResponse200 | None:
    """Check the saved key against the provider

     Calls a cheap authenticated provider endpoint. 200 also when the key is invalid; 503 when the
    provider cannot be reached.

    Args:
        provider (PostV1SettingsProvidersProviderVerifyProvider):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PostV1SettingsProvidersProviderVerifyResponse200
    """

    return sync_detailed(
        provider=provider,
        client=client,
    ).parsed


async def asyncio_detailed(
    provider: PostV1SettingsProvidersProviderVerifyProvider,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | PostV1SettingsProvidersProviderVerifyResponse200]:
    """Check the saved key against the provider

     Calls a cheap authenticated provider endpoint. 200 also when the key is invalid; 503 when the
    provider cannot be reached.

    Args:
        provider (PostV1SettingsProvidersProviderVerifyProvider):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PostV1SettingsProvidersProviderVerifyResponse200]
    """

    kwargs = _get_kwargs(
        provider=provider,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    provider: PostV1SettingsProvidersProviderVerifyProvider,
    *,
    client: AuthenticatedClient,
) -> ErrorBody | PostV1SettingsProvidersProviderVerifyResponse200 | None:
    """Check the saved key against the provider

     Calls a cheap authenticated provider endpoint. 200 also when the key is invalid; 503 when the
    provider cannot be reached.

    Args:
        provider (PostV1SettingsProvidersProviderVerifyProvider):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PostV1SettingsProvidersProviderVerifyResponse200
    """

    return (
        await asyncio_detailed(
            provider=provider,
            client=client,
        )
    ).parsed
