import { silentLogger } from '../../src/logger';
import { allGpuSlugs, slugFromVast } from '../../src/providers/gpu-catalog';
import type { LaunchSpec, ProviderAdapter } from '../../src/providers/types';
import { createVastaiAdapter } from '../../src/providers/vastai';
import { startSimulators, type Simulators } from '../../simulators';
import { capturingLogger, heldClock, secretTracker, pollUntil, SSH_KEY_A, SSH_KEY_B } from './support';

let sims: Simulators;
let adapter: ProviderAdapter;
const { logLines, keysUsed, errorMessages, key, failing } = secretTracker('vastai', () => sims.vastai.createKey());

const spec = (name: string, extra: Partial<LaunchSpec> = {}): LaunchSpec => ({
  gpuType: 'rtx-4090',
  gpuCount: 1,
  name,
  spot: false,
  ...extra,
});

interface RawOffer {
  id: number;
  gpu_name: string;
  gpu_ram: number;
  num_gpus: number;
  dph_total: number;
  min_bid: number;
}

async function rawOffers(): Promise<RawOffer[]> {
  const res = await fetch(`${sims.vastai.baseUrl}/api/v0/bundles/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ rentable: { eq: true }, limit: 10_000 }),
  });
  return ((await res.json()) as { offers: RawOffer[] }).offers;
}

beforeAll(async () => {
  sims = await startSimulators({ bootDelayMs: 150 });
  adapter = createVastaiAdapter({ baseUrl: sims.vastai.baseUrl, timeoutMs: 3_000, logger: capturingLogger(logLines) });
});

afterAll(async () => {
  await sims.close();
});

afterEach(() => {
  sims.vastai.control.reset();
});

describe('vastai adapter against the simulator', () => {
  test('keys look like Vast keys', () => {
    expect(key()).toMatch(/^[0-9a-f]{64}$/);
  });

  test('listOffers: per-GPU prices, on-demand and spot as separate offers, unmapped GPUs dropped', async () => {
    const offers = await adapter.listOffers();
    const raw = await rawOffers();
    expect(offers.every((o) => allGpuSlugs().includes(o.gpuType))).toBe(true);

    // Expected cheapest per-GPU prices and unit counts, derived from the raw marketplace.
    const expected = new Map<string, { onDemand: number; spot: number; units: number }>();
    for (const o of raw) {
      const slug = slugFromVast(o.gpu_name, o.gpu_ram);
      if (!slug) continue;
      const cur = expected.get(slug) ?? { onDemand: Infinity, spot: Infinity, units: 0 };
      cur.onDemand = Math.min(cur.onDemand, o.dph_total / o.num_gpus);
      cur.spot = Math.min(cur.spot, o.min_bid / o.num_gpus);
      cur.units += o.num_gpus;
      expected.set(slug, cur);
    }
    expect(offers).toHaveLength(expected.size * 2);
    for (const [slug, e] of expected) {
      const onDemand = offers.find((o) => o.gpuType === slug && !o.spot)!;
      const spot = offers.find((o) => o.gpuType === slug && o.spot)!;
      expect(onDemand.pricePerHour).toBeCloseTo(e.onDemand, 5);
      expect(spot.pricePerHour).toBeCloseTo(e.spot, 5);
      expect(spot.pricePerHour).toBeLessThan(onDemand.pricePerHour);
      expect(onDemand.availability).toBe(e.units);
    }
    // Same name, two memory sizes: both A100 slugs appear; names without a slug do not.
    expect(offers.some((o) => o.gpuType === 'a100-40gb')).toBe(true);
    expect(offers.some((o) => o.gpuType === 'a100-80gb-sxm')).toBe(true);
    expect(raw.some((o) => o.gpu_name === 'Tesla V100')).toBe(true);
    const h100 = offers.find((o) => o.gpuType === 'h100-80gb-sxm' && !o.spot)!;
    expect(h100.pricePerHour).toBeGreaterThan(1.5);
    expect(h100.pricePerHour).toBeLessThan(2.5);
  });

  test('listOffers drops a GPU whose offers are gone', async () => {
    sims.vastai.control.setNoCapacity('rtx-4090');
    const offers = await adapter.listOffers(key());
    expect(offers.some((o) => o.gpuType === 'rtx-4090')).toBe(false);
    expect(offers.some((o) => o.gpuType === 'rtx-3090')).toBe(true);
  });

  test('verifyKey: valid and invalid keys', async () => {
    expect(await adapter.verifyKey(key())).toEqual({ valid: true, message: expect.stringContaining('@example.com') });
    const bad = 'f'.repeat(64);
    const check = await adapter.verifyKey(bad);
    expect(check.valid).toBe(false);
    expect(check.message).not.toContain(bad);
  });

  test('launch on-demand → running, SSH key attached, then list, get, find and terminate', async () => {
    const k = key();
    sims.vastai.control.clearRequests();
    // Answered with the instance as it is at once, booting (the simulator's clock held still for it).
    const launched = await heldClock(() =>
      adapter.launch(k, spec('job-1', { sshPublicKey: SSH_KEY_A, onstartCmd: 'echo hi', diskGb: 32 })),
    );
    expect(launched).toMatchObject({
      provider: 'vastai',
      name: 'job-1',
      gpuType: 'rtx-4090',
      gpuCount: 1,
      spot: false,
      status: 'provisioning',
    });
    expect(launched.id).toMatch(/^\d+$/);

    const search = sims.vastai.control.requests({ method: 'POST', path: '/api/v0/bundles' })[0]!;
    expect(search.body).toMatchObject({
      gpu_name: { in: ['RTX 4090'] },
      num_gpus: { eq: 1 },
      type: 'ondemand',
      rentable: { eq: true },
    });
    const create = sims.vastai.control.requests({ method: 'PUT', path: /^\/api\/v0\/asks\/\d+\/?$/ })[0]!;
    expect(create.body).toMatchObject({ label: 'job-1', onstart: 'echo hi', disk: 32, image: expect.any(String) });
    expect(create.body).not.toHaveProperty('price');

    const running = await pollUntil(
      () => adapter.getInstance(k, launched.id),
      (i) => i?.status === 'running',
    );
    expect(running).toMatchObject({
      providerStatus: 'running',
      ssh: { host: expect.stringMatching(/vast\.ai$/), port: expect.any(Number), user: 'root' },
    });

    const [simInst] = sims.vastai.control.instances(k);
    expect(simInst!.sshKeys).toEqual([SSH_KEY_A]);

    expect((await adapter.listInstances(k)).map((i) => i.id)).toEqual([launched.id]);
    expect((await adapter.findInstanceByName(k, 'job-1'))?.id).toBe(launched.id);
    expect(await adapter.findInstanceByName(k, 'job-2')).toBeNull();

    await adapter.terminate(k, launched.id);
    expect(await adapter.getInstance(k, launched.id)).toBeNull();
    expect(sims.vastai.control.instances(k)).toHaveLength(0);
    await expect(adapter.terminate(k, launched.id)).resolves.toBeUndefined();
  });

  test('status goes null → loading → running', async () => {
    const k = key();
    sims.vastai.control.setBootDelay(300);
    // The simulator's clock held still and moved by hand: each look sees the phase of its moment however long
    // the look takes (on a loaded machine the first look came after the 100 ms of null).
    let nowMs = Date.now();
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => nowMs);
    try {
      const launched = await adapter.launch(k, spec('progress'));
      const createdAt = nowMs;
      const seen: (string | null)[] = [];
      // A third of the boot shows null, then loading, then running from 300 ms on.
      for (const afterMs of [0, 150, 300]) {
        nowMs = createdAt + afterMs;
        seen.push((await adapter.getInstance(k, launched.id))!.providerStatus);
      }
      expect(seen).toEqual([null, 'loading', 'running']);
    } finally {
      clock.mockRestore();
    }
  });

  test('spot launch bids the offer’s min_bid and is reported as spot', async () => {
    const k = key();
    sims.vastai.control.clearRequests();
    const launched = await adapter.launch(k, spec('spot-1', { gpuType: 'a100-40gb', spot: true }));
    expect(launched).toMatchObject({ spot: true, gpuType: 'a100-40gb' });
    const search = sims.vastai.control.requests({ method: 'POST', path: '/api/v0/bundles' })[0]!;
    expect(search.body).toMatchObject({ type: 'bid', gpu_ram: { lte: 59_999 } });
    const create = sims.vastai.control.requests({ method: 'PUT', path: /^\/api\/v0\/asks\// })[0]!;
    const askId = Number(/asks\/(\d+)/.exec(create.path)![1]);
    const offer = (await rawOffers()).find((o) => o.id === askId)!;
    expect((create.body as { price: number }).price).toBeGreaterThanOrEqual(offer.min_bid);
    expect(launched.pricePerHour).toBeCloseTo((create.body as { price: number }).price, 6);
  });

  test('preemption: a spot instance stopped or removed without a request', async () => {
    const k = key();
    const a = await adapter.launch(k, spec('pre-1', { spot: true }));
    const b = await adapter.launch(k, spec('pre-2', { spot: true }));
    sims.vastai.control.preempt(k, a.id, 'stopped');
    sims.vastai.control.preempt(k, b.id, 'remove');
    expect((await adapter.getInstance(k, a.id))?.status).toBe('stopped');
    expect(await adapter.getInstance(k, b.id)).toBeNull();
  });

  test('stop is unsupported', async () => {
    const k = key();
    const inst = await adapter.launch(k, spec('nostop'));
    const err = await failing(adapter.stop(k, inst.id), 'provider_error');
    expect(err.message).toMatch(/not supported/);
  });

  test('getInstance of unknown or malformed ids is null', async () => {
    const k = key();
    expect(await adapter.getInstance(k, '999999999')).toBeNull();
    expect(await adapter.getInstance(k, 'abc')).toBeNull();
  });

  test('listInstances follows next_token across pages', async () => {
    const k = key();
    const offer = (await rawOffers()).find((o) => o.gpu_name === 'RTX 3090')!;
    for (let n = 0; n < 27; n++) {
      const res = await fetch(`${sims.vastai.baseUrl}/api/v0/asks/${offer.id}/`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: 'me', image: 'img', label: `bulk-${n}` }),
      });
      expect(res.status).toBe(200);
    }
    sims.vastai.control.clearRequests();
    const all = await adapter.listInstances(k);
    expect(all).toHaveLength(27);
    expect(new Set(all.map((i) => i.id)).size).toBe(27);
    expect(sims.vastai.control.requests({ method: 'GET', path: '/api/v1/instances' })).toHaveLength(2);
  });

  test('ensureSshKey registers a key once; new instances get account keys', async () => {
    const k = key();
    await expect(adapter.ensureSshKey(k, { name: 'laptop', publicKey: SSH_KEY_B })).resolves.toEqual({
      name: 'laptop',
    });
    await adapter.ensureSshKey(k, {
      name: 'laptop',
      publicKey: `${SSH_KEY_B.split(' ').slice(0, 2).join(' ')} other-comment`,
    });
    expect(sims.vastai.control.sshKeys(k)).toEqual([SSH_KEY_B]);
    const inst = await adapter.launch(k, spec('with-account-key'));
    expect(sims.vastai.control.instances(k).find((i) => i.id === inst.id)!.sshKeys).toEqual([SSH_KEY_B]);
  });

  describe('error mapping', () => {
    test('401 → invalid_key', async () => {
      await failing(adapter.listInstances('0'.repeat(64)), 'invalid_key');
    });

    test('no offers for the GPU → no_capacity without a create', async () => {
      const k = key();
      sims.vastai.control.setNoCapacity('h100-80gb-sxm');
      sims.vastai.control.clearRequests();
      const err = await failing(adapter.launch(k, spec('cap', { gpuType: 'h100-80gb-sxm' })), 'no_capacity');
      expect(err.message).toMatch(/no offers/);
      expect(sims.vastai.control.requests({ method: 'PUT' })).toHaveLength(0);
    });

    test('offers listed but gone at create (404 no_such_ask) → no_capacity, nothing created', async () => {
      const k = key();
      sims.vastai.control.setNoCapacity('l40s-48gb', true, { mode: 'unavailable' });
      sims.vastai.control.clearRequests();
      const err = await failing(adapter.launch(k, spec('gone', { gpuType: 'l40s-48gb' })), 'no_capacity');
      expect(err.providerStatus).toBe(404);
      expect(err.message).toMatch(/no_such_ask/);
      const puts = sims.vastai.control.requests({ method: 'PUT' });
      expect(puts.length).toBeGreaterThanOrEqual(1);
      expect(puts.length).toBeLessThanOrEqual(3);
      expect(sims.vastai.control.instances(k)).toHaveLength(0);
    });

    test('429 (no Retry-After) → rate_limited with the default delay', async () => {
      sims.vastai.control.rateLimit(1);
      const err = await failing(adapter.listInstances(key()), 'rate_limited');
      expect(err.retryAfterMs).toBe(1_000);
    });

    test('5xx → transient', async () => {
      sims.vastai.control.serverErrors(1, { status: 502 });
      await failing(adapter.verifyKey(key()), 'transient');
    });

    test('a slow answer beyond the adapter timeout → transient', async () => {
      const quick = createVastaiAdapter({ baseUrl: sims.vastai.baseUrl, timeoutMs: 100, logger: silentLogger });
      sims.vastai.control.setLatency(400);
      await failing(quick.listOffers(), 'transient');
    });

    test('other 4xx (400 invalid_args) → provider_error', async () => {
      const err = await failing(adapter.launch(key(), spec('bad-disk', { diskGb: 0 })), 'provider_error');
      expect(err.providerStatus).toBe(400);
    });
  });

  test('per-key isolation: key B neither sees nor terminates key A’s instance', async () => {
    const a = key();
    const b = key();
    const inst = await adapter.launch(a, spec('iso-a'));
    expect(await adapter.listInstances(b)).toEqual([]);
    expect(await adapter.getInstance(b, inst.id)).toBeNull();
    expect(await adapter.findInstanceByName(b, 'iso-a')).toBeNull();
    await adapter.terminate(b, inst.id);
    expect((await adapter.getInstance(a, inst.id))?.id).toBe(inst.id);
  });

  test('a create whose answer is lost is found by name, so a retry creates nothing new', async () => {
    const k = key();
    sims.vastai.control.serverErrors(1, { match: { method: 'PUT', path: /^\/api\/v0\/asks\// }, afterHandling: true });
    await failing(adapter.launch(k, spec('retry-me')), 'transient');
    expect((await adapter.findInstanceByName(k, 'retry-me'))?.name).toBe('retry-me');
    expect(sims.vastai.control.instances(k)).toHaveLength(1);
  });

  test('no error message or log line contains a key', () => {
    expect(errorMessages.length).toBeGreaterThan(5);
    for (const k of keysUsed) {
      for (const m of errorMessages) expect(m).not.toContain(k);
      for (const line of logLines) expect(line).not.toContain(k);
    }
  });
});
