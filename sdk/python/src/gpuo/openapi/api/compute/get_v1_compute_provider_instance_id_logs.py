from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.get_v1_compute_provider_instance_id_logs_follow import (
    GetV1ComputeProviderInstanceIdLogsFollow,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    provider_instance_id: str,
    *,
    tail: int | None | Unset = UNSET,
    follow: GetV1ComputeProviderInstanceIdLogsFollow | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_tail: int | None | Unset
    if isinstance(tail, Unset):
        json_tail = UNSET
    else:
        json_tail = tail
    params["tail"] = json_tail

    json_follow: str | Unset = UNSET
    if not isinstance(follow, Unset):
        json_follow = follow.value

    params["follow"] = json_follow

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/compute/{provider_instance_id}/logs".format(
            provider_instance_id=quote(str(provider_instance_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | str | None:
    if response.status_code == 200:
        response_200 = response.text
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
) -> Response[ErrorBody | str]:
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
    tail: int | None | Unset = UNSET,
    follow: GetV1ComputeProviderInstanceIdLogsFollow | Unset = UNSET,
) -> Response[ErrorBody | str]:
    """An instance's container output: its last lines, or followed (`follow=true`) while it runs

     RunPod: the pod's log stream; Vast.ai: the log it uploads on request (a moment's wait). Lambda has
    no log API: a job's instance there answers the tail the job reported, any other is 422. An ended
    instance answers what the provider still has, else the reported tail of the job it ran.

    Args:
        provider_instance_id (str):
        tail (int | None | Unset): the last this many lines (default 100, at most 5000; a plain
            answer is also cut to its last 256 KiB)
        follow (GetV1ComputeProviderInstanceIdLogsFollow | Unset): true: server-sent events, new
            lines while it runs, then an `end` event

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | str]
    """

    kwargs = _get_kwargs(
        provider_instance_id=provider_instance_id,
        tail=tail,
        follow=follow,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    provider_instance_id: str,
    *,
    client: AuthenticatedClient,
    tail: int | None | Unset = UNSET,
    follow: GetV1ComputeProviderInstanceIdLogsFollow | Unset = UNSET,
) -> ErrorBody | str | None:
    """An instance's container output: its last lines, or followed (`follow=true`) while it runs

     RunPod: the pod's log stream; Vast.ai: the log it uploads on request (a moment's wait). Lambda has
    no log API: a job's instance there answers the tail the job reported, any other is 422. An ended
    instance answers what the provider still has, else the reported tail of the job it ran.

    Args:
        provider_instance_id (str):
        tail (int | None | Unset): the last this many lines (default 100, at most 5000; a plain
            answer is also cut to its last 256 KiB)
        follow (GetV1ComputeProviderInstanceIdLogsFollow | Unset): true: server-sent events, new
            lines while it runs, then an `end` event

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | str
    """

    return sync_detailed(
        provider_instance_id=provider_instance_id,
        client=client,
        tail=tail,
        follow=follow,
    ).parsed


async def asyncio_detailed(
    provider_instance_id: str,
    *,
    client: AuthenticatedClient,
    tail: int | None | Unset = UNSET,
    follow: GetV1ComputeProviderInstanceIdLogsFollow | Unset = UNSET,
) -> Response[ErrorBody | str]:
    """An instance's container output: its last lines, or followed (`follow=true`) while it runs

     RunPod: the pod's log stream; Vast.ai: the log it uploads on request (a moment's wait). Lambda has
    no log API: a job's instance there answers the tail the job reported, any other is 422. An ended
    instance answers what the provider still has, else the reported tail of the job it ran.

    Args:
        provider_instance_id (str):
        tail (int | None | Unset): the last this many lines (default 100, at most 5000; a plain
            answer is also cut to its last 256 KiB)
        follow (GetV1ComputeProviderInstanceIdLogsFollow | Unset): true: server-sent events, new
            lines while it runs, then an `end` event

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | str]
    """

    kwargs = _get_kwargs(
        provider_instance_id=provider_instance_id,
        tail=tail,
        follow=follow,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    provider_instance_id: str,
    *,
    client: AuthenticatedClient,
    tail: int | None | Unset = UNSET,
    follow: GetV1ComputeProviderInstanceIdLogsFollow | Unset = UNSET,
) -> ErrorBody | str | None:
    """An instance's container output: its last lines, or followed (`follow=true`) while it runs

     RunPod: the pod's log stream; Vast.ai: the log it uploads on request (a moment's wait). Lambda has
    no log API: a job's instance there answers the tail the job reported, any other is 422. An ended
    instance answers what the provider still has, else the reported tail of the job it ran.

    Args:
        provider_instance_id (str):
        tail (int | None | Unset): the last this many lines (default 100, at most 5000; a plain
            answer is also cut to its last 256 KiB)
        follow (GetV1ComputeProviderInstanceIdLogsFollow | Unset): true: server-sent events, new
            lines while it runs, then an `end` event

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | str
    """

    return (
        await asyncio_detailed(
            provider_instance_id=provider_instance_id,
            client=client,
            tail=tail,
            follow=follow,
        )
    ).parsed
