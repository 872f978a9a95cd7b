/**
 * Batched observation: one observer workflow per (account, provider) lists the provider's instances with one
 * call per round and signals the launch workflows what changed. Shown here against the simulators: the
 * provider sees list calls only (none per instance) however many instances run; a pod stopped at RunPod, an
 * instance ended at Lambda and a preempted Vast.ai spot instance each reach their workflow; a 429 lengthens
 * the interval (never below its Retry-After); the observer ends with the last instance and comes back when
 * it is ended by hand.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { ProviderId } from '../../src/providers/types';
import { observerStatusQuery, observerWorkflowId, type ObserverStatus } from '../../workflows/contracts/observation';
import { createTestContext, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/process';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';

jest.setTimeout(120_000);

const STEADY_MS = 1_000;
const SPOT_MS = 400;
let t: TestContext;
let temporal: TemporalTestEnv;

beforeAll(async () => {
  t = await createTestContext({
    simulators: true,
    launchTiming: {
      pollIntervalMs: STEADY_MS,
      spotPollIntervalMs: SPOT_MS,
      meterIntervalMs: 1_000,
      bootPollMaxMs: 300,
    },
  });
  temporal = await createTemporalTestEnv();
  await temporal.startWorker(t.workerDeps(), t.deps.temporal.taskQueue);
  for (const p of ['runpod', 'vastai', 'lambda'] as const) t.sims[p].control.setBootDelay(300);
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

const events = (accountId: string) =>
  t.sql<{ type: string; data: Record<string, unknown> }>(
    'SELECT type, data FROM events WHERE account_id = $1 ORDER BY created_at, id',
    [accountId],
  );

async function launch(
  a: { auth: Record<string, string> },
  provider: ProviderId,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await t.http
    .post('/v1/compute/launch')
    .set(a.auth)
    .send({
      provider,
      gpu_type: provider === 'lambda' ? 'h100-80gb-sxm' : 'rtx-a6000',
      ...(provider === 'lambda' ? { region: 'us-east-1' } : {}),
      ...extra,
    });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/**
 * Waits for the instance's row (what its workflow wrote) to reach `status`; the API's list shows the provider's live
 * view.
 */
async function waitForStatus(_auth: Record<string, string>, id: string, status: string, timeoutMs = 30_000) {
  return eventually(
    `instance ${id} to be ${status}`,
    async () => {
      const [row] = await t.sql<{ status: string }>('SELECT status FROM instances WHERE provider_instance_id = $1', [
        id,
      ]);
      return row?.status === status ? row : undefined;
    },
    timeoutMs,
    100,
  );
}

const observer = (accountId: string, provider: ProviderId) =>
  temporal.env.client.workflow.getHandle(observerWorkflowId(accountId, provider));
const observerStatus = (accountId: string, provider: ProviderId): Promise<ObserverStatus> =>
  observer(accountId, provider).query(observerStatusQuery);

/** Waits until the observer has made `more` rounds past the current one; resolves with its status then. */
async function roundsPass(
  accountId: string,
  provider: ProviderId,
  more: number,
  timeoutMs = 30_000,
): Promise<ObserverStatus> {
  // The launch workflow starts the observer after its create: on a loaded machine the row can say running first.
  const from = (await eventually('the observer', () => observerStatus(accountId, provider), timeoutMs, 100)).rounds;
  return eventually(
    `${more} observer rounds`,
    async () => {
      const s = await observerStatus(accountId, provider);
      return s.rounds >= from + more ? s : undefined;
    },
    timeoutMs,
    100,
  );
}

/**
 * Terminates and waits for `terminated`: 200 at once, or 202 past the answer bound on a loaded machine and 200
 * when asked again (none of these tests is about the prompt answer).
 */
async function terminated(auth: Record<string, string>, id: string): Promise<void> {
  await eventually(`${id} terminated`, async () => {
    const res = await t.http.post(`/v1/compute/${id}/terminate`).set(auth);
    if (res.status !== 200 && res.status !== 202)
      throw new Error(`terminate answered ${res.status} ${JSON.stringify(res.body)}`);
    return res.status === 200 && res.body.status === 'terminated' ? true : undefined;
  });
}

/** The simulator's last recorded exchange so far: what a test counts comes after it. */
const lastSeq = (provider: ProviderId) => t.sims[provider].control.requests().at(-1)?.seq ?? 0;

// Every test has its own account (and so its own observers) and scopes the simulator knobs it turns and the
// requests it counts to its own key: the tests run side by side, but for the six-instance one, which runs
// first and alone (seven launches at once starved the observers on a loaded machine).
it(
  'one list call per account and provider: watches 6 running instances with list calls only: no per-instance ' +
    'request, whatever the number',
  async () => {
    const a = await t.connectedAccount('vastai');
    const ids = await Promise.all(Array.from({ length: 6 }, (_, i) => launch(a, 'vastai', { name: `fleet-${i}` })));
    await Promise.all(ids.map((id) => waitForStatus(a.auth, id, 'running')));
    // Steady state (nothing boots, no spot): one round per STEADY_MS.
    await roundsPass(a.accountId, 'vastai', 1);
    // This account's requests only (the other tests run beside this one), from here on.
    const from = lastSeq('vastai');
    const before = await observerStatus(a.accountId, 'vastai');
    const after = await roundsPass(a.accountId, 'vastai', 4);
    const seen = t.sims.vastai.control.requests({ key: a.simKey }).filter((r) => r.seq > from && r.method === 'GET');
    const mine = seen.filter((r) => r.route !== null);
    const perInstance = mine.filter((r) => r.route!.includes(':id'));
    const lists = mine.filter((r) => r.route === '/api/v0/instances' || r.route === '/api/v1/instances');
    expect(perInstance).toEqual([]);
    // Every request is a list; as many as the rounds that ran (±1 for the round in flight when counting began).
    expect(lists.length).toBe(mine.length);
    expect(Math.abs(lists.length - (after.rounds - before.rounds))).toBeLessThanOrEqual(1);
    expect(after.intervalMs).toBe(STEADY_MS);
    expect(after.watched).toBe(6);
    // Rounds are STEADY_MS apart: 4 rounds took at least 3 intervals.
    const at = lists.map((r) => r.at);
    expect(at[at.length - 1]! - at[0]!).toBeGreaterThanOrEqual(2 * STEADY_MS);
    await Promise.all(ids.map((id) => terminated(a.auth, id)));
  },
);

it.concurrent(
  'what the observer tells a workflow: a pod stopped at RunPod is charged to then and kept stopped; started again ' +
    'there, metering resumes',
  async () => {
    const a = await t.connectedAccount('runpod');
    const id = await launch(a, 'runpod');
    await waitForStatus(a.auth, id, 'running');
    const stoppedAt = Date.now();
    await t.deps.adapters.runpod.stop(a.simKey, id);
    await waitForStatus(a.auth, id, 'stopped');
    const [row] = await t.sql<{ metered_through: Date; end_reason: string }>(
      'SELECT metered_through, end_reason FROM instances WHERE provider_instance_id = $1',
      [id],
    );
    expect(row!.end_reason).toBe('stopped at the provider');
    // Metering ended where the observer saw it stopped: after the stop, within a round or two.
    expect(row!.metered_through.getTime()).toBeGreaterThanOrEqual(stoppedAt - 50);
    expect(row!.metered_through.getTime()).toBeLessThanOrEqual(Date.now());
    expect((await events(a.accountId)).map((e) => e.type)).toEqual(['instance.started', 'instance.stopped']);
    const chargedWhileStopped = await t.sql<{ n: string }>(
      'SELECT count(*) AS n FROM ledger_entries WHERE instance_id = $1',
      [id],
    );

    // Started again at RunPod (the user's own call): the observer tells the workflow, metering resumes from then.
    const restartedAt = Date.now();
    const started = await fetch(`${t.sims.runpod.baseUrl}/pods/${id}/action`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.simKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'start' }),
    });
    expect(started.status).toBe(200);
    await waitForStatus(a.auth, id, 'running');
    await eventually('a charge after the restart', async () => {
      const [n] = await t.sql<{ n: string }>('SELECT count(*) AS n FROM ledger_entries WHERE instance_id = $1', [id]);
      return Number(n!.n) > Number(chargedWhileStopped[0]!.n) ? true : undefined;
    });
    const [resumed] = await t.sql<{ metered_through: Date }>(
      'SELECT metered_through FROM instances WHERE provider_instance_id = $1',
      [id],
    );
    expect(resumed!.metered_through.getTime()).toBeGreaterThan(restartedAt);
    // The rounds told the workflow themselves (started, stopped, started again): the observer's history carries no
    // signal of its own for them.
    expect((await observerStatus(a.accountId, 'runpod')).signalsSent).toBeGreaterThanOrEqual(3);
    const observerEvents = (await observer(a.accountId, 'runpod').fetchHistory()).events ?? [];
    expect(observerEvents.filter((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes)).toEqual([]);
    await terminated(a.auth, id);
    // Charged for the two running spans only: what was charged equals price × (first span + second span).
    const [ended] = await t.sql<{ started_at: Date; metered_through: Date; price_per_hour_micros: string }>(
      'SELECT started_at, metered_through, price_per_hour_micros FROM instances WHERE provider_instance_id = $1',
      [id],
    );
    const [sum] = await t.sql<{ total: string }>(
      'SELECT coalesce(sum(amount_micros), 0) AS total FROM ledger_entries WHERE instance_id = $1',
      [id],
    );
    const wholeLife = Math.round(
      (Number(ended!.price_per_hour_micros) * (ended!.metered_through.getTime() - ended!.started_at.getTime())) /
        3_600_000,
    );
    expect(-Number(sum!.total)).toBeLessThan(wholeLife); // the stopped span was not charged
    expect(-Number(sum!.total)).toBeGreaterThan(0);
  },
);

it.concurrent(
  'what the observer tells a workflow: an instance ended at Lambda (not through us) is charged up to when it was ' +
    'seen gone and closed',
  async () => {
    const a = await t.connectedAccount('lambda');
    const id = await launch(a, 'lambda');
    await waitForStatus(a.auth, id, 'running');
    const endedAt = Date.now();
    await t.deps.adapters.lambda.terminate(a.simKey, id);
    await waitForStatus(a.auth, id, 'terminated');
    const [row] = await t.sql<{ id: string; metered_through: Date; ended_at: Date; end_reason: string }>(
      'SELECT id, metered_through, ended_at, end_reason FROM instances WHERE provider_instance_id = $1',
      [id],
    );
    expect(row!.end_reason).toBe('the provider ended the instance');
    expect(row!.ended_at.getTime()).toBe(row!.metered_through.getTime());
    expect(row!.ended_at.getTime()).toBeGreaterThanOrEqual(endedAt - 50);
    expect((await events(a.accountId)).map((e) => e.type)).toEqual(['instance.started', 'instance.terminated']);
    expect((await temporal.env.client.workflow.getHandle(row!.id).result()).outcome).toBe('lost');
  },
);

it.concurrent(
  'what the observer tells a workflow: a preempted Vast.ai spot instance becomes spot.preempted within about one ' +
    'spot interval',
  async () => {
    const a = await t.connectedAccount('vastai');
    const id = await launch(a, 'vastai', { spot: true });
    await waitForStatus(a.auth, id, 'running');
    // A spot instance runs: the observer looks every SPOT_MS, not STEADY_MS. Two rounds: the first may have begun
    // while the instance still booted (its interval is then the boot one); the second began after it ran.
    const status = await roundsPass(a.accountId, 'vastai', 2);
    expect(status.intervalMs).toBe(SPOT_MS);
    const preemptedAt = Date.now();
    t.sims.vastai.control.preempt(a.simKey, id, 'stopped');
    await eventually(
      'spot.preempted',
      async () => ((await events(a.accountId)).some((e) => e.type === 'spot.preempted') ? true : undefined),
      15_000,
      50,
    );
    const [row] = await t.sql<{ id: string; status: string; ended_at: Date }>(
      'SELECT id, status, ended_at FROM instances WHERE provider_instance_id = $1',
      [id],
    );
    expect(row!.status).toBe('terminated');
    // Ended where the observer saw it: at the first look (one every SPOT_MS, above) whose list showed it no longer
    // running; the end is stamped once that answer is in, before any later look. (Not a bound on how long after the
    // preemption: that is a loaded machine's, and the intervals are asserted in workflow time, observer.test.ts.)
    expect(row!.ended_at.getTime() - preemptedAt).toBeGreaterThanOrEqual(0);
    const looks = t.sims.vastai.control
      .requests({ method: 'GET', key: a.simKey })
      .filter((r) => r.route === '/api/v0/instances' || r.route === '/api/v1/instances');
    const listed = (r: (typeof looks)[number]) =>
      (
        (r.response as { instances?: { id: number; actual_status: string | null }[] } | undefined)?.instances ?? []
      ).find((i) => String(i.id) === id);
    const saw = looks.findIndex((r) => r.at >= preemptedAt && listed(r)?.actual_status !== 'running');
    expect(saw).toBeGreaterThanOrEqual(0);
    expect(row!.ended_at.getTime()).toBeGreaterThanOrEqual(looks[saw]!.at);
    expect(row!.ended_at.getTime()).toBeLessThanOrEqual(looks[saw + 1]?.at ?? Infinity);
    expect((await temporal.env.client.workflow.getHandle(row!.id).result()).outcome).toBe('preempted');
    // A stopped spot instance is terminated at the provider too (nothing left to pay for).
    await eventually('the provider to drop the instance', () =>
      t.sims.vastai.control.instances(a.simKey).length === 0 ? true : undefined,
    );
  },
);

it.concurrent(
  "the interval: a 429 lengthens it to at least the provider's Retry-After, and it comes back once a round succeeds",
  async () => {
    const a = await t.connectedAccount('runpod');
    const id = await launch(a, 'runpod');
    await waitForStatus(a.auth, id, 'running');
    await roundsPass(a.accountId, 'runpod', 1);
    const from = lastSeq('runpod');
    t.sims.runpod.control.rateLimit(2, {
      match: { method: 'GET', path: '/v2/pods', key: a.simKey },
      retryAfterSeconds: 3,
    });
    const limited = await eventually(
      'the observer to be rate limited',
      async () => {
        const s = await observerStatus(a.accountId, 'runpod');
        return s.lastFailure?.startsWith('provider_rate_limited') ? s : undefined;
      },
      15_000,
      50,
    );
    expect(limited.intervalMs).toBeGreaterThanOrEqual(3_000);
    const recovered = await eventually(
      'a successful round',
      async () => {
        const s = await observerStatus(a.accountId, 'runpod');
        return s.lastFailure === null && s.rounds > limited.rounds ? s : undefined;
      },
      30_000,
      100,
    );
    expect(recovered.intervalMs).toBe(STEADY_MS);
    // At the provider: the two 429s, then the next list no sooner than Retry-After after each.
    const lists = t.sims.runpod.control
      .requests({ method: 'GET', path: '/v2/pods', key: a.simKey })
      .filter((r) => r.seq > from);
    expect(lists.slice(0, 2).map((r) => r.status)).toEqual([429, 429]);
    expect(lists[1]!.at - lists[0]!.at).toBeGreaterThanOrEqual(3_000);
    expect(lists[2]!.status).toBe(200);
    // Doubled after the second 429 (never below Retry-After).
    expect(lists[2]!.at - lists[1]!.at).toBeGreaterThanOrEqual(3_000);
    await terminated(a.auth, id);
  },
);

it.concurrent(
  "the observer's life: ends with the account's last instance at the provider, and starts again with the next launch",
  async () => {
    const a = await t.connectedAccount('lambda');
    const first = await launch(a, 'lambda');
    await waitForStatus(a.auth, first, 'running');
    const runId = (await observer(a.accountId, 'lambda').describe()).runId;
    await terminated(a.auth, first);
    await eventually('the observer to end', async () =>
      (await observer(a.accountId, 'lambda').describe()).status.name === 'COMPLETED' ? true : undefined,
    );
    const second = await launch(a, 'lambda');
    await waitForStatus(a.auth, second, 'running');
    const again = await observer(a.accountId, 'lambda').describe();
    expect(again.status.name).toBe('RUNNING');
    expect(again.runId).not.toBe(runId);
    await terminated(a.auth, second);
  },
);

it.concurrent(
  "the observer's life: an observer ended by hand comes back at the next meter tick, and the instance is still watched",
  async () => {
    const a = await t.connectedAccount('vastai');
    const id = await launch(a, 'vastai', { spot: true });
    await waitForStatus(a.auth, id, 'running');
    await observer(a.accountId, 'vastai').terminate('operator test');
    await eventually(
      'the observer to run again',
      async () => {
        try {
          return (await observer(a.accountId, 'vastai').describe()).status.name === 'RUNNING' ? true : undefined;
        } catch (err) {
          if (err instanceof WorkflowNotFoundError) return undefined;
          throw err;
        }
      },
      15_000,
    );
    t.sims.vastai.control.preempt(a.simKey, id, 'remove');
    await eventually(
      'spot.preempted',
      async () => ((await events(a.accountId)).some((e) => e.type === 'spot.preempted') ? true : undefined),
      15_000,
    );
  },
);
