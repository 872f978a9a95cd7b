/**
 * A spend-capped key on the real stack (Temporal, Postgres, simulators): its launches are admitted until the
 * next hour would pass the cap (402 naming the cap), another key of the same account is unaffected, and when
 * the key's charges reach the cap its instances are ended like a budget stop, with the reason. The two tests (own
 * accounts and keys) run side by side.
 */
import { createInstanceQueries } from '../../src/db/queries/instances';
import { createAlertMonitorClient } from '../../src/workflow-clients/alerts';
import type { WorkerDeps } from '../../src/worker';
import { createTestContext, type TestContext } from '../helpers/context';
import { queryRows } from '../helpers/db';
import { eventually } from '../helpers/process';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';
import { terminated } from '../helpers/terminate';

jest.setTimeout(120_000);

let t: TestContext;
let temporal: TemporalTestEnv;
let deps: WorkerDeps;

beforeAll(async () => {
  t = await createTestContext({ simulators: true, launchTiming: { pollIntervalMs: 1_000, meterIntervalMs: 60_000 } });
  temporal = await createTemporalTestEnv();
  deps = t.workerDeps();
  await temporal.startWorker(deps, t.deps.temporal.taskQueue);
  t.sims.runpod.control.setBootDelay(300);
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

const body = { provider: 'runpod', gpu_type: 'rtx-a6000' };

it.concurrent(
  'admits launches until the next hour would pass $1/day, then 402; ends its instances at the cap; another key runs on',
  async () => {
    const a = await t.connectedAccount('runpod');
    const created = await t.http
      .post('/v1/api-keys')
      .set(a.auth)
      .send({ name: 'agent', scopes: ['read', 'compute:write'], spend_limit: { amount: 1, period: 'day' } });
    expect(created.status).toBe(201);
    const capped = { Authorization: `Bearer ${created.body.api_key}` };

    const admitted: { id: string; price_per_hour: number }[] = [];
    let refused: { status: number; body: { error: { code: string; message: string } } } | undefined;
    for (let i = 0; i < 6 && !refused; i++) {
      const res = await t.http.post('/v1/compute/launch').set(capped).send(body);
      if (res.status === 201) admitted.push(res.body);
      else refused = res;
    }
    expect(admitted.length).toBeGreaterThanOrEqual(1);
    const price = admitted[0]!.price_per_hour;
    const committed = admitted.reduce((sum, i) => sum + i.price_per_hour, 0);
    expect(committed).toBeLessThanOrEqual(1);
    expect(committed + price).toBeGreaterThan(1);
    expect(refused!.status).toBe(402);
    expect(refused!.body.error.code).toBe('insufficient_balance');
    expect(refused!.body.error.message).toContain('is capped at $1.00 per day');
    expect(refused!.body.error.message).toContain(`$${committed.toFixed(2)} for the next hour`);

    // The account's full key is not bound by the other key's cap.
    const own = await t.http.post('/v1/compute/launch').set(a.auth).send(body);
    expect(own.status).toBe(201);

    // Time passes for the first capped instance: three hours of it charged (the metering function, at a later
    // "now"), which takes the key past $1 today. The monitor is told that charges landed, as metering does.
    const instances = createInstanceQueries(t.db.pool);
    const [row] = await queryRows<{ id: string }>(
      t.db.url,
      'SELECT id FROM instances WHERE provider_instance_id = $1',
      [admitted[0]!.id],
    );
    const started = await eventually(
      'the first capped instance to start',
      async () => (await instances.findById(row!.id))?.started_at ?? undefined,
    );
    await instances.chargeThrough(row!.id, new Date(Date.parse(started) + 3 * 3_600_000));
    await createAlertMonitorClient({
      client: t.temporal,
      taskQueue: t.deps.temporal.taskQueue,
      settings: deps.alertMonitor!,
    }).notify({ budget: true });

    // Each capped instance is stopped (runpod), its instance.stopped event naming the key's cap.
    const stops = await eventually(
      'every capped instance to be stopped',
      async () => {
        const events = (await t.http.get('/v1/events?type=instance.stopped').set(a.auth)).body.data as {
          data: { instance_id: string; reason?: string };
        }[];
        const mine = events.filter((e) => admitted.some((i) => i.id === e.data.instance_id));
        return mine.length === admitted.length ? mine : undefined;
      },
      60_000,
      250,
    );
    for (const stop of stops) {
      expect(stop.data.reason).toMatch(
        /^API key "agent" \(gpuo_sk_.{4}…\) reached its spend cap: \$\d+\.\d\d spent this day \(UTC\), cap \$1\.00$/,
      );
    }
    const list = (await t.http.get('/v1/compute').set(a.auth)).body.data as { id: string; status: string }[];
    expect([own.body.id, list]).toEqual([
      own.body.id,
      expect.arrayContaining([
        expect.objectContaining({ id: own.body.id, status: expect.stringMatching(/provisioning|running/) }),
      ]),
    ]);
    // And the capped key stays refused for today.
    const again = await t.http.post('/v1/compute/launch').set(capped).send(body);
    expect(again.status).toBe(402);
    const keys = (await t.http.get('/v1/api-keys').set(a.auth)).body.data as {
      name: string;
      spend_in_period: number | null;
    }[];
    expect(keys.find((k) => k.name === 'agent')!.spend_in_period).toBeGreaterThanOrEqual(1);
    // The list (one statement for every key) and the key's own record agree to the micro-dollar.
    const current = (await t.http.get('/v1/api-keys/current').set(capped).expect(200)).body as {
      spend_in_period: number;
    };
    expect(keys.find((k) => k.name === 'agent')!.spend_in_period).toBe(current.spend_in_period);
  },
);

it.concurrent(
  'concurrent launches of one capped key at its cap: exactly the number that fits is admitted',
  async () => {
    const a = await t.connectedAccount('runpod');
    const created = await t.http
      .post('/v1/api-keys')
      .set(a.auth)
      .send({ name: 'racer', scopes: ['read', 'compute:write'], spend_limit: { amount: 1, period: 'day' } });
    expect(created.status).toBe(201);
    const capped = { Authorization: `Bearer ${created.body.api_key}` };
    // The quote admission uses: RunPod's on-demand price of one GPU.
    const offers = await t.deps.adapters.runpod.listOffers(a.simKey);
    const quote = Math.min(
      ...offers.filter((o) => o.gpuType === body.gpu_type && !o.spot).map((o) => Math.round(o.pricePerHour * 1e6)),
    );
    const fits = Math.floor(1_000_000 / quote);
    expect(fits).toBeGreaterThanOrEqual(1);
    expect(fits).toBeLessThan(6);

    // All at once: the cap is decided under the account's lock, so no two of them take the same room.
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => t.http.post('/v1/compute/launch').set(capped).send(body)),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(fits);
    expect(statuses.filter((s) => s === 402)).toHaveLength(6 - fits);
    for (const r of answers.filter((x) => x.status === 402)) {
      expect(r.body.error.code).toBe('insufficient_balance');
      expect(r.body.error.message).toContain('("racer", ');
      expect(r.body.error.message).toContain(
        `its live instances cost $${((fits * quote) / 1e6).toFixed(2)} for the next hour`,
      );
    }
    // Exactly those exist at the provider and are attributed to the key.
    expect(t.sims.runpod.control.instances(a.simKey)).toHaveLength(fits);
    const attributed = await queryRows<{ n: number }>(
      t.db.url,
      'SELECT count(*)::int AS n FROM instances WHERE api_key_id = $1',
      [created.body.id],
    );
    expect(attributed[0]!.n).toBe(fits);
  },
);

it.concurrent(
  'a key family shares one cap: 5 child keys of a $1/day key together launch no more than $1 of spend, ' +
    "and a child's cap is at most what is left",
  async () => {
    const a = await t.connectedAccount('runpod');
    const parent = await t.http
      .post('/v1/api-keys')
      .set(a.auth)
      .send({
        name: 'team',
        scopes: ['read', 'compute:write', 'keys:admin'],
        spend_limit: { amount: 1, period: 'day' },
      })
      .expect(201);
    const parentAuth = { Authorization: `Bearer ${parent.body.api_key}` };
    const children = await Promise.all(
      Array.from({ length: 5 }, (_, n) =>
        t.http
          .post('/v1/api-keys')
          .set(parentAuth)
          .send({ name: `member-${n}`, scopes: ['read', 'compute:write'], spend_limit: { amount: 1, period: 'day' } })
          .expect(201)
          .then((res) => ({ Authorization: `Bearer ${res.body.api_key as string}` })),
      ),
    );
    // Each child launches until refused, all at once: their caps alone would admit ⌊$1 / price⌋ each.
    const launched = await Promise.all(
      children.map(async (auth) => {
        const mine: { id: string; price_per_hour: number }[] = [];
        for (let i = 0; i < 4; i++) {
          const res = await t.http.post('/v1/compute/launch').set(auth).send(body);
          if (res.status !== 201) {
            expect(res.status).toBe(402);
            expect(res.body.error.message).toMatch(/capped at \$1\.00 per day/);
            break;
          }
          mine.push(res.body);
        }
        return mine;
      }),
    );
    const admitted = launched.flat();
    const price = admitted[0]!.price_per_hour;
    const committed = admitted.reduce((sum, i) => sum + i.price_per_hour, 0);
    expect(committed).toBeLessThanOrEqual(1);
    expect(committed + price).toBeGreaterThan(1);
    expect(t.sims.runpod.control.instances(a.simKey)).toHaveLength(admitted.length);
    // The family's spend is the parent's: a new child may be capped at no more than the $1 less that.
    const left = Math.round((1 - committed) * 100) / 100;
    const tooMuch = await t.http
      .post('/v1/api-keys')
      .set(parentAuth)
      .send({ name: 'late', scopes: ['read'], spend_limit: { amount: left + 0.01, period: 'day' } });
    expect(tooMuch.status).toBe(403);
    expect(tooMuch.body.error.message).toMatch(/"team" has \$\d\.\d\d of its cap left/);
    const keys = (await t.http.get('/v1/api-keys').set(a.auth)).body.data as { name: string }[];
    expect(keys.map((k) => k.name).sort()).toEqual(
      ['default', 'team', ...children.map((_, n) => `member-${n}`)].sort(),
    );
    for (const i of admitted) await terminated(t.http, a.auth, i.id);
  },
);
