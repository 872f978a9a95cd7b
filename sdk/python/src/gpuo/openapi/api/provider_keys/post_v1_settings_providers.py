from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.post_v1_settings_providers_body import PostV1SettingsProvidersBody
from ...models.post_v1_settings_providers_response_200 import (
    PostV1SettingsProvidersResponse200,
)
from ...models.post_v1_settings_providers_response_201 import (
    PostV1SettingsProvidersResponse201,
)
from ...types import Response


def _get_kwargs(
    *,
    body: PostV1SettingsProvidersBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/settings/providers",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | PostV1SettingsProvidersResponse200
    | PostV1SettingsProvidersResponse201
    | None
):
    if response.status_code == 200:
        response_200 = PostV1SettingsProvidersResponse200.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = PostV1SettingsProvidersResponse201.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())

        return response_403

    if response.status_code == 408:
        response_408 = ErrorBody.from_dict(response.json())

        return response_408

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

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
    ErrorBody | PostV1SettingsProvidersResponse200 | PostV1SettingsProvidersResponse201
]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: PostV1SettingsProvidersBody,
) -> Response[
    ErrorBody | PostV1SettingsProvidersResponse200 | PostV1SettingsProvidersResponse201
]:
    """Connect (or replace) the account's key for a provider

     One key per provider: 201 when new, 200 when it replaced the previous key. The key is verified with
    the provider first: one it rejects is refused 422 `provider_error` with its reason and nothing is
    stored; one it accepts is saved `valid` with `last_verified_at`; when the provider cannot be reached
    it is saved `unverified`. A replacement must see every live managed instance of that provider (409
    naming those it cannot see).

    Args:
        body (PostV1SettingsProvidersBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PostV1SettingsProvidersResponse200 | PostV1SettingsProvidersResponse201]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: PostV1SettingsProvidersBody,
) -> (
    ErrorBody
    | PostV1SettingsProvidersResponse200
    | PostV1SettingsProvidersResponse201
    | None
):
    """Connect (or replace) the account's key for a provider

     One key per provider: 201 when new, 200 when it replaced the previous key. The key is verified with
    the provider first: one it rejects is refused 422 `provider_error` with its reason and nothing is
    stored; one it accepts is saved `valid` with `last_verified_at`; when the provider cannot be reached
    it is saved `unverified`. A replacement must see every live managed instance of that provider (409
    naming those it cannot see).

    Args:
        body (PostV1SettingsProvidersBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PostV1SettingsProvidersResponse200 | PostV1SettingsProvidersResponse201
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: PostV1SettingsProvidersBody,
) -> Response[
    ErrorBody | PostV1SettingsProvidersResponse200 | PostV1SettingsProvidersResponse201
]:
    """Connect (or replace) the account's key for a provider

     One key per provider: 201 when new, 200 when it replaced the previous key. The key is verified with
    the provider first: one it rejects is refused 422 `provider_error` with its reason and nothing is
    stored; one it accepts is saved `valid` with `last_verified_at`; when the provider cannot be reached
    it is saved `unverified`. A replacement must see every live managed instance of that provider (409
    naming those it cannot see).

    Args:
        body (PostV1SettingsProvidersBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PostV1SettingsProvidersResponse200 | PostV1SettingsProvidersResponse201]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: PostV1SettingsProvidersBody,
) -> (
    ErrorBody
    | PostV1SettingsProvidersResponse200
    | PostV1SettingsProvidersResponse201
    | None
):
    """Connect (or replace) the account's key for a provider

     One key per provider: 201 when new, 200 when it replaced the previous key. The key is verified with
    the provider first: one it rejects is refused 422 `provider_error` with its reason and nothing is
    stored; one it accepts is saved `valid` with `last_verified_at`; when the provider cannot be reached
    it is saved `unverified`. A replacement must see every live managed instance of that provider (409
    naming those it cannot see).

    Args:
        body (PostV1SettingsProvidersBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PostV1SettingsProvidersResponse200 | PostV1SettingsProvidersResponse201
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
