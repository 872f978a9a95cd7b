/**
 * The simulators' fault knobs over HTTP (`/_sim/…`, simulators/control-routes.ts), each turned with a plain
 * request and seen through the real adapter, as a black-box test or a demo of the local stack would see it.
 */
import { silentLogger } from '../../src/logger';
import { createProviderAdapters, type LaunchSpec, type ProviderAdapter } from '../../src/providers';
import { PROVIDERS, type ProviderId } from '../../src/providers/types';
import { simulatorBaseUrls, startSimulators, type Simulators } from '../../simulators';
import { expectProviderError, pollUntil, SSH_KEY_A } from './support';

let sims: Simulators;
let adapters: Record<ProviderId, ProviderAdapter>;

beforeAll(async () => {
  sims = await startSimulators({ bootDelayMs: 100 });
  sims.lambda.control.setTerminateDelay(50);
  adapters = createProviderAdapters({ ...simulatorBaseUrls(sims), timeoutMs: 3_000, logger: silentLogger });
});
afterAll(async () => {
  await sims.close();
});
afterEach(() => {
  for (const p of PROVIDERS) sims[p].control.reset();
});

/** Sends a control request to `provider`'s simulator, as curl would. */
async function knob(provider: ProviderId, method: string, path: string, body?: unknown) {
  const res = await fetch(`${new URL(sims[provider].baseUrl).origin}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

const GPU: Record<ProviderId, LaunchSpec['gpuType']> = {
  runpod: 'rtx-4090',
  vastai: 'rtx-4090',
  lambda: 'h100-80gb-pcie',
};

/** A fresh key and a launch on it (Lambda with a registered SSH key, as it requires). */
async function launch(provider: ProviderId, name: string) {
  const key = sims[provider].createKey();
  const spec: LaunchSpec = { gpuType: GPU[provider], gpuCount: 1, name, spot: false };
  if (provider === 'lambda') {
    await adapters.lambda.ensureSshKey(key, { name: 'main', publicKey: SSH_KEY_A });
    Object.assign(spec, { region: 'us-east-1', sshKeyName: 'main' });
  }
  return { key, instance: await adapters[provider].launch(key, spec) };
}

const running = (provider: ProviderId, key: string, id: string) =>
  pollUntil(
    () => adapters[provider].getInstance(key, id),
    (i) => i?.status === 'running',
  );

describe.each(PROVIDERS)('%s simulator over HTTP', (provider) => {
  test('POST /_sim/instances/{id}/preempt takes a running instance away', async () => {
    const { key, instance } = await launch(provider, 'preempted');
    await running(provider, key, instance.id);
    expect((await knob(provider, 'POST', `/_sim/instances/${instance.id}/preempt`)).status).toBe(204);
    const after = await adapters[provider].getInstance(key, instance.id);
    // RunPod's pod goes to EXITED and Vast's instance to stopped; Lambda's is terminated, no longer listed.
    expect(after === null ? 'gone' : after.status).toBe(provider === 'lambda' ? 'gone' : 'stopped');
    expect(await knob(provider, 'POST', '/_sim/instances/nope-404/preempt')).toEqual({
      status: 404,
      body: { error: 'no instance nope-404' },
    });
  });

  test('PUT /_sim/capacity/{gpu} refuses creates of that GPU until it is available again', async () => {
    expect((await knob(provider, 'PUT', `/_sim/capacity/${GPU[provider]}`, { available: false })).status).toBe(204);
    await expectProviderError(launch(provider, 'full'), 'no_capacity', provider);
    expect((await knob(provider, 'PUT', `/_sim/capacity/${GPU[provider]}`, { available: true })).status).toBe(204);
    expect((await launch(provider, 'fits')).instance.id).toBeTruthy();
  });

  test('PUT /_sim/latency slows matching requests, and the control paths are never slowed', async () => {
    const { key, instance } = await launch(provider, 'slowed');
    const slowed = await knob(provider, 'PUT', '/_sim/latency', { ms: 400, method: 'GET' });
    expect(slowed.status).toBe(204);
    const started = Date.now();
    const read = adapters[provider].getInstance(key, instance.id);
    // While the answer is held, the simulator shows the request as received and unanswered.
    const held = await pollUntil(
      async () => sims[provider].control.pending({ method: 'GET' }),
      (p) => p.length > 0,
    );
    expect(held[0]!.key).toBe(key);
    const controlStarted = Date.now();
    expect((await knob(provider, 'PUT', '/_sim/latency', { ms: 0 })).status).toBe(204);
    expect(Date.now() - controlStarted).toBeLessThan(400);
    await read;
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(sims[provider].control.pending()).toEqual([]);
    // Control requests are not among the provider's recorded requests.
    expect(sims[provider].control.requests({ path: /^\/_sim/ })).toEqual([]);
  });

  test('POST /_sim/server-errors and /_sim/rate-limits fail the next matching requests', async () => {
    const { key, instance } = await launch(provider, 'faulty');
    expect((await knob(provider, 'POST', '/_sim/server-errors', { count: 1, status: 503 })).status).toBe(204);
    await expectProviderError(adapters[provider].getInstance(key, instance.id), 'transient', provider);
    expect((await knob(provider, 'POST', '/_sim/rate-limits', { count: 1, retry_after_seconds: 7 })).status).toBe(204);
    const limited = await expectProviderError(adapters[provider].listInstances(key), 'rate_limited', provider);
    // Vast's 429 carries no Retry-After (the adapter waits its own default); the others send the knob's.
    expect(limited.retryAfterMs).toBe(provider === 'vastai' ? 1_000 : 7_000);
    expect((await adapters[provider].getInstance(key, instance.id))?.id).toBe(instance.id);
  });

  test('PUT /_sim/boot-delay holds new instances in their boot, POST /_sim/reset clears the faults', async () => {
    expect((await knob(provider, 'PUT', '/_sim/boot-delay', { ms: 60_000 })).status).toBe(204);
    const slow = await launch(provider, 'slow-boot');
    expect((await knob(provider, 'PUT', '/_sim/boot-delay', { ms: 50 })).status).toBe(204);
    const fast = await launch(provider, 'fast-boot');
    await running(provider, fast.key, fast.instance.id);
    expect((await adapters[provider].getInstance(slow.key, slow.instance.id))?.status).toBe('provisioning');

    await knob(provider, 'PUT', `/_sim/capacity/${GPU[provider]}`, { available: false });
    expect((await knob(provider, 'POST', '/_sim/reset')).status).toBe(204);
    expect((await launch(provider, 'after-reset')).instance.id).toBeTruthy();
  });

  test('GET /_sim/instances lists every account’s instances without their env', async () => {
    const { instance } = await launch(provider, 'listed');
    const listed = await knob(provider, 'GET', '/_sim/instances');
    expect(listed.status).toBe(200);
    const found = (listed.body!.instances as Record<string, unknown>[]).find((i) => i.id === instance.id);
    expect(found).toMatchObject({ id: instance.id, name: 'listed', spot: false });
    expect(found).not.toHaveProperty('env');
  });
});

test('a knob body that does not fit answers 400 naming the field, an unknown control path 404', async () => {
  expect(await knob('vastai', 'PUT', '/_sim/latency', { ms: -1 })).toEqual({
    status: 400,
    body: { error: expect.stringMatching(/^ms: /) },
  });
  expect((await knob('vastai', 'PUT', '/_sim/latency', { ms: 1, path: '(' })).body).toEqual({
    error: 'path: not a regular expression',
  });
  expect((await knob('runpod', 'PUT', '/_sim/capacity/rtx-4090', {})).body).toEqual({
    error: expect.stringMatching(/^available: /),
  });
  const { key, instance } = await launch('vastai', 'how');
  expect(await knob('vastai', 'POST', `/_sim/instances/${instance.id}/preempt`, { how: 'melted' })).toEqual({
    status: 400,
    body: { error: 'how must be stopped, exited or remove' },
  });
  expect((await adapters.vastai.getInstance(key, instance.id))?.status).not.toBe('stopped');
  expect((await knob('vastai', 'POST', '/_sim/nothing')).status).toBe(404);
});
