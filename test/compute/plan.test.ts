/**
 * POST /v1/compute/plan on the real stack: for a body the launch would refuse (402, 422 no_capacity, 400) the
 * plan says so with the same status and code (and, where the refusal is ours, the same message); for an
 * admitted one its price is the launch's `price_per_hour`. Without a provider, the first candidate is the
 * cheapest admitted offer and its `launch` body launches there. Nothing is ever created by a plan.
 */
import { PROVIDERS, type ProviderId } from '../../src/providers/types';
import { createTestContext, type TestContext } from '../helpers/context';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';

jest.setTimeout(120_000);

let t: TestContext;
let temporal: TemporalTestEnv;

beforeAll(async () => {
  t = await createTestContext({ simulators: true, launchTiming: { pollIntervalMs: 1_000, meterIntervalMs: 60_000 } });
  temporal = await createTemporalTestEnv();
  await temporal.startWorker(t.workerDeps(), t.deps.temporal.taskQueue);
  for (const p of PROVIDERS) t.sims[p].control.setBootDelay(300);
  // The pricing tables as a refresh leaves them, and the API's snapshot of them.
  await t.recordSimulatorPrices();
  await t.deps.pricing.reload();
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

type Auth = { Authorization: string };
const plan = (auth: Auth, body: object) => t.http.post('/v1/compute/plan').set(auth).send(body);
const launch = (auth: Auth, body: object) => t.http.post('/v1/compute/launch').set(auth).send(body);
const nothingAt = (keys: Partial<Record<ProviderId, string>>) => {
  for (const [p, key] of Object.entries(keys) as [ProviderId, string][])
    expect([p, t.sims[p].control.instances(key)]).toEqual([p, []]);
};

async function connect(auth: Auth, provider: ProviderId): Promise<string> {
  const key = t.sims[provider].createKey();
  await t.http.post('/v1/settings/providers').set(auth).send({ provider, api_key: key }).expect(201);
  return key;
}

it("an admitted plan: its price and warnings are the launch's, and it created nothing", async () => {
  const a = await t.connectedAccount('runpod');
  const body = { provider: 'runpod', gpu_type: 'rtx-a6000', ssh_key_name: 'laptop' };
  const planned = await plan(a.auth, body);
  expect(planned.status).toBe(200);
  expect(planned.body).toMatchObject({
    provider: 'runpod',
    admitted: true,
    refusal: null,
    warnings: ['ssh_key_name applies to lambda only and was ignored'],
  });
  expect(planned.body.availability).toBeGreaterThan(0);
  nothingAt({ runpod: a.simKey });
  const launched = await launch(a.auth, planned.body.launch);
  expect(launched.status).toBe(201);
  expect(launched.body.price_per_hour).toBe(planned.body.price_per_hour);
  expect(launched.body.warnings).toEqual(planned.body.warnings);
});

it("402: the plan answers the launch's status, code and message", async () => {
  const poor = await t.newAccount('poor', { credit: 0.1 });
  const simKey = await connect(poor.auth, 'runpod');
  const body = { provider: 'runpod', gpu_type: 'rtx-a6000' };
  const planned = await plan(poor.auth, body);
  expect(planned.status).toBe(200);
  expect(planned.body.admitted).toBe(false);
  const launched = await launch(poor.auth, body);
  expect(launched.status).toBe(402);
  expect(planned.body.refusal).toEqual({
    status: 402,
    code: 'insufficient_balance',
    message: launched.body.error.message,
  });
  expect(planned.body.refusal.message).toMatch(/the next hour needs \$0\.\d\d and \$0\.10 is available/);
  nothingAt({ runpod: simKey });
});

it("402 for a key's spend cap, with the launch's message", async () => {
  const a = await t.connectedAccount('runpod');
  const capped = await t.http
    .post('/v1/api-keys')
    .set(a.auth)
    .send({ name: 'tiny', scopes: ['read', 'compute:write'], spend_limit: { amount: 0.1, period: 'month' } });
  const auth = { Authorization: `Bearer ${capped.body.api_key}` };
  const body = { provider: 'runpod', gpu_type: 'rtx-a6000' };
  const planned = await plan(auth, body);
  const launched = await launch(auth, body);
  expect(launched.status).toBe(402);
  expect(planned.body.refusal).toEqual({
    status: 402,
    code: 'insufficient_balance',
    message: launched.body.error.message,
  });
  expect(planned.body.refusal.message).toContain('is capped at $0.10 per month');
});

it(
  "422 no_capacity: the plan says so from the provider's live offers, " + 'as the launch does from its create',
  async () => {
    const a = await t.connectedAccount('runpod');
    const body = { provider: 'runpod', gpu_type: 'rtx-a6000' };
    t.sims.runpod.control.setNoCapacity('rtx-a6000');
    try {
      const planned = await plan(a.auth, body);
      expect(planned.body).toMatchObject({
        admitted: false,
        availability: 0,
        refusal: { status: 422, code: 'no_capacity' },
      });
      const launched = await launch(a.auth, body);
      expect([launched.status, launched.body.error.code]).toEqual([422, 'no_capacity']);
    } finally {
      t.sims.runpod.control.setNoCapacity('rtx-a6000', false);
    }
  },
);

it(
  '400 (Lambda without an SSH key) and 422 (a limit of the provider): ' + "the launch's refusals, word for word",
  async () => {
    const a = await t.connectedAccount('lambda', { sshKey: false });
    for (const body of [
      { provider: 'lambda', gpu_type: 'h100-80gb-sxm', region: 'us-east-1' },
      { provider: 'lambda', gpu_type: 'h100-80gb-sxm', region: 'us-east-1', spot: true },
    ]) {
      const planned = await plan(a.auth, body);
      const launched = await launch(a.auth, body);
      expect(launched.status).toBeGreaterThanOrEqual(400);
      expect(planned.body.refusal).toMatchObject({
        status: launched.status,
        code: launched.body.error.code,
        message: launched.body.error.message,
      });
    }
    nothingAt({ lambda: a.simKey });
    // A body the launch schema refuses is refused the same way by the plan.
    const bad = { provider: 'runpod', gpu_type: 'rtx-a6000', gpu_count: 99 };
    const [p, l] = [await plan(a.auth, bad), await launch(a.auth, bad)];
    expect([p.status, p.body.error.code]).toEqual([l.status, l.body.error.code]);
  },
);

it(
  'without a provider: the first candidate is the cheapest admitted offer, ' + 'and its launch body launches there',
  async () => {
    const a = await t.connectedAccount('runpod');
    const vastKey = await connect(a.auth, 'vastai');
    const planned = await plan(a.auth, { gpu_type: 'rtx-a6000' });
    expect(planned.status).toBe(200);
    const candidates = planned.body.candidates as {
      provider: string;
      price_per_hour: number;
      admitted: boolean;
      launch: Record<string, unknown>;
    }[];
    const admitted = candidates.filter((c) => c.admitted);
    expect(admitted.length).toBeGreaterThanOrEqual(2);
    expect(candidates[0]).toBe(admitted[0]);
    // The cheapest available on-demand offer of a connected provider, as GET /v1/pricing shows it.
    const pricing = (await t.http.get('/v1/pricing/compare?gpu=rtx-a6000')).body.offers as {
      provider: string;
      price_per_hour: number;
      availability: number;
      spot: boolean;
    }[];
    const cheapest = Math.min(
      ...pricing
        .filter((o) => !o.spot && o.availability > 0 && ['runpod', 'vastai'].includes(o.provider))
        .map((o) => o.price_per_hour),
    );
    expect(candidates[0]!.price_per_hour).toBe(cheapest);
    for (const c of admitted) expect(c.price_per_hour).toBeGreaterThanOrEqual(candidates[0]!.price_per_hour);
    // Lambda prices the GPU too (its simulator's gpu_1x_a6000, in the prices recorded before all) but is not
    // connected: its offers are candidates, each refused with the launch's provider_not_connected.
    expect(pricing.filter((o) => o.provider === 'lambda' && o.availability > 0).length).toBeGreaterThan(0);
    const lambda = candidates.filter((c) => c.provider === 'lambda');
    expect(lambda.length).toBeGreaterThan(0);
    for (const c of lambda) expect(c).toMatchObject({ admitted: false, refusal: { code: 'provider_not_connected' } });
    nothingAt({ runpod: a.simKey, vastai: vastKey });

    const launched = await launch(a.auth, candidates[0]!.launch);
    expect(launched.status).toBe(201);
    expect(launched.body.provider).toBe(candidates[0]!.provider);
    // Vast.ai's price list is per GPU across machines of several sizes (dph_total / gpus) while a launch rents one
    // machine, so its metered price can sit a little above the listed one (the balance check quotes the list too).
    expect(launched.body.price_per_hour).toBeGreaterThanOrEqual(candidates[0]!.price_per_hour);
    expect(launched.body.price_per_hour).toBeLessThanOrEqual(candidates[0]!.price_per_hour * 1.05);
  },
);

it('nothing fits: 422 saying why; and nothing is created', async () => {
  const a = await t.connectedAccount('runpod');
  const res = await plan(a.auth, { gpu_type: 'rtx-a6000', max_price_per_hour: 0.01 });
  expect(res.status).toBe(422);
  expect(res.body.error).toMatchObject({
    code: 'no_capacity',
    message: expect.stringContaining('at or under $0.01/h'),
  });
  const poor = await t.newAccount('poor too', { credit: 0.01 });
  await connect(poor.auth, 'runpod');
  const refused = await plan(poor.auth, { gpu_type: 'rtx-a6000', providers: ['runpod'] });
  expect([refused.status, refused.body.error.code]).toEqual([402, 'insufficient_balance']);
  nothingAt({ runpod: a.simKey });
});

it('a read-only key may plan (plans create nothing), but not launch', async () => {
  const a = await t.connectedAccount('runpod');
  const ro = await t.http
    .post('/v1/api-keys')
    .set(a.auth)
    .send({ name: 'viewer', scopes: ['read'] });
  const auth = { Authorization: `Bearer ${ro.body.api_key}` };
  const body = { provider: 'runpod', gpu_type: 'rtx-a6000' };
  expect((await plan(auth, body)).body.admitted).toBe(true);
  expect((await launch(auth, body)).status).toBe(403);
});
