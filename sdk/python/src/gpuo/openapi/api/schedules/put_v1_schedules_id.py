from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.put_v1_schedules_id_body import PutV1SchedulesIdBody
from ...models.put_v1_schedules_id_response_200 import PutV1SchedulesIdResponse200
from ...types import Response


def _get_kwargs(
    id: str,
    *,
    body: PutV1SchedulesIdBody,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v1/schedules/{id}".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | PutV1SchedulesIdResponse200 | None:
    if response.status_code == 200:
        response_200 = PutV1SchedulesIdResponse200.from_dict(response.json())

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
) -> Response[ErrorBody | PutV1SchedulesIdResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    body: PutV1SchedulesIdBody,
) -> Response[ErrorBody | PutV1SchedulesIdResponse200]:
    """Change any create field, or status (active | paused)

     Applied to the row and the Temporal Schedule together: when the engine refuses or cannot be reached,
    neither changes (503). Changes to gpu, limits, image or script apply from the next run; `paused`
    stops firings until `active` again.

    Args:
        id (str):
        body (PutV1SchedulesIdBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PutV1SchedulesIdResponse200]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient,
    body: PutV1SchedulesIdBody,
) -> ErrorBody | PutV1SchedulesIdResponse200 | None:
    """Change any create field, or status (active | paused)

     Applied to the row and the Temporal Schedule together: when the engine refuses or cannot be reached,
    neither changes (503). Changes to gpu, limits, image or script apply from the next run; `paused`
    stops firings until `active` again.

    Args:
        id (str):
        body (PutV1SchedulesIdBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PutV1SchedulesIdResponse200
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    body: PutV1SchedulesIdBody,
) -> Response[ErrorBody | PutV1SchedulesIdResponse200]:
    """Change any create field, or status (active | paused)

     Applied to the row and the Temporal Schedule together: when the engine refuses or cannot be reached,
    neither changes (503). Changes to gpu, limits, image or script apply from the next run; `paused`
    stops firings until `active` again.

    Args:
        id (str):
        body (PutV1SchedulesIdBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PutV1SchedulesIdResponse200]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    body: PutV1SchedulesIdBody,
) -> ErrorBody | PutV1SchedulesIdResponse200 | None:
    """Change any create field, or status (active | paused)

     Applied to the row and the Temporal Schedule together: when the engine refuses or cannot be reached,
    neither changes (503). Changes to gpu, limits, image or script apply from the next run; `paused`
    stops firings until `active` again.

    Args:
        id (str):
        body (PutV1SchedulesIdBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PutV1SchedulesIdResponse200
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed
