from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.post_v1_jobs_tail_body import PostV1JobsTailBody
from ...models.post_v1_jobs_tail_response_202 import PostV1JobsTailResponse202
from ...types import Response


def _get_kwargs(
    *,
    body: PostV1JobsTailBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/jobs/tail",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | PostV1JobsTailResponse202 | None:
    if response.status_code == 202:
        response_202 = PostV1JobsTailResponse202.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

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
) -> Response[ErrorBody | PostV1JobsTailResponse202]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PostV1JobsTailBody,
) -> Response[ErrorBody | PostV1JobsTailResponse202]:
    """The job wrapper's tail while the command runs, with the attempt's exit token

     Sent by the wrapper on the instance every GPUO_TAIL_INTERVAL seconds, not by users. The latest tail
    is kept (its last 1000 lines, at most 16 KiB) and is what the logs of an attempt on Lambda show
    while it runs. A wrong token is 401; once the attempt reported its exit or ended, 409; neither
    changes anything.

    Args:
        body (PostV1JobsTailBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PostV1JobsTailResponse202]
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
    client: AuthenticatedClient | Client,
    body: PostV1JobsTailBody,
) -> ErrorBody | PostV1JobsTailResponse202 | None:
    """The job wrapper's tail while the command runs, with the attempt's exit token

     Sent by the wrapper on the instance every GPUO_TAIL_INTERVAL seconds, not by users. The latest tail
    is kept (its last 1000 lines, at most 16 KiB) and is what the logs of an attempt on Lambda show
    while it runs. A wrong token is 401; once the attempt reported its exit or ended, 409; neither
    changes anything.

    Args:
        body (PostV1JobsTailBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PostV1JobsTailResponse202
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: PostV1JobsTailBody,
) -> Response[ErrorBody | PostV1JobsTailResponse202]:
    """The job wrapper's tail while the command runs, with the attempt's exit token

     Sent by the wrapper on the instance every GPUO_TAIL_INTERVAL seconds, not by users. The latest tail
    is kept (its last 1000 lines, at most 16 KiB) and is what the logs of an attempt on Lambda show
    while it runs. A wrong token is 401; once the attempt reported its exit or ended, 409; neither
    changes anything.

    Args:
        body (PostV1JobsTailBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PostV1JobsTailResponse202]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: PostV1JobsTailBody,
) -> ErrorBody | PostV1JobsTailResponse202 | None:
    """The job wrapper's tail while the command runs, with the attempt's exit token

     Sent by the wrapper on the instance every GPUO_TAIL_INTERVAL seconds, not by users. The latest tail
    is kept (its last 1000 lines, at most 16 KiB) and is what the logs of an attempt on Lambda show
    while it runs. A wrong token is 401; once the attempt reported its exit or ended, 409; neither
    changes anything.

    Args:
        body (PostV1JobsTailBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PostV1JobsTailResponse202
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
