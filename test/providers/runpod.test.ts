import { silentLogger } from '../../src/logger';
import { allGpuSlugs } from '../../src/providers/gpu-catalog';
import { createRunpodAdapter } from '../../src/providers/runpod';
import type { ProviderAdapter, ProviderInstance } from '../../src/providers/types';
import { startSimulators, type Simulators } from '../../simulators';
import { capturingLogger, heldClock, secretTracker, pollUntil, SSH_KEY_A } from './support';

let sims: Simulators;
let adapter: ProviderAdapter;
const { logLines, keysUsed, errorMessages, key, failing } = secretTracker('runpod', () => sims.runpod.createKey());

const spec = (name: string, extra: Partial<Parameters<ProviderAdapter['launch']>[1]> = {}) => ({
  gpuType: 'rtx-4090',
  gpuCount: 1,
  name,
  spot: false,
  ...extra,
});

beforeAll(async () => {
  sims = await startSimulators({ bootDelayMs: 150 });
  adapter = createRunpodAdapter({ baseUrl: sims.runpod.baseUrl, timeoutMs: 3_000, logger: capturingLogger(logLines) });
});

afterAll(async () => {
  await sims.close();
});

afterEach(() => {
  sims.runpod.control.reset();
});

describe('runpod adapter against the simulator', () => {
  test('base URL is the v2 API root', () => {
    expect(sims.runpod.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2$/);
    expect(key()).toMatch(/^rpa_[A-Z0-9]{40}$/);
  });

  test('listOffers: known slugs only, secure per-GPU prices, no spot offers', async () => {
    const offers = await adapter.listOffers(key());
    const slugs = offers.map((o) => o.gpuType);
    expect(new Set(slugs).size).toBe(slugs.length);
    expect(slugs.every((s) => allGpuSlugs().includes(s))).toBe(true);
    // Two catalog GPUs (RTX A5000, MI300X) have no slug and are dropped.
    expect(offers).toHaveLength(16);
    expect(offers.find((o) => o.gpuType === 'h100-80gb-sxm')).toEqual({
      provider: 'runpod',
      gpuType: 'h100-80gb-sxm',
      pricePerHour: 2.99,
      availability: 8,
      spot: false,
    });
    expect(offers.find((o) => o.gpuType === 'b200')?.availability).toBe(1);
    expect(offers.some((o) => o.spot)).toBe(false);
    const req = sims.runpod.control.requests({ method: 'GET', path: '/v2/catalog/gpus' }).at(-1)!;
    expect(req.query).toMatchObject({ include: 'AVAILABILITY', product: 'POD' });
  });

  test('listOffers reports a GPU without capacity with availability 0', async () => {
    sims.runpod.control.setNoCapacity('rtx-4090');
    const offers = await adapter.listOffers(key());
    expect(offers.find((o) => o.gpuType === 'rtx-4090')?.availability).toBe(0);
    expect(offers.find((o) => o.gpuType === 'rtx-3090')?.availability).toBeGreaterThan(0);
  });

  test('verifyKey: valid and invalid keys', async () => {
    await expect(adapter.verifyKey(key())).resolves.toEqual({ valid: true, message: expect.any(String) });
    const bad = 'rpa_NOTAREALKEY0000000000000000000000000000';
    const check = await adapter.verifyKey(bad);
    expect(check.valid).toBe(false);
    expect(check.message).not.toContain(bad);
  });

  test('launch → running, with the SSH key in PUBLIC_KEY, then list, get, stop and terminate', async () => {
    const k = key();
    // Answered with the pod as it is at once, booting (the simulator's clock held still for it).
    const launched = await heldClock(() =>
      adapter.launch(k, spec('train-1', { sshPublicKey: SSH_KEY_A, diskGb: 40, volumeGb: 20 })),
    );
    expect(launched).toMatchObject({
      provider: 'runpod',
      name: 'train-1',
      gpuType: 'rtx-4090',
      gpuCount: 1,
      status: 'provisioning',
      spot: false,
    });
    expect(launched.pricePerHour).toBeCloseTo(0.69, 6);

    const sent = sims.runpod.control.requests({ method: 'POST', path: '/v2/pods' }).at(-1)!;
    expect(sent.body).toMatchObject({
      name: 'train-1',
      gpu: { id: 'NVIDIA GeForce RTX 4090', count: 1 },
      env: { PUBLIC_KEY: SSH_KEY_A },
      disk: 40,
      mounts: { persistent: { size: 20, path: '/workspace' } },
    });
    expect(sent.body).not.toHaveProperty('interruptible');

    const running = await pollUntil(
      () => adapter.getInstance(k, launched.id),
      (i) => i?.status === 'running',
    );
    expect(running!.ssh).toEqual({ host: expect.any(String), port: expect.any(Number), user: 'root' });
    expect(running!.publicIp).toBe(running!.ssh!.host);
    expect(running!.providerStatus).toBe('RUNNING');

    const [simPod] = sims.runpod.control.instances(k);
    expect(simPod!.sshKeys).toEqual([SSH_KEY_A]);

    expect((await adapter.listInstances(k)).map((i) => i.id)).toEqual([launched.id]);
    expect((await adapter.findInstanceByName(k, 'train-1'))?.id).toBe(launched.id);
    expect(await adapter.findInstanceByName(k, 'train-2')).toBeNull();

    const stopped = await adapter.stop(k, launched.id);
    expect(stopped.status).toBe('stopped');
    expect(stopped.providerStatus).toBe('EXITED');
    // Stopping a stopped pod answers with the pod instead of an error.
    expect((await adapter.stop(k, launched.id)).status).toBe('stopped');

    await adapter.terminate(k, launched.id);
    expect(await adapter.getInstance(k, launched.id)).toBeNull();
    expect(sims.runpod.control.instances(k)).toHaveLength(0);
    await expect(adapter.terminate(k, launched.id)).resolves.toBeUndefined();
  });

  test('getInstance of an unknown id is null; stop of an unknown id is not_found', async () => {
    const k = key();
    expect(await adapter.getInstance(k, 'doesnotexist01')).toBeNull();
    await failing(adapter.stop(k, 'doesnotexist01'), 'not_found');
  });

  test('a spot launch is refused without calling RunPod (v2 has no spot field)', async () => {
    const k = key();
    sims.runpod.control.clearRequests();
    const err = await failing(adapter.launch(k, spec('spot-1', { spot: true })), 'provider_error');
    expect(err.message).toMatch(/spot/i);
    expect(sims.runpod.control.requests({ method: 'POST' })).toHaveLength(0);
    expect(sims.runpod.control.instances(k)).toHaveLength(0);
  });

  test('simulator spot switch: refused with the observed 500, or accepted as a legacy interruptible pod', async () => {
    const k = key();
    const create = () =>
      fetch(`${sims.runpod.baseUrl}/pods`, {
        method: 'POST',
        headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'legacy-spot',
          image: 'img',
          gpu: { id: 'NVIDIA GeForce RTX 3090', count: 1 },
          interruptible: true,
        }),
      });
    const refused = await create();
    expect(refused.status).toBe(500);
    expect(await refused.json()).toMatchObject({
      status: 500,
      detail: expect.stringContaining('Spot pods are no longer offered'),
    });

    sims.runpod.control.setSpotMode('accept');
    const accepted = await create();
    expect(accepted.status).toBe(201);
    const pod = (await accepted.json()) as { id: string };
    const seen = await adapter.getInstance(k, pod.id);
    expect(seen).toMatchObject({ spot: true, gpuType: 'rtx-3090' });

    sims.runpod.control.preempt(k, pod.id);
    expect((await adapter.getInstance(k, pod.id))?.status).toBe('stopped');
  });

  describe('error mapping', () => {
    test('401 → invalid_key', async () => {
      await failing(adapter.listInstances('rpa_WRONGWRONGWRONGWRONGWRONGWRONGWRONGWRONG'), 'invalid_key');
    });

    test('capacity 400 (v2 detail) → no_capacity', async () => {
      const k = key();
      sims.runpod.control.setNoCapacity('h100-80gb-sxm');
      const err = await failing(adapter.launch(k, spec('cap-1', { gpuType: 'h100-80gb-sxm' })), 'no_capacity');
      expect(err.providerStatus).toBe(400);
      expect(err.message).toMatch(/no instances currently available/i);
      expect(sims.runpod.control.instances(k)).toHaveLength(0);
    });

    test('capacity 500 (older wording) → no_capacity', async () => {
      sims.runpod.control.setNoCapacity('a100-80gb-sxm', true, { status: 500 });
      const err = await failing(adapter.launch(key(), spec('cap-2', { gpuType: 'a100-80gb-sxm' })), 'no_capacity');
      expect(err.providerStatus).toBe(500);
    });

    test('429 → rate_limited with retryAfterMs from Retry-After', async () => {
      sims.runpod.control.rateLimit(2, { retryAfterSeconds: 7 });
      const k = key();
      const err = await failing(adapter.listInstances(k), 'rate_limited');
      expect(err.retryAfterMs).toBe(7_000);
      expect(err.retryable).toBe(true);
      await failing(adapter.listInstances(k), 'rate_limited');
      await expect(adapter.listInstances(k)).resolves.toEqual([]);
    });

    test('429 without Retry-After → rate_limited with the default delay', async () => {
      sims.runpod.control.rateLimit(1, { retryAfterSeconds: null });
      const err = await failing(adapter.listInstances(key()), 'rate_limited');
      expect(err.retryAfterMs).toBe(1_000);
    });

    test('5xx → transient', async () => {
      sims.runpod.control.serverErrors(1, { status: 503 });
      const err = await failing(adapter.listOffers(key()), 'transient');
      expect(err.providerStatus).toBe(503);
    });

    test('a slow answer beyond the adapter timeout → transient', async () => {
      const quick = createRunpodAdapter({ baseUrl: sims.runpod.baseUrl, timeoutMs: 100, logger: silentLogger });
      sims.runpod.control.setLatency(400);
      const err = await failing(quick.listInstances(key()), 'transient');
      expect(err.message).toMatch(/100 ms/);
    });

    test('an unreachable endpoint → transient', async () => {
      const nowhere = createRunpodAdapter({ baseUrl: 'http://127.0.0.1:9/v2', timeoutMs: 1_000, logger: silentLogger });
      await failing(nowhere.listInstances(key()), 'transient');
    });

    test('other 4xx (400 unknown data center) → provider_error', async () => {
      const err = await failing(adapter.launch(key(), spec('nowhere', { region: 'XX-NOPE-1' })), 'provider_error');
      expect(err.providerStatus).toBe(400);
      expect(err.message).toMatch(/unknown data center/);
    });

    test('a volume below the document’s 10 GB floor is refused before any call', async () => {
      sims.runpod.control.clearRequests();
      await failing(adapter.launch(key(), spec('tiny-volume', { volumeGb: 5 })), 'provider_error');
      expect(sims.runpod.control.requests({ method: 'POST' })).toHaveLength(0);
    });
  });

  test('per-key isolation: key B neither sees nor terminates key A’s pod', async () => {
    const a = key();
    const b = key();
    const pod = await adapter.launch(a, spec('iso-a'));
    expect(await adapter.listInstances(b)).toEqual([]);
    expect(await adapter.getInstance(b, pod.id)).toBeNull();
    expect(await adapter.findInstanceByName(b, 'iso-a')).toBeNull();
    await adapter.terminate(b, pod.id);
    expect((await adapter.getInstance(a, pod.id))?.id).toBe(pod.id);
    expect(sims.runpod.control.instances(a)).toHaveLength(1);
  });

  test('a create whose answer is lost is found by name, so a retry creates nothing new', async () => {
    const k = key();
    sims.runpod.control.serverErrors(1, {
      match: { method: 'POST', path: '/v2/pods' },
      afterHandling: true,
      status: 502,
    });
    await failing(adapter.launch(k, spec('retry-me')), 'transient');
    const found: ProviderInstance | null = await adapter.findInstanceByName(k, 'retry-me');
    expect(found?.name).toBe('retry-me');
    expect(sims.runpod.control.instances(k)).toHaveLength(1);
  });

  test('a create that times out but went through is found by name', async () => {
    const k = key();
    const quick = createRunpodAdapter({ baseUrl: sims.runpod.baseUrl, timeoutMs: 100, logger: silentLogger });
    sims.runpod.control.setLatency(300, { match: { method: 'POST', path: '/v2/pods' }, afterHandling: true });
    await failing(quick.launch(k, spec('slow-create')), 'transient');
    sims.runpod.control.setLatency(0);
    expect((await adapter.findInstanceByName(k, 'slow-create'))?.name).toBe('slow-create');
    expect(sims.runpod.control.instances(k)).toHaveLength(1);
  });

  test('ensureSshKey is a no-op that returns the name', async () => {
    const k = key();
    sims.runpod.control.clearRequests();
    await expect(adapter.ensureSshKey(k, { name: 'laptop', publicKey: SSH_KEY_A })).resolves.toEqual({
      name: 'laptop',
    });
    expect(sims.runpod.control.requests()).toHaveLength(0);
  });

  test('no error message or log line contains a key', () => {
    expect(errorMessages.length).toBeGreaterThan(5);
    for (const k of keysUsed) {
      for (const m of errorMessages) expect(m).not.toContain(k);
      for (const line of logLines) expect(line).not.toContain(k);
    }
  });
});
