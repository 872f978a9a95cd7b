import { silentLogger } from '../../src/logger';
import { allGpuSlugs } from '../../src/providers/gpu-catalog';
import { createLambdaAdapter } from '../../src/providers/lambda';
import type { LaunchSpec, ProviderAdapter } from '../../src/providers/types';
import { startSimulators, type Simulators } from '../../simulators';
import { capturingLogger, heldClock, secretTracker, pollUntil, SSH_KEY_A, SSH_KEY_B } from './support';

let sims: Simulators;
let adapter: ProviderAdapter;
const { logLines, keysUsed, errorMessages, key, failing } = secretTracker('lambda', () => sims.lambda.createKey());

/** A fresh key with the SSH key `main` registered. */
async function keyWithSsh(): Promise<string> {
  const k = key();
  await adapter.ensureSshKey(k, { name: 'main', publicKey: SSH_KEY_A });
  return k;
}

const spec = (name: string, extra: Partial<LaunchSpec> = {}): LaunchSpec => ({
  gpuType: 'h100-80gb-pcie',
  gpuCount: 1,
  name,
  spot: false,
  region: 'us-east-1',
  sshKeyName: 'main',
  ...extra,
});

beforeAll(async () => {
  sims = await startSimulators({ bootDelayMs: 150 });
  sims.lambda.control.setTerminateDelay(60);
  adapter = createLambdaAdapter({ baseUrl: sims.lambda.baseUrl, timeoutMs: 3_000, logger: capturingLogger(logLines) });
});

afterAll(async () => {
  await sims.close();
});

afterEach(() => {
  sims.lambda.control.reset();
});

describe('lambda adapter against the simulator', () => {
  test('base URL and key shape', () => {
    expect(sims.lambda.baseUrl).toMatch(/\/api\/v1$/);
    expect(key()).toMatch(/^secret_sim_[0-9a-f]{32}\.[0-9a-f]{32}$/);
  });

  test('the simulator accepts Basic auth (key as user) as well as Bearer', async () => {
    const k = key();
    const basic = await fetch(`${sims.lambda.baseUrl}/instances`, {
      headers: { authorization: `Basic ${Buffer.from(`${k}:`).toString('base64')}` },
    });
    expect(basic.status).toBe(200);
    expect(await basic.json()).toEqual({ data: [] });
    const wrong = await fetch(`${sims.lambda.baseUrl}/instances`, { headers: { authorization: 'Basic Zm9vOg==' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: { code: 'global/invalid-api-key' } });
  });

  test('listOffers: per-GPU prices from whole-instance cents, one offer per region, no spot', async () => {
    const offers = await adapter.listOffers(key());
    expect(offers.every((o) => allGpuSlugs().includes(o.gpuType))).toBe(true);
    expect(offers.some((o) => o.spot)).toBe(false);
    // us-east-1 has 1x ($3.29) and 8x ($23.92 → $2.99/GPU) H100 SXM with capacity.
    expect(offers.find((o) => o.gpuType === 'h100-80gb-sxm' && o.region === 'us-east-1')).toEqual({
      provider: 'lambda',
      gpuType: 'h100-80gb-sxm',
      pricePerHour: 2.99,
      availability: 8,
      spot: false,
      region: 'us-east-1',
    });
    // us-west-3 only has the 2x type ($6.38 → $3.19/GPU).
    expect(offers.find((o) => o.gpuType === 'h100-80gb-sxm' && o.region === 'us-west-3')).toMatchObject({
      pricePerHour: 3.19,
      availability: 2,
    });
    const a100 = offers.filter((o) => o.gpuType === 'a100-40gb');
    expect(a100.map((o) => o.region).sort()).toEqual(['europe-central-1', 'us-east-1', 'us-midwest-1', 'us-west-1']);
    // Quadro RTX 6000 and V100 have no slug.
    expect(new Set(offers.map((o) => o.gpuType))).toEqual(
      new Set([
        'h100-80gb-sxm',
        'h100-80gb-pcie',
        'a100-40gb',
        'a100-80gb-sxm',
        'rtx-a6000',
        'a10-24gb',
        'gh200-96gb',
        'b200',
      ]),
    );
  });

  test('listOffers keeps a GPU without capacity anywhere as one offer with availability 0', async () => {
    sims.lambda.control.setNoCapacity('a10-24gb');
    const offers = (await adapter.listOffers(key())).filter((o) => o.gpuType === 'a10-24gb');
    expect(offers).toEqual([
      { provider: 'lambda', gpuType: 'a10-24gb', pricePerHour: 0.75, availability: 0, spot: false },
    ]);
  });

  test('verifyKey: valid and invalid keys', async () => {
    expect((await adapter.verifyKey(key())).valid).toBe(true);
    const bad = 'secret_bad_0123456789abcdef.0123456789abcdef';
    const check = await adapter.verifyKey(bad);
    expect(check).toEqual({ valid: false, message: expect.stringContaining('invalid') });
    expect(check.message).not.toContain(bad);
  });

  test('ensureSshKey registers a missing key once and reuses keys already there', async () => {
    const k = key();
    expect(await adapter.ensureSshKey(k, { name: 'laptop', publicKey: SSH_KEY_A })).toEqual({ name: 'laptop' });
    sims.lambda.control.clearRequests();
    expect(await adapter.ensureSshKey(k, { name: 'laptop', publicKey: SSH_KEY_A })).toEqual({ name: 'laptop' });
    // Same key under another name: the registered name wins.
    expect(await adapter.ensureSshKey(k, { name: 'renamed', publicKey: SSH_KEY_A })).toEqual({ name: 'laptop' });
    expect(sims.lambda.control.requests({ method: 'POST' })).toHaveLength(0);
    // The name is taken by a different key: registered under a derived name.
    const other = await adapter.ensureSshKey(k, { name: 'laptop', publicKey: SSH_KEY_B });
    expect(other.name).toMatch(/^laptop-.{8}$/);
    expect(sims.lambda.control.sshKeys(k).map((x) => [x.name, x.public_key])).toEqual([
      ['laptop', SSH_KEY_A],
      [other.name, SSH_KEY_B],
    ]);
  });

  test('concurrent ensureSshKey calls for one key (concurrent launches) all succeed, registering it once', async () => {
    const k = key();
    const names = await Promise.all(
      Array.from({ length: 6 }, () => adapter.ensureSshKey(k, { name: 'fleet', publicKey: SSH_KEY_A })),
    );
    expect(names).toEqual(Array.from({ length: 6 }, () => ({ name: 'fleet' })));
    expect(sims.lambda.control.sshKeys(k).map((x) => [x.name, x.public_key])).toEqual([['fleet', SSH_KEY_A]]);
  });

  test('launch → booting → active, then list, get, find and terminate', async () => {
    const k = await keyWithSsh();
    // An instance keeps the terminate delay it was launched with.
    sims.lambda.control.setTerminateDelay(1_500);
    // The launch answers with the instance as it is at once: booting (the simulator's clock held still, so a
    // loaded machine's slow answer does not see the boot over).
    const launched = await heldClock(() => adapter.launch(k, spec('trainer'))).finally(() =>
      sims.lambda.control.setTerminateDelay(60),
    );
    expect(launched).toMatchObject({
      provider: 'lambda',
      name: 'trainer',
      gpuType: 'h100-80gb-pcie',
      gpuCount: 1,
      status: 'provisioning',
      region: 'us-east-1',
      spot: false,
    });
    expect(launched.pricePerHour).toBeCloseTo(2.49, 6);
    const sent = sims.lambda.control.requests({ method: 'POST', path: '/api/v1/instance-operations/launch' }).at(-1)!;
    expect(sent.body).toEqual({
      region_name: 'us-east-1',
      instance_type_name: 'gpu_1x_h100_pcie',
      ssh_key_names: ['main'],
      quantity: 1,
      name: 'trainer',
    });

    const running = await pollUntil(
      () => adapter.getInstance(k, launched.id),
      (i) => i?.status === 'running',
    );
    expect(running).toMatchObject({
      providerStatus: 'active',
      ssh: { host: running!.publicIp, port: 22, user: 'ubuntu' },
    });
    expect(sims.lambda.control.instances(k)[0]!.sshKeys).toEqual([SSH_KEY_A]);

    expect((await adapter.listInstances(k)).map((i) => i.id)).toEqual([launched.id]);
    expect((await adapter.findInstanceByName(k, 'trainer'))?.id).toBe(launched.id);

    // The look right after the terminate sees it `terminating`, at the terminate's moment.
    await heldClock(async () => {
      await adapter.terminate(k, launched.id);
      expect((await adapter.getInstance(k, launched.id))?.status).toBe('terminating');
    });
    await adapter.terminate(k, launched.id);
    await pollUntil(
      () => adapter.getInstance(k, launched.id),
      (i) => i === null,
    );
    expect(await adapter.findInstanceByName(k, 'trainer')).toBeNull();
    await expect(adapter.terminate(k, launched.id)).resolves.toBeUndefined();
  });

  test('multi-GPU launch picks the matching instance type', async () => {
    const k = await keyWithSsh();
    const inst = await adapter.launch(
      k,
      spec('eight', { gpuType: 'h100-80gb-sxm', gpuCount: 8, region: 'us-south-1' }),
    );
    expect(inst).toMatchObject({ gpuType: 'h100-80gb-sxm', gpuCount: 8 });
    expect(inst.pricePerHour).toBeCloseTo(23.92, 6);
  });

  test("a job's launch: its start command goes as user_data, in the first region with capacity", async () => {
    const k = await keyWithSsh();
    sims.lambda.control.setNoCapacity('a10-24gb', true, { region: 'us-east-1' });
    const inst = await adapter.launch(
      k,
      spec('job', { gpuType: 'a10-24gb', region: undefined, onstartCmd: 'echo hi # no gpuo wrapper: not run' }),
    );
    expect(inst.region).toBe('us-west-1');
    const sent = sims.lambda.control.requests({ method: 'POST', path: '/api/v1/instance-operations/launch' }).at(-1)!;
    expect(sent.body).toMatchObject({
      region_name: 'us-west-1',
      instance_type_name: 'gpu_1x_a10',
      user_data: '#!/bin/sh\necho hi # no gpuo wrapper: not run\n',
    });
    sims.lambda.control.setNoCapacity('a10-24gb', true);
    await failing(adapter.launch(k, spec('none', { gpuType: 'a10-24gb', region: undefined })), 'no_capacity');
  });

  test('unhealthy is reported as failed', async () => {
    const k = await keyWithSsh();
    const inst = await adapter.launch(k, spec('sick'));
    sims.lambda.control.markUnhealthy(k, inst.id);
    expect((await adapter.getInstance(k, inst.id))?.status).toBe('failed');
  });

  test('requests Lambda cannot serve are refused before any launch call', async () => {
    const k = await keyWithSsh();
    sims.lambda.control.clearRequests();
    expect((await failing(adapter.launch(k, spec('s', { spot: true })), 'provider_error')).message).toMatch(/spot/i);
    const tooLong = spec('big', { onstartCmd: 'x'.repeat(1024 * 1024) });
    expect((await failing(adapter.launch(k, tooLong), 'invalid_request')).message).toMatch(/at most 1048576 bytes/);
    expect((await failing(adapter.launch(k, spec('k', { sshKeyName: undefined })), 'provider_error')).message).toMatch(
      /SSH key/,
    );
    expect((await failing(adapter.launch(k, spec('g', { gpuType: 'rtx-4090' })), 'no_capacity')).message).toMatch(
      /no instance type/,
    );
    await failing(adapter.stop(k, 'whatever'), 'provider_error');
    expect(sims.lambda.control.requests({ method: 'POST' })).toHaveLength(0);
  });

  describe('error mapping', () => {
    test('401 → invalid_key', async () => {
      await failing(adapter.listInstances('secret_nope_00000000.00000000'), 'invalid_key');
    });

    test('HTTP 400 insufficient-capacity → no_capacity', async () => {
      const k = await keyWithSsh();
      sims.lambda.control.setNoCapacity('h100-80gb-pcie', true, { region: 'us-east-1' });
      const err = await failing(adapter.launch(k, spec('cap')), 'no_capacity');
      expect(err.providerStatus).toBe(400);
      expect(err.message).toMatch(/Not enough capacity/);
      expect(sims.lambda.control.instances(k)).toHaveLength(0);
      // Another region still has capacity.
      await expect(adapter.launch(k, spec('cap-west', { region: 'us-west-1' }))).resolves.toMatchObject({
        region: 'us-west-1',
      });
    });

    test('429 → rate_limited with retryAfterMs', async () => {
      sims.lambda.control.rateLimit(1, { retryAfterSeconds: 3 });
      const err = await failing(adapter.listOffers(key()), 'rate_limited');
      expect(err.retryAfterMs).toBe(3_000);
    });

    test('5xx → transient', async () => {
      sims.lambda.control.serverErrors(2);
      const k = key();
      await failing(adapter.listInstances(k), 'transient');
      await failing(adapter.verifyKey(k), 'transient');
    });

    test('a slow answer beyond the adapter timeout → transient', async () => {
      const quick = createLambdaAdapter({ baseUrl: sims.lambda.baseUrl, timeoutMs: 100, logger: silentLogger });
      sims.lambda.control.setLatency(400);
      await failing(quick.listInstances(key()), 'transient');
    });

    test('unknown SSH key name → invalid_request naming the field (400 validation_error to clients)', async () => {
      const k = key();
      const err = await failing(
        adapter.launch(k, spec('nokey', { sshKeyName: 'never-registered' })),
        'invalid_request',
      );
      expect(err.providerStatus).toBe(400);
      expect(err.message).toMatch(/global\/invalid-parameters.*ssh_key_names: SSH key never-registered does not exist/);
      expect(err.toApiError()).toMatchObject({ status: 400, code: 'validation_error' });
    });
  });

  test('per-key isolation: key B neither sees nor terminates key A’s instance', async () => {
    const a = await keyWithSsh();
    const b = key();
    const inst = await adapter.launch(a, spec('iso-a'));
    expect(await adapter.listInstances(b)).toEqual([]);
    expect(await adapter.getInstance(b, inst.id)).toBeNull();
    await adapter.terminate(b, inst.id);
    expect((await adapter.getInstance(a, inst.id))?.status).not.toMatch(/^terminat/);
  });

  test('a launch whose answer is lost is found by name, so a retry creates nothing new', async () => {
    const k = await keyWithSsh();
    sims.lambda.control.serverErrors(1, {
      match: { method: 'POST', path: '/api/v1/instance-operations/launch' },
      afterHandling: true,
    });
    await failing(adapter.launch(k, spec('retry-me')), 'transient');
    expect((await adapter.findInstanceByName(k, 'retry-me'))?.name).toBe('retry-me');
    expect(sims.lambda.control.instances(k)).toHaveLength(1);
  });

  test('no error message or log line contains a key', () => {
    expect(errorMessages.length).toBeGreaterThan(5);
    for (const k of keysUsed) {
      for (const m of errorMessages) expect(m).not.toContain(k);
      for (const line of logLines) expect(line).not.toContain(k);
    }
  });
});
