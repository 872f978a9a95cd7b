from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.post_v1_compute_plan_body_type_0 import PostV1ComputePlanBodyType0
from ...models.post_v1_compute_plan_body_type_1 import PostV1ComputePlanBodyType1
from ...models.post_v1_compute_plan_response_200_type_0 import (
    PostV1ComputePlanResponse200Type0,
)
from ...models.post_v1_compute_plan_response_200_type_1 import (
    PostV1ComputePlanResponse200Type1,
)
from ...types import Response


def _get_kwargs(
    *,
    body: PostV1ComputePlanBodyType0 | PostV1ComputePlanBodyType1,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/compute/plan",
    }

    if isinstance(body, PostV1ComputePlanBodyType0):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    ErrorBody
    | PostV1ComputePlanResponse200Type0
    | PostV1ComputePlanResponse200Type1
    | None
):
    if response.status_code == 200:

        def _parse_response_200(
            data: object,
        ) -> PostV1ComputePlanResponse200Type0 | PostV1ComputePlanResponse200Type1:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_200_type_0 = PostV1ComputePlanResponse200Type0.from_dict(data)

                return response_200_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            response_200_type_1 = PostV1ComputePlanResponse200Type1.from_dict(data)

            return response_200_type_1

        response_200 = _parse_response_200(response.json())

        return response_200

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
    ErrorBody | PostV1ComputePlanResponse200Type0 | PostV1ComputePlanResponse200Type1
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
    body: PostV1ComputePlanBodyType0 | PostV1ComputePlanBodyType1,
) -> Response[
    ErrorBody | PostV1ComputePlanResponse200Type0 | PostV1ComputePlanResponse200Type1
]:
    """Plan a launch: price, warnings and admission, creating nothing

     With `provider`: the launch body as POST /v1/compute/launch takes it; the answer says whether that
    launch would be admitted, and if not, the status, code and message it would answer with. Without
    `provider`: `candidates` across providers, ranked as scheduled runs rank offers (cheapest first;
    spot first when asked), admitted ones first, each with a ready `launch` body. When nothing fits, the
    answer is the refusal itself (422 no_capacity, 402 insufficient_balance, …).

    Args:
        body (PostV1ComputePlanBodyType0 | PostV1ComputePlanBodyType1): a launch body (with
            `provider`), or a search (without)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PostV1ComputePlanResponse200Type0 | PostV1ComputePlanResponse200Type1]
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
    body: PostV1ComputePlanBodyType0 | PostV1ComputePlanBodyType1,
) -> (
    ErrorBody
    | PostV1ComputePlanResponse200Type0
    | PostV1ComputePlanResponse200Type1
    | None
):
    """Plan a launch: price, warnings and admission, creating nothing

     With `provider`: the launch body as POST /v1/compute/launch takes it; the answer says whether that
    launch would be admitted, and if not, the status, code and message it would answer with. Without
    `provider`: `candidates` across providers, ranked as scheduled runs rank offers (cheapest first;
    spot first when asked), admitted ones first, each with a ready `launch` body. When nothing fits, the
    answer is the refusal itself (422 no_capacity, 402 insufficient_balance, …).

    Args:
        body (PostV1ComputePlanBodyType0 | PostV1ComputePlanBodyType1): a launch body (with
            `provider`), or a search (without)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PostV1ComputePlanResponse200Type0 | PostV1ComputePlanResponse200Type1
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: PostV1ComputePlanBodyType0 | PostV1ComputePlanBodyType1,
) -> Response[
    ErrorBody | PostV1ComputePlanResponse200Type0 | PostV1ComputePlanResponse200Type1
]:
    """Plan a launch: price, warnings and admission, creating nothing

     With `provider`: the launch body as POST /v1/compute/launch takes it; the answer says whether that
    launch would be admitted, and if not, the status, code and message it would answer with. Without
    `provider`: `candidates` across providers, ranked as scheduled runs rank offers (cheapest first;
    spot first when asked), admitted ones first, each with a ready `launch` body. When nothing fits, the
    answer is the refusal itself (422 no_capacity, 402 insufficient_balance, …).

    Args:
        body (PostV1ComputePlanBodyType0 | PostV1ComputePlanBodyType1): a launch body (with
            `provider`), or a search (without)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PostV1ComputePlanResponse200Type0 | PostV1ComputePlanResponse200Type1]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: PostV1ComputePlanBodyType0 | PostV1ComputePlanBodyType1,
) -> (
    ErrorBody
    | PostV1ComputePlanResponse200Type0
    | PostV1ComputePlanResponse200Type1
    | None
):
    """Plan a launch: price, warnings and admission, creating nothing

     With `provider`: the launch body as POST /v1/compute/launch takes it; the answer says whether that
    launch would be admitted, and if not, the status, code and message it would answer with. Without
    `provider`: `candidates` across providers, ranked as scheduled runs rank offers (cheapest first;
    spot first when asked), admitted ones first, each with a ready `launch` body. When nothing fits, the
    answer is the refusal itself (422 no_capacity, 402 insufficient_balance, …).

    Args:
        body (PostV1ComputePlanBodyType0 | PostV1ComputePlanBodyType1): a launch body (with
            `provider`), or a search (without)

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PostV1ComputePlanResponse200Type0 | PostV1ComputePlanResponse200Type1
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
