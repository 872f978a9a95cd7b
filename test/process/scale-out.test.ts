/**
 * Scale-out: two API processes (`src/main-api.ts`) and three worker processes (`src/main-worker.ts`), real
 * child processes on one Postgres database, one Temporal server (the run's dev server, a task queue of their
 * own) and the provider simulators of this test process.
 *
 * 6 launches (2 accounts × 3 providers; SCALE_OUT_LAUNCHES=12 makes it 12, each pair launching once through each
 * API) go through either API, in two waves; during the second wave,
 * while the first is being metered, one worker is SIGKILLed and never comes back. Afterwards both APIs show
 * the same running instances, each launch has exactly one instance at its provider (by name) and one row,
 * metering goes on for all of them, and after they are terminated (through both APIs) every instance's
 * charges add up to its launch price × its metered time, to the microdollar, with nothing left running.
 * Then a price changed at RunPod reaches both APIs' `GET /v1/pricing` through a refresh run by the workers:
 * the refresh NOTIFYs, each API's PricingCache LISTENs and reloads.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { Client } from '@temporalio/client';
import { connectTemporal } from '../../src/workflow-clients/connection';
import { createAccountQueries } from '../../src/db/queries/accounts';
import { PROVIDERS, type ProviderId } from '../../src/providers/types';
import { startSimulators, type Simulators } from '../../simulators';
import { ed25519Key } from '../fixtures/ssh-keys';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { freePort } from '../helpers/ports';
import { eventually, killProcess, runEntry } from '../helpers/process';
import { uniqueTaskQueue } from '../helpers/temporal';
import { KeyVault } from '../../src/domain/key-vault';
import { temporalDataConverter } from '../../src/workflow-clients/payload-codec';

jest.setTimeout(240_000);

type Proc = ReturnType<typeof runEntry>;

const METER_INTERVAL_MS = 2_000;
/** 6 by default; SCALE_OUT_LAUNCHES=12 runs the big version (each account × provider through each API). */
const LAUNCHES = Number(process.env.SCALE_OUT_LAUNCHES ?? 6);
if (LAUNCHES !== 6 && LAUNCHES !== 12)
  throw new Error(`SCALE_OUT_LAUNCHES must be 6 or 12, not ${process.env.SCALE_OUT_LAUNCHES}`);
const taskQueue = uniqueTaskQueue('scale');
const masterKey = randomBytes(32).toString('base64');
let db: TestDatabase;
let sims: Simulators;
let temporal: Client;
let apiUrls: [string, string];
const workers: Proc[] = [];
const apis: Proc[] = [];
const pricingKeys = {} as Record<ProviderId, string>;
const startedAt = Date.now();
const figures: string[] = [];
const note = (line: string) => figures.push(`${((Date.now() - startedAt) / 1000).toFixed(1)}s ${line}`);

function processEnv(): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: db.url,
    DATABASE_POOL_SIZE: '5',
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
    TEMPORAL_TASK_QUEUE: taskQueue,
    MASTER_ENCRYPTION_KEY: masterKey,
    MASTER_ENCRYPTION_KEY_ID: 'scale',
    RUNPOD_API_BASE_URL: sims.runpod.baseUrl,
    VASTAI_API_BASE_URL: sims.vastai.baseUrl,
    LAMBDA_API_BASE_URL: sims.lambda.baseUrl,
    PRICING_RUNPOD_API_KEY: pricingKeys.runpod,
    PRICING_LAMBDA_API_KEY: pricingKeys.lambda,
    PROVIDER_TIMEOUT_MS: '3000',
    // Launches carry the API's timing: looks every second, a charge every 2 s.
    INSTANCE_OBSERVE_INTERVAL: '1s',
    INSTANCE_OBSERVE_SPOT_INTERVAL: '1s',
    METER_INTERVAL: `${METER_INTERVAL_MS / 1000}s`,
    LAUNCH_ANSWER_WITHIN: '20s',
    // The test runs its refreshes itself (see refreshPrices), so that each lands at a moment it chooses; the
    // schedules (`pricing-refresh-<task queue>`, one per task queue) fire rarely.
    PRICING_REFRESH_INTERVAL: '1h',
    RECONCILE_INTERVAL: '1h',
    // The test polls both APIs often; a client's limits are not what is tested here.
    RATE_LIMIT_BURST: '100000',
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '1000000',
    LOG_LEVEL: 'info',
  };
}

const exitedEarly = (p: Proc) => p.child.exitCode !== null || p.child.signalCode !== null;

beforeAll(async () => {
  [db, sims] = await Promise.all([createTestDatabase(), startSimulators({ bootDelayMs: 1_000 })]);
  pricingKeys.runpod = sims.runpod.createKey();
  pricingKeys.lambda = sims.lambda.createKey();
  temporal = new Client({
    connection: await connectTemporal({ address: process.env.TEST_TEMPORAL_ADDRESS! }),
    dataConverter: temporalDataConverter(KeyVault.fromConfig('scale', masterKey)),
  });
  const ports = [await freePort(), await freePort()];
  apiUrls = [`http://127.0.0.1:${ports[0]}`, `http://127.0.0.1:${ports[1]}`];
  for (let i = 0; i < 3; i++) workers.push(runEntry('src/main-worker.ts', [], processEnv()));
  for (const port of ports)
    apis.push(runEntry('src/main-api.ts', [], { ...processEnv(), PORT: String(port), OPS_PORT: '0' }));
  // Three workers bundle their workflow code at once: on a loaded 2-core machine that takes a while.
  await eventually(
    'three workers polling and two APIs ready',
    async () => {
      const dead = [...workers, ...apis].find(exitedEarly);
      if (dead) throw new Error(`a process exited during start-up: ${dead.output().slice(-2000)}`);
      if (!workers.every((w) => w.output().includes('"worker polling"'))) return undefined;
      const ready = await Promise.all(
        apiUrls.map((u) =>
          fetch(`${u}/readyz`).then(
            (r) => r.status === 200,
            () => false,
          ),
        ),
      );
      return ready.every(Boolean) ? true : undefined;
    },
    150_000,
    250,
  );
  note('3 workers polling, 2 APIs ready');
});

afterAll(async () => {
  await Promise.allSettled([...workers, ...apis].map(killProcess));
  // The webhook dispatcher of this task queue is long-running; it must not outlive the test on the shared server.
  await temporal?.workflow
    .getHandle(`webhook-dispatcher-${taskQueue}`)
    .terminate('test file finished')
    .catch(() => undefined);
  await temporal?.connection.close();
  await sims?.close();
  await db?.drop();
  // Error lines of the processes, for the record (a worker SIGKILLed mid-work makes the others log some).
  const errorLines = (p: Proc) =>
    p
      .output()
      .split('\n')
      .filter((l) => l.includes('"level":"error"'));
  note(
    `error lines: workers ${workers.map((w) => errorLines(w).length).join('/')}, ` +
      `APIs ${apis.map((a) => errorLines(a).length).join('/')}`,
  );
  for (const line of [...workers, ...apis].flatMap(errorLines).slice(0, 5)) note(`  ${line.slice(0, 400)}`);
  process.stderr.write(`scale-out test (task queue ${taskQueue}):\n  ${figures.join('\n  ')}\n`);
});

interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
}

/** One request to API process `n` (0 or 1). */
async function call<T = Record<string, unknown>>(
  n: number,
  method: string,
  path: string,
  opts: { auth?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const res = await fetch(`${apiUrls[n]}${path}`, {
    method,
    headers: {
      ...(opts.auth ? { Authorization: `Bearer ${opts.auth}` } : {}),
      ...(opts.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...opts.headers,
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

interface InstanceRecord {
  id: string;
  provider: ProviderId;
  name: string;
  status: string;
  price_per_hour: number;
  managed: boolean;
}

interface Account {
  accountId: string;
  apiKey: string;
  simKeys: Record<ProviderId, string>;
}

interface Launch {
  i: number;
  account: Account;
  provider: ProviderId;
  /** The API process the launch is sent through first (a 503 is retried through the other one). */
  api: number;
  wave: 1 | 2;
  key: string;
  record?: InstanceRecord;
}

const accounts: Account[] = [];
const launches: Launch[] = [];
let killed: { pid: number; at: number } | undefined;

const bodyFor = (l: Launch) =>
  l.provider === 'lambda'
    ? { provider: l.provider, gpu_type: 'h100-80gb-sxm', region: 'us-east-1', name: `scale-${l.i}` }
    : { provider: l.provider, gpu_type: 'rtx-a6000', name: `scale-${l.i}` };

/** The instances a simulator holds for the launch's account whose provider-side name is the launch's. */
const atProvider = (l: Launch) =>
  sims[l.provider].control.instances(l.account.simKeys[l.provider]).filter((x) => x.name?.startsWith(`scale-${l.i}-`));

/**
 * Launches as a client would: through its API, and when the answer is 503 (the launch outlived the answer
 * bound, e.g. its worker died), again with the same Idempotency-Key through the other API.
 */
async function launch(l: Launch): Promise<InstanceRecord> {
  let n = l.api;
  const res = await eventually(
    `launch scale-${l.i} answered`,
    async () => {
      const r = await call<InstanceRecord & { error?: unknown }>(n, 'POST', '/v1/compute/launch', {
        auth: l.account.apiKey,
        body: bodyFor(l),
        headers: { 'Idempotency-Key': l.key },
      });
      if (r.status === 503) {
        note(`launch scale-${l.i}: 503 through API ${n}, retried through API ${1 - n}`);
        n = 1 - n;
        return undefined;
      }
      return r;
    },
    120_000,
    200,
  );
  if (res.status !== 201) throw new Error(`launch scale-${l.i}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The account's instances through API `n`, by id. */
async function listed(n: number, a: Account): Promise<InstanceRecord[]> {
  const r = await call<{ data: InstanceRecord[]; errors?: unknown[] }>(n, 'GET', '/v1/compute', { auth: a.apiKey });
  if (r.status !== 200 || r.body.errors)
    throw new Error(`GET /v1/compute through API ${n}: ${r.status} ${JSON.stringify(r.body)}`);
  return [...r.body.data].sort((x, y) => x.id.localeCompare(y.id));
}

const chargesSince = async (instanceId: string, since: number) =>
  Number(
    (
      await db.sql<{ n: string }>(
        `SELECT count(*) AS n FROM ledger_entries
         WHERE instance_id = $1 AND type = 'instance_charge' AND created_at > $2`,
        [instanceId, new Date(since)],
      )
    )[0]!.n,
  );

describe('two APIs and three workers on one database and one task queue', () => {
  it(`runs ${LAUNCHES} launches via either API, exact through a SIGKILLed worker, each metered exactly`, async () => {
    for (let a = 0; a < 2; a++) {
      const { account, apiKey } = await createAccountQueries(db.pool).insertAccountWithKey(`scale ${a}`, {
        startingCreditMicros: 1_000_000_000,
      });
      const simKeys = {} as Record<ProviderId, string>;
      for (const [p, provider] of PROVIDERS.entries()) {
        simKeys[provider] = sims[provider].createKey();
        // Keys are encrypted by one API process and read back by the workers and the other API.
        const r = await call((a + p) % 2, 'POST', '/v1/settings/providers', {
          auth: apiKey,
          body: { provider, api_key: simKeys[provider] },
        });
        expect(r.status).toBe(201);
      }
      expect(
        (await call(a, 'POST', '/v1/ssh-keys', { auth: apiKey, body: { name: 'laptop', public_key: ed25519Key() } }))
          .status,
      ).toBe(201);
      accounts.push({ accountId: account.id, apiKey, simKeys });
    }
    // i → provider by fours; account alternates; API 0,1,1,0 so each (account, provider) launches once through
    // each API and each wave goes through both.
    // 6: i → provider by twos, account alternates (one wave each), APIs so that each wave and each account use both.
    for (let i = 0; i < LAUNCHES; i++) {
      const big = LAUNCHES === 12;
      launches.push({
        i,
        account: accounts[i % 2]!,
        provider: PROVIDERS[Math.floor(i / (big ? 4 : 2))]!,
        api: big ? [0, 1, 1, 0][i % 4]! : (Math.floor(i / 2) + i) % 2,
        wave: (big ? i % 4 < 2 : i % 2 === 0) ? 1 : 2,
        key: `scale-${i}-${randomBytes(3).toString('hex')}`,
      });
    }
    const wave1 = launches.filter((l) => l.wave === 1);
    const wave2 = launches.filter((l) => l.wave === 2);

    // Wave 1, all at once; then metering is under way for every one of them.
    await Promise.all(wave1.map(async (l) => (l.record = await launch(l))));
    note(`wave 1: ${wave1.length} launches answered 201`);
    await eventually(
      'every wave-1 instance charged at least once',
      async () => {
        const counts = await Promise.all(wave1.map((l) => chargesSince(l.record!.id, 0)));
        return counts.every((n) => n >= 1) ? true : undefined;
      },
      60_000,
      250,
    );
    note('wave 1: every instance running and charged');

    // The worker to kill: the one holding the most wave-1 workflows (they are cached on the worker that ran their
    // last task, and local activities run there too); with 6 launches over 3 workers, one may otherwise hold none.
    const historyOf = (l: Launch) =>
      temporal.workflow.getHandle(`launch-${l.account.accountId}-${l.key}`).fetchHistory();
    const wave1Text = (await Promise.all(wave1.map(historyOf))).map((h) => JSON.stringify(h.events ?? []));
    const held = (w: Proc) => wave1Text.filter((text) => text.includes(`${w.child.pid}@${os.hostname()}`)).length;
    const victim = [...workers].sort((a, b) => held(b) - held(a))[0]!;
    note(`wave-1 workflows per worker: ${workers.map(held).join('/')}; the one with ${held(victim)} is killed`);

    // Wave 2, all at once; as soon as the first of its creates reaches a provider, that worker is SIGKILLed.
    const wave2Done = Promise.all(wave2.map(async (l) => (l.record = await launch(l))));
    await eventually(
      'a wave-2 create to reach its provider',
      () => (wave2.some((l) => atProvider(l).length > 0) ? true : undefined),
      60_000,
      20,
    );
    killed = { pid: victim.child.pid!, at: Date.now() };
    await killProcess(victim);
    note(
      `worker pid ${killed.pid} SIGKILLed with ` +
        `${wave2.filter((l) => atProvider(l).length > 0).length}/${wave2.length} wave-2 creates at the providers`,
    );
    await wave2Done;
    note(`wave 2: ${wave2.length} launches answered 201`);
    expect(workers.filter((w) => !exitedEarly(w))).toHaveLength(2);
    expect(apis.filter((a) => !exitedEarly(a))).toHaveLength(2);

    // Both APIs show the same instances, all running (each API lists from the providers and the shared database).
    const seen = await eventually(
      `all ${LAUNCHES} instances running, listed identically by both APIs`,
      async () => {
        const views = await Promise.all(accounts.flatMap((a) => [listed(0, a), listed(1, a)]));
        const [a0, a1, b0, b1] = views as [InstanceRecord[], InstanceRecord[], InstanceRecord[], InstanceRecord[]];
        const all = [...a0, ...b0];
        if (all.length !== LAUNCHES || !all.every((x) => x.status === 'running')) return undefined;
        expect(a1).toEqual(a0);
        expect(b1).toEqual(b0);
        return all;
      },
      120_000,
      500,
    );
    note(`all ${LAUNCHES} running, identical through both APIs`);
    expect(seen.map((x) => x.id).sort()).toEqual(launches.map((l) => l.record!.id).sort());
    for (const l of launches) {
      const shown = seen.find((x) => x.id === l.record!.id)!;
      expect(shown).toMatchObject({
        provider: l.provider,
        name: `scale-${l.i}`,
        managed: true,
        price_per_hour: l.record!.price_per_hour,
      });
    }

    // The killed worker had taken part: some launch's history has work done by it (its identity is pid@host).
    const identity = `${killed.pid}@${os.hostname()}`;
    const touched = await Promise.all(
      launches.map(async (l) => {
        return JSON.stringify((await historyOf(l)).events ?? []).includes(identity);
      }),
    );
    note(`the killed worker had worked on ${touched.filter(Boolean).length}/${LAUNCHES} launch workflows`);
    expect(touched.some(Boolean)).toBe(true);

    // No duplicate and none lost: exactly one instance per launch at its provider (by name), the one its 201 named,
    // nothing else at the providers, and one row per launch naming it.
    for (const l of launches) expect(atProvider(l).map((x) => x.id)).toEqual([l.record!.id]);
    for (const a of accounts) {
      for (const provider of PROVIDERS) {
        expect(sims[provider].control.instances(a.simKeys[provider])).toHaveLength(
          launches.filter((l) => l.account === a && l.provider === provider).length,
        );
      }
    }
    // The rows follow once each instance's observer has seen it running (the APIs list the providers' live view).
    const rows = await eventually(
      'all rows running',
      async () => {
        const found = await db.sql<{
          id: string;
          provider_instance_id: string;
          status: string;
          price_per_hour_micros: string;
        }>('SELECT id, provider_instance_id, status, price_per_hour_micros FROM instances ORDER BY id');
        return found.length === LAUNCHES && found.every((r) => r.status === 'running') ? found : undefined;
      },
      60_000,
      250,
    );
    expect(rows).toHaveLength(LAUNCHES);
    for (const l of launches) {
      expect(rows.find((r) => r.id === `launch-${l.account.accountId}-${l.key}`)).toMatchObject({
        provider_instance_id: l.record!.id,
        status: 'running',
        price_per_hour_micros: String(Math.round(l.record!.price_per_hour * 1_000_000)),
      });
    }

    // Metering goes on for every instance after the kill, whichever worker had it.
    const killedAt = killed.at;
    await eventually(
      'two charges after the kill for every instance',
      async () => {
        const counts = await Promise.all(launches.map((l) => chargesSince(l.record!.id, killedAt)));
        return counts.every((n) => n >= 2) ? true : undefined;
      },
      90_000,
      500,
    );
    note('every instance charged twice since the kill');

    // Terminate all, each through the API it was not launched through; a 202 (the provider has not confirmed
    // within the bound) is asked again until the record says terminated.
    await Promise.all(
      launches.map(async (l) => {
        const n = 1 - l.api;
        await eventually(
          `terminate scale-${l.i}`,
          async () => {
            const r = await call<InstanceRecord>(n, 'POST', `/v1/compute/${l.record!.id}/terminate`, {
              auth: l.account.apiKey,
            });
            if (r.status === 200 && r.body.status === 'terminated') return true;
            if (r.status === 202 || r.status === 503) return undefined;
            throw new Error(`terminate scale-${l.i}: ${r.status} ${JSON.stringify(r.body)}`);
          },
          90_000,
          300,
        );
      }),
    );
    note(`all ${LAUNCHES} terminated`);

    // Nothing runs at the providers any more.
    await eventually(
      'every provider to drop every instance',
      () =>
        accounts.every((a) => PROVIDERS.every((p) => sims[p].control.instances(a.simKeys[p]).length === 0))
          ? true
          : undefined,
      60_000,
      200,
    );

    // Each instance's instance_charge transactions, as the billing API lists them, add up to its launch price ×
    // (ended_at − started_at), to the microdollar; no interval was charged twice.
    const charged = new Map<string, { micros: number; n: number }>();
    for (const [n, a] of accounts.entries()) {
      let cursor: string | null = null;
      do {
        const page: Answer<{ data: { amount: number; instance_id: string }[]; next_cursor: string | null }> =
          await call(
            n,
            'GET',
            '/v1/billing/transactions?type=instance_charge&limit=200' +
              (cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''),
            { auth: a.apiKey },
          );
        expect(page.status).toBe(200);
        for (const t of page.body.data) {
          const c = charged.get(t.instance_id) ?? { micros: 0, n: 0 };
          charged.set(t.instance_id, { micros: c.micros + Math.round(t.amount * 1_000_000), n: c.n + 1 });
        }
        cursor = page.body.next_cursor;
      } while (cursor);
    }
    const ended = await db.sql<{
      provider_instance_id: string;
      status: string;
      started_at: Date;
      metered_through: Date;
      ended_at: Date;
      price_per_hour_micros: string;
    }>(
      `SELECT provider_instance_id, status, started_at, metered_through, ended_at, price_per_hour_micros
       FROM instances`,
    );
    expect(ended).toHaveLength(LAUNCHES);
    let chargeCount = 0;
    for (const row of ended) {
      expect(row.status).toBe('terminated');
      expect(row.metered_through.getTime()).toBe(row.ended_at.getTime());
      const expected = Math.round(
        (Number(row.price_per_hour_micros) * (row.ended_at.getTime() - row.started_at.getTime())) / 3_600_000,
      );
      expect({ instance: row.provider_instance_id, charged: -charged.get(row.provider_instance_id)!.micros }).toEqual({
        instance: row.provider_instance_id,
        charged: expected,
      });
      const [keys] = await db.sql<{ n: string; keys: string }>(
        `SELECT count(*) AS n, count(DISTINCT idempotency_key) AS keys FROM ledger_entries WHERE instance_id = $1`,
        [row.provider_instance_id],
      );
      expect(keys!.keys).toBe(keys!.n);
      expect(Number(keys!.n)).toBe(charged.get(row.provider_instance_id)!.n);
      chargeCount += Number(keys!.n);
    }
    note(`metering exact for ${LAUNCHES} instances, ${chargeCount} charges`);
  });

  it('a provider price change reaches both APIs within 5 s of a refresh (NOTIFY → each PricingCache)', async () => {
    /** Runs the workers' pricingRefresh workflow on this task queue and waits for its result. */
    const refreshPrices = () =>
      temporal.workflow.execute('pricingRefresh', {
        taskQueue,
        workflowId: `scale-pricing-${randomBytes(4).toString('hex')}`,
      }) as Promise<{ failedProviders: string[] }>;
    const runpodA6000 = async (n: number) => {
      const r = await call<{
        gpu_types: { gpu_type: string; offers: { provider: string; price_per_hour: number }[] }[];
      }>(n, 'GET', '/v1/pricing');
      if (r.status !== 200) return undefined;
      return r.body.gpu_types.find((g) => g.gpu_type === 'rtx-a6000')?.offers.find((o) => o.provider === 'runpod')
        ?.price_per_hour;
    };
    const bothShow = (price: number, timeoutMs: number) =>
      Promise.all(
        [0, 1].map(async (n) => {
          const from = Date.now();
          await eventually(
            `API ${n} to show RunPod rtx-a6000 at $${price}`,
            async () => ((await runpodA6000(n)) === price ? true : undefined),
            timeoutMs,
            50,
          );
          return Date.now() - from;
        }),
      );

    expect((await refreshPrices()).failedProviders).toEqual([]);
    await bothShow(0.49, 30_000);

    // Two changes, one after the other, each visible through both APIs within 5 s of its refresh. Each API's
    // safety-net poll runs every 30 s, so at most one of the two could be its doing: the NOTIFY brings them.
    for (const price of [0.61, 0.73]) {
      sims.runpod.control.setPrice('rtx-a6000', price);
      // The snapshot is stored (and NOTIFY sent, in the same transaction) before the workflow completes.
      expect((await refreshPrices()).failedProviders).toEqual([]);
      const took = await bothShow(price, 5_000);
      note(
        `RunPod rtx-a6000 at $${price}: shown ${took[0]} ms (API 0) and ${took[1]} ms (API 1) ` +
          'after the refresh completed',
      );
    }

    // Both serve the very same snapshot.
    const [p0, p1] = await Promise.all([0, 1].map((n) => fetch(`${apiUrls[n]}/v1/pricing`)));
    expect(p0!.headers.get('etag')).toBe(p1!.headers.get('etag'));
    expect(await p0!.text()).toBe(await p1!.text());
  });
});
