from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.get_v1_gpus_response_200 import GetV1GpusResponse200
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/gpus",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | GetV1GpusResponse200 | None:
    if response.status_code == 200:
        response_200 = GetV1GpusResponse200.from_dict(response.json())

        return response_200

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
) -> Response[ErrorBody | GetV1GpusResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[ErrorBody | GetV1GpusResponse200]:
    """The GPU types: slugs, names, memory and the aliases each answers to (public)

     Every route that takes a GPU type takes its slug or an alias naming it alone (`4090` is `rtx-4090`);
    a family name of several (`h100`) is answered 400 `validation_error` with the slugs it could mean; a
    name of none is answered 400 `validation_error` on every route, in one wording that points here.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetV1GpusResponse200]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
) -> ErrorBody | GetV1GpusResponse200 | None:
    """The GPU types: slugs, names, memory and the aliases each answers to (public)

     Every route that takes a GPU type takes its slug or an alias naming it alone (`4090` is `rtx-4090`);
    a family name of several (`h100`) is answered 400 `validation_error` with the slugs it could mean; a
    name of none is answered 400 `validation_error` on every route, in one wording that points here.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetV1GpusResponse200
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[ErrorBody | GetV1GpusResponse200]:
    """The GPU types: slugs, names, memory and the aliases each answers to (public)

     Every route that takes a GPU type takes its slug or an alias naming it alone (`4090` is `rtx-4090`);
    a family name of several (`h100`) is answered 400 `validation_error` with the slugs it could mean; a
    name of none is answered 400 `validation_error` on every route, in one wording that points here.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | GetV1GpusResponse200]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> ErrorBody | GetV1GpusResponse200 | None:
    """The GPU types: slugs, names, memory and the aliases each answers to (public)

     Every route that takes a GPU type takes its slug or an alias naming it alone (`4090` is `rtx-4090`);
    a family name of several (`h100`) is answered 400 `validation_error` with the slugs it could mean; a
    name of none is answered 400 `validation_error` on every route, in one wording that points here.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | GetV1GpusResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
