from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.post_v1_billing_stripe_webhook_response_200 import (
    PostV1BillingStripeWebhookResponse200,
)
from ...types import Response


def _get_kwargs(
    *,
    body: Any,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/billing/stripe/webhook",
    }

    _kwargs["json"] = body

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | PostV1BillingStripeWebhookResponse200 | None:
    if response.status_code == 200:
        response_200 = PostV1BillingStripeWebhookResponse200.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

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
) -> Response[ErrorBody | PostV1BillingStripeWebhookResponse200]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: Any,
) -> Response[ErrorBody | PostV1BillingStripeWebhookResponse200]:
    """Stripe webhook endpoint (called by Stripe, not by clients)

     No service key: the `Stripe-Signature` header is verified on the raw body with STRIPE_WEBHOOK_SECRET
    (400 when it is missing, wrong or older than 5 minutes; nothing changes).
    `checkout.session.completed` with `payment_status: paid` and
    `checkout.session.async_payment_succeeded` credit the pending top-up of that session once, only when
    Stripe's `amount_total` (USD) and `client_reference_id` match what was recorded. `charge.refunded`
    (full or partial) posts a negative `credit_refund`, `charge.dispute.created` a negative
    `credit_dispute` and `charge.dispute.closed` with `won` reinstates it, each once however often
    Stripe redelivers, with `billing.credit_reversed`; one that arrives before its top-up is credited is
    kept and applied when it credits. Every other event type is acknowledged and ignored.

    Args:
        body (Any): a Stripe Event object, verified byte for byte

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PostV1BillingStripeWebhookResponse200]
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
    body: Any,
) -> ErrorBody | PostV1BillingStripeWebhookResponse200 | None:
    """Stripe webhook endpoint (called by Stripe, not by clients)

     No service key: the `Stripe-Signature` header is verified on the raw body with STRIPE_WEBHOOK_SECRET
    (400 when it is missing, wrong or older than 5 minutes; nothing changes).
    `checkout.session.completed` with `payment_status: paid` and
    `checkout.session.async_payment_succeeded` credit the pending top-up of that session once, only when
    Stripe's `amount_total` (USD) and `client_reference_id` match what was recorded. `charge.refunded`
    (full or partial) posts a negative `credit_refund`, `charge.dispute.created` a negative
    `credit_dispute` and `charge.dispute.closed` with `won` reinstates it, each once however often
    Stripe redelivers, with `billing.credit_reversed`; one that arrives before its top-up is credited is
    kept and applied when it credits. Every other event type is acknowledged and ignored.

    Args:
        body (Any): a Stripe Event object, verified byte for byte

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PostV1BillingStripeWebhookResponse200
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: Any,
) -> Response[ErrorBody | PostV1BillingStripeWebhookResponse200]:
    """Stripe webhook endpoint (called by Stripe, not by clients)

     No service key: the `Stripe-Signature` header is verified on the raw body with STRIPE_WEBHOOK_SECRET
    (400 when it is missing, wrong or older than 5 minutes; nothing changes).
    `checkout.session.completed` with `payment_status: paid` and
    `checkout.session.async_payment_succeeded` credit the pending top-up of that session once, only when
    Stripe's `amount_total` (USD) and `client_reference_id` match what was recorded. `charge.refunded`
    (full or partial) posts a negative `credit_refund`, `charge.dispute.created` a negative
    `credit_dispute` and `charge.dispute.closed` with `won` reinstates it, each once however often
    Stripe redelivers, with `billing.credit_reversed`; one that arrives before its top-up is credited is
    kept and applied when it credits. Every other event type is acknowledged and ignored.

    Args:
        body (Any): a Stripe Event object, verified byte for byte

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PostV1BillingStripeWebhookResponse200]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: Any,
) -> ErrorBody | PostV1BillingStripeWebhookResponse200 | None:
    """Stripe webhook endpoint (called by Stripe, not by clients)

     No service key: the `Stripe-Signature` header is verified on the raw body with STRIPE_WEBHOOK_SECRET
    (400 when it is missing, wrong or older than 5 minutes; nothing changes).
    `checkout.session.completed` with `payment_status: paid` and
    `checkout.session.async_payment_succeeded` credit the pending top-up of that session once, only when
    Stripe's `amount_total` (USD) and `client_reference_id` match what was recorded. `charge.refunded`
    (full or partial) posts a negative `credit_refund`, `charge.dispute.created` a negative
    `credit_dispute` and `charge.dispute.closed` with `won` reinstates it, each once however often
    Stripe redelivers, with `billing.credit_reversed`; one that arrives before its top-up is credited is
    kept and applied when it credits. Every other event type is acknowledged and ignored.

    Args:
        body (Any): a Stripe Event object, verified byte for byte

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PostV1BillingStripeWebhookResponse200
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
