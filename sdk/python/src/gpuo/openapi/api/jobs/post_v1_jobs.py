from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.post_v1_jobs_body import PostV1JobsBody
from ...models.post_v1_jobs_response_200 import PostV1JobsResponse200
from ...models.post_v1_jobs_response_201 import PostV1JobsResponse201
from ...types import Response


def _get_kwargs(
    *,
    body: PostV1JobsBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/jobs",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | PostV1JobsResponse200 | PostV1JobsResponse201 | None:
    if response.status_code == 200:
        response_200 = PostV1JobsResponse200.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = PostV1JobsResponse201.from_dict(response.json())

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

    if response.status_code == 503:
        response_503 = ErrorBody.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorBody | PostV1JobsResponse200 | PostV1JobsResponse201]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: PostV1JobsBody,
) -> Response[ErrorBody | PostV1JobsResponse200 | PostV1JobsResponse201]:
    """Run a command on the cheapest admitted GPU until it exits, relaunching it as its retry policy says

     Every attempt is a managed instance admitted like a launch. The command runs inside a wrapper that
    reports its exit code; the instance is then ended at once. Send an Idempotency-Key header to make
    retries safe (same key and body: the same job; another body: 409).

    Args:
        body (PostV1JobsBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PostV1JobsResponse200 | PostV1JobsResponse201]
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
    body: PostV1JobsBody,
) -> ErrorBody | PostV1JobsResponse200 | PostV1JobsResponse201 | None:
    """Run a command on the cheapest admitted GPU until it exits, relaunching it as its retry policy says

     Every attempt is a managed instance admitted like a launch. The command runs inside a wrapper that
    reports its exit code; the instance is then ended at once. Send an Idempotency-Key header to make
    retries safe (same key and body: the same job; another body: 409).

    Args:
        body (PostV1JobsBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PostV1JobsResponse200 | PostV1JobsResponse201
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: PostV1JobsBody,
) -> Response[ErrorBody | PostV1JobsResponse200 | PostV1JobsResponse201]:
    """Run a command on the cheapest admitted GPU until it exits, relaunching it as its retry policy says

     Every attempt is a managed instance admitted like a launch. The command runs inside a wrapper that
    reports its exit code; the instance is then ended at once. Send an Idempotency-Key header to make
    retries safe (same key and body: the same job; another body: 409).

    Args:
        body (PostV1JobsBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PostV1JobsResponse200 | PostV1JobsResponse201]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: PostV1JobsBody,
) -> ErrorBody | PostV1JobsResponse200 | PostV1JobsResponse201 | None:
    """Run a command on the cheapest admitted GPU until it exits, relaunching it as its retry policy says

     Every attempt is a managed instance admitted like a launch. The command runs inside a wrapper that
    reports its exit code; the instance is then ended at once. Send an Idempotency-Key header to make
    retries safe (same key and body: the same job; another body: 409).

    Args:
        body (PostV1JobsBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PostV1JobsResponse200 | PostV1JobsResponse201
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
