"""The client against the local stack: prices, launches and terminations on each provider, the balance, paging,
and the typed errors a refused request raises."""

from __future__ import annotations

import asyncio

import pytest
from conftest import Stack, eventually

import gpuo
from gpuo.openapi.api.api_keys import post_v1_api_keys
from gpuo.openapi.models import PostV1ApiKeysBody, PostV1ApiKeysResponse201

PROVIDERS = ("runpod", "vastai", "lambda")
GPU = "rtx-a6000"


def on_demand_offer(client: gpuo.Client, provider: str) -> dict[str, object]:
    """Where ``provider`` offers the GPU on demand: the launch fields that pick it (Lambda needs the region)."""
    compared = client.pricing.compare(GPU)
    offer = next(
        o
        for o in compared.offers
        if o.provider == provider and not o.spot and o.availability > 0
    )
    return {"region": offer.region} if provider == "lambda" else {}


def test_lists_the_prices_of_every_provider(client: gpuo.Client) -> None:
    prices = client.pricing.list()
    gpu = next(g for g in prices.gpu_types if g.gpu_type == GPU)
    assert {o.provider for o in gpu.offers} == set(PROVIDERS)
    assert all(o.price_per_hour > 0 for o in gpu.offers)
    compared = client.pricing.compare(GPU)
    assert compared.cheapest is not None
    assert compared.cheapest.price_per_hour == min(
        o.price_per_hour for o in compared.offers if o.availability > 0
    )


@pytest.mark.parametrize("provider", PROVIDERS)
def test_launches_and_terminates_on_each_provider(
    client: gpuo.Client, provider: str
) -> None:
    instance = client.compute.launch(
        provider=provider, gpu_type=GPU, **on_demand_offer(client, provider)
    )
    assert (instance.provider, instance.gpu_type) == (provider, GPU)
    # The answer carries the provider's state at the launch: a simulator boots in 300 ms, so on a busy machine the
    # instance can already be running when the answer is written.
    assert instance.status in ("provisioning", "running")
    assert instance.price_per_hour is not None and instance.price_per_hour > 0

    def running() -> bool:
        """the instance is listed running"""
        listed = {i.id: i.status for i in client.compute.list().data}
        return listed.get(instance.id) == "running"

    eventually(running)
    ended = client.compute.terminate(instance.id)
    assert ended.id == instance.id
    assert ended.status in ("terminating", "terminated")

    def terminated() -> bool:
        """the instance is listed terminated, or no longer listed"""
        listed = {i.id: i.status for i in client.compute.list().data}
        return listed.get(instance.id, "terminated") == "terminated"

    eventually(terminated)


def test_a_launch_repeated_with_its_idempotency_key_makes_one_instance(
    client: gpuo.Client,
) -> None:
    first = client.compute.launch(
        provider="runpod", gpu_type=GPU, idempotency_key="retry-me"
    )
    again = client.compute.launch(
        provider="runpod", gpu_type=GPU, idempotency_key="retry-me"
    )
    other = client.compute.launch(provider="runpod", gpu_type=GPU)
    try:
        assert again.id == first.id
        assert other.id != first.id
        with pytest.raises(gpuo.Conflict) as refused:
            client.compute.launch(
                provider="runpod", gpu_type=GPU, idempotency_key="retry-me", gpu_count=2
            )
        assert refused.value.status == 409
    finally:
        for instance_id in (first.id, other.id):
            client.compute.terminate(instance_id)


def test_reads_the_balance_and_pages_through_every_transaction(
    client: gpuo.Client,
) -> None:
    # A terminated instance leaves a charge beside the starting credit: at least two entries.
    instance = client.compute.launch(provider="vastai", gpu_type=GPU)
    eventually(
        lambda: (
            {i.id: i.status for i in client.compute.list().data}.get(instance.id)
            == "running"
        )
    )
    client.compute.terminate(instance.id)

    def charged() -> bool:
        """the instance's charge is in the transactions"""
        return any(
            t.instance_id == instance.id
            for t in client.billing.transactions(type="instance_charge")
        )

    eventually(charged)

    def agree() -> tuple[list[str], float] | None:
        """the listing in one page, the listing one entry a page and the balance agree"""
        one_page = list(client.billing.transactions(page_size=200))
        one_by_one = list(client.billing.transactions(page_size=1))
        balance = client.billing.balance().balance
        # Newest first: the newest entry's balance_after is the balance, and the entries add up to it.
        if [t.id for t in one_by_one] != [
            t.id for t in one_page
        ] or balance != pytest.approx(one_page[0].balance_after):
            return None
        assert balance == pytest.approx(sum(t.amount for t in one_page))
        return [t.type_ for t in one_page], balance

    types, balance = eventually(agree)
    assert (
        len(types) >= 2 and types[-1] == "credit_grant" and "instance_charge" in types
    )
    assert 0 < balance < 1000


def test_a_launch_beyond_the_keys_spend_cap_raises_payment_required(
    client: gpuo.Client, stack: Stack
) -> None:
    # Any operation is one call away on the generated client: here, a key capped at one cent a day.
    capped = post_v1_api_keys.sync(
        client=client.api,
        body=PostV1ApiKeysBody.from_dict(
            {
                "name": "capped",
                "scopes": ["read", "compute:write"],
                "spend_limit": {"amount": 0.01, "period": "day"},
            }
        ),
    )
    assert isinstance(capped, PostV1ApiKeysResponse201)
    agent = gpuo.Client(api_key=capped.api_key, base_url=stack.base_url)
    with agent, pytest.raises(gpuo.PaymentRequired) as refused:
        agent.compute.launch(provider="runpod", gpu_type=GPU)
    error = refused.value
    assert (error.status, error.code) == (402, "insufficient_balance")
    assert "$0.01" in error.message
    assert error.request_id is not None and error.request_id.startswith("req_")


def test_a_launch_the_provider_cannot_serve_raises_a_validation_error(
    client: gpuo.Client,
) -> None:
    # RunPod's API offers no spot: 422, before any provider call.
    with pytest.raises(gpuo.ValidationError) as refused:
        client.compute.launch(provider="runpod", gpu_type=GPU, spot=True)
    assert (refused.value.status, refused.value.code) == (422, "unsupported_operation")
    assert "spot" in refused.value.message


def test_an_invalid_body_raises_a_validation_error_naming_the_field(
    client: gpuo.Client,
) -> None:
    with pytest.raises(gpuo.ValidationError) as refused:
        client.compute.launch(provider="runpod", gpu_type=GPU, gpu_count=0)
    assert (refused.value.status, refused.value.code) == (400, "validation_error")
    assert [d["path"] for d in refused.value.details] == ["gpu_count"]


def test_an_unknown_instance_raises_not_found(client: gpuo.Client) -> None:
    with pytest.raises(gpuo.NotFound) as refused:
        client.compute.terminate("no-such-instance")
    assert refused.value.status == 404


def test_the_key_and_url_come_from_the_environment(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPUO_API_KEY", stack.api_key)
    monkeypatch.setenv("GPUO_BASE_URL", stack.base_url)
    with gpuo.Client() as client:
        assert client.billing.balance().currency == "usd"
    monkeypatch.setenv("GPUO_API_KEY", "gpuo_sk_revoked0000000000000000000000000")
    with gpuo.Client() as client, pytest.raises(gpuo.AuthenticationError):
        client.billing.balance()
    monkeypatch.delenv("GPUO_API_KEY")
    with pytest.raises(ValueError, match="GPUO_API_KEY"):
        gpuo.Client()


def test_the_async_client_reads_what_the_sync_one_does(
    client: gpuo.Client, stack: Stack
) -> None:
    async def read() -> tuple[float, list[str]]:
        async with gpuo.AsyncClient(
            api_key=stack.api_key, base_url=stack.base_url
        ) as aclient:
            balance = await aclient.billing.balance()
            return balance.balance, [
                t.id async for t in aclient.billing.transactions(page_size=1)
            ]

    def agree() -> bool:
        """the async client's balance and transactions are the sync client's"""
        balance, ids = asyncio.run(read())
        return balance == client.billing.balance().balance and ids == [
            t.id for t in client.billing.transactions()
        ]

    eventually(agree)
