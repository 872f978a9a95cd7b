/**
 * Scheduled runs end to end on the real Temporal dev server, real Postgres and the provider simulators, with the
 * API listening so the simulated containers' job wrapper reports to it: POST /v1/schedules → Temporal Schedule →
 * `trigger` → scheduleRun workflow → its job (runJob child, attempts as launchInstance children) → the startup
 * script's exit report or the run's limits → terminate → run record and events. Hours are compressed by
 * fractional values (max_duration_hours 0.002 = 7.2 s) and tiny max_cost; nothing sleeps to wait. A limit is
 * asserted as order and causality (the terminate reached the provider after the limit was reached, and the charges
 * run exactly to the moment the provider carried it out); the moment itself, to the second, is asserted in workflow
 * time (test/workflows/schedule-run.test.ts), where this machine's speed does not enter.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScheduleNotFoundError } from '@temporalio/client';
import { PROVIDERS, type ProviderId } from '../../src/providers/types';
import { ed25519Key } from '../fixtures/ssh-keys';
import { createTestContext, testVault, type TestContext } from '../helpers/context';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';
import { eventually } from '../helpers/process';

jest.setTimeout(180_000);

// The launch's look at a booting instance and its meter interval.
const POLL_MS = 2_000;
// A boot that never finishes ends here on RunPod's rtx-a6000 (the simulator boots in 300 ms).
const BOOT_DEADLINE_MS = 8_000;
let t: TestContext;
let temporal: TemporalTestEnv;
let server: Server;

beforeAll(async () => {
  t = await createTestContext({
    simulators: true,
    launchTiming: { pollIntervalMs: POLL_MS, meterIntervalMs: 2_000 },
    // A run's job waits this long for capacity after a refusal (1 min in production).
    jobBackoff: { backoffInitialMs: 500, backoffMaxMs: 1_000 },
  });
  server = t.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const publicBaseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  temporal = await createTemporalTestEnv();
  await temporal.startWorker(
    t.workerDeps({
      jobs: { publicBaseUrl, vault: testVault() },
      bootDeadlines: { 'runpod:rtx-a6000': BOOT_DEADLINE_MS },
    }),
    t.deps.temporal.taskQueue,
  );
  for (const p of PROVIDERS) t.sims[p].control.setBootDelay(300);
  // The pricing tables as a refresh leaves them: every provider's current offers, read from the simulators.
  await t.recordSimulatorPrices();
});
afterAll(async () => {
  await temporal.close();
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

type Auth = { Authorization: string };
interface Run {
  id: string;
  status: string;
  provider: ProviderId | null;
  instance_id: string | null;
  price_per_hour: number | null;
  cost: number;
  started_at: string | null;
  ended_at: string | null;
  stop_reason: string | null;
  error: string | null;
  job_id: string | null;
  exit_code: number | null;
}

async function accountWith(providers: ProviderId[]) {
  const account = await t.newAccount();
  const keys = {} as Record<ProviderId, string>;
  for (const provider of providers) {
    keys[provider] = t.sims[provider].createKey();
    await t.http
      .post('/v1/settings/providers')
      .set(account.auth)
      .send({ provider, api_key: keys[provider] })
      .expect(201);
  }
  await t.http.post('/v1/ssh-keys').set(account.auth).send({ name: 'laptop', public_key: ed25519Key() }).expect(201);
  return { ...account, keys };
}

/** A schedule that never fires by itself in a test's lifetime (Feb 29th at 03:17); runs come from `trigger`. */
async function createSchedule(auth: Auth, extra: Record<string, unknown> = {}) {
  const res = await t.http
    .post('/v1/schedules')
    .set(auth)
    .send({ name: 'nightly', gpu: 'rtx-4090', template: 'pytorch', cron: '17 3 29 2 *', ...extra });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

const runs = async (auth: Auth, id: string) =>
  (await t.http.get(`/v1/schedules/${id}/runs`).set(auth).expect(200)).body.data as Run[];

async function waitForRun(
  auth: Auth,
  id: string,
  what: string,
  pick: (runs: Run[]) => Run | undefined,
  timeoutMs = 60_000,
): Promise<Run> {
  return eventually(what, async () => pick(await runs(auth, id)), timeoutMs, 200);
}

const events = (accountId: string) =>
  t.sql<{ type: string; data: Record<string, unknown> }>(
    'SELECT type, data FROM events WHERE account_id = $1 ORDER BY created_at',
    [accountId],
  );
/** The run's and its instances' events (its job's `job.*` events are the jobs tests' business). */
const runEvents = async (accountId: string) =>
  (await events(accountId)).map((e) => e.type).filter((type) => !type.startsWith('job.'));

interface Job {
  id: string;
  status: string;
  exit_code: number | null;
  attempts: {
    n: number;
    provider: ProviderId;
    instance_id: string | null;
    started_at: string | null;
    end_reason: string | null;
    exit_code: number | null;
    output_tail: string | null;
  }[];
}
const getJob = async (auth: Auth, id: string) => (await t.http.get(`/v1/jobs/${id}`).set(auth).expect(200)).body as Job;

/** The start command an instance was created with holds the wrapper running `script` as the job's command. */
const runsAsJob = (startCommand: string | undefined, script: string) => {
  expect(startCommand).toContain(`export GPUO_JOB_COMMAND='${script.replace(/'/g, `'\\''`)}'`);
  expect(startCommand).toContain('gpuo-job-wrapper');
};

/**
 * When RunPod carried out the terminate of a pod (the simulator's clock, this process's), failing unless there
 * was exactly one.
 */
function terminatedAtRunpod(key: string, podId: string): number {
  const terminates = t.sims.runpod.control
    .requests({ method: 'POST', path: `/v2/pods/${podId}/action`, key })
    .filter((r) => (r.body as { action?: string }).action === 'terminate' && r.status === 204);
  expect(terminates).toHaveLength(1);
  return terminates[0]!.at;
}

const instanceRow = async (podId: string) =>
  (
    await t.sql<{ started_at: Date; metered_through: Date; price_per_hour_micros: string; status: string }>(
      'SELECT started_at, metered_through, price_per_hour_micros, status ' +
        'FROM instances WHERE provider_instance_id = $1',
      [podId],
    )
  )[0]!;

/** The run's charges from the ledger (dollars), as GET /v1/billing/transactions lists them. */
async function chargesOf(auth: Auth, instanceId: string): Promise<number> {
  const txns = (await t.http.get('/v1/billing/transactions?type=instance_charge').set(auth).expect(200)).body.data as {
    amount: number;
    instance_id: string;
  }[];
  return -Math.round(txns.filter((x) => x.instance_id === instanceId).reduce((s, x) => s + x.amount, 0) * 1e6) / 1e6;
}

// Two groups of tests that run at once, each test on its own account. The simulators' fault knobs are global
// (a GPU without capacity, a boot delay, the next create refused), so a test that turns one on runs in the
// second group, beside tests it cannot touch; recorded requests are picked by the instance they created.
describe('a run', () => {
  it.concurrent(
    'fails with insufficient_balance, launching nothing, when the balance cannot cover its next hour',
    async () => {
      const account = await t.newAccount('broke', { credit: 0.05 });
      const key = t.sims.vastai.createKey();
      await t.http
        .post('/v1/settings/providers')
        .set(account.auth)
        .send({ provider: 'vastai', api_key: key })
        .expect(201);
      const schedule = await createSchedule(account.auth);
      await t.http.post(`/v1/schedules/${schedule.id}/trigger`).set(account.auth).expect(202);
      const failed = await waitForRun(account.auth, schedule.id, 'the run to fail', (r) =>
        r.find((x) => x.status === 'failed'),
      );
      // The run's job was refused admission on its first offer (Vast spot), which it names.
      expect(failed.error).toMatch(
        /^vastai \(spot\): insufficient_balance: The balance is \$0\.05, .* this launch adds \$0\.18\/h, so the next /,
      );
      expect(failed).toMatchObject({ job_id: expect.stringMatching(/^job_/), exit_code: null, cost: 0 });
      expect(t.sims.vastai.control.instances(key)).toEqual([]);
    },
  );

  it.concurrent(
    'picks the cheapest offer (spot first), runs the startup script, and DELETE ends the schedule and its live run',
    async () => {
      const a = await accountWith(['runpod', 'vastai']);
      // Runs for a minute in the simulated container: the DELETE ends it.
      const script = 'echo training; sleep 60';
      const schedule = await createSchedule(a.auth, { startup_script: script });
      await t.http.post(`/v1/schedules/${schedule.id}/trigger`).set(a.auth).expect(202);

      // rtx-4090: vastai spot $0.18 < vastai on-demand $0.4021 < runpod $0.69.
      const running = await waitForRun(a.auth, schedule.id, 'the run to be running', (r) =>
        r.find((x) => x.status === 'running'),
      );
      expect(running).toMatchObject({ provider: 'vastai', price_per_hour: expect.any(Number), error: null });
      const atSim = t.sims.vastai.control.instances(a.keys.vastai);
      expect(atSim.map((i) => i.id)).toEqual([running.instance_id]);
      expect(atSim[0]).toMatchObject({ spot: true, image: 'pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime' });
      const create = t.sims.vastai.control
        .requests({ method: 'PUT', path: /^\/api\/v0\/asks\// })
        .find(
          (r) => String((r.response as { new_contract?: unknown } | undefined)?.new_contract) === running.instance_id,
        )!;
      // The run is a job: Vast's onstart runs the job wrapper around the startup script.
      runsAsJob((create.body as { onstart?: string }).onstart, script);
      expect(running.job_id).toMatch(/^job_/);
      expect((await getJob(a.auth, running.job_id!)).status).toBe('running');
      expect(t.sims.runpod.control.instances(a.keys.runpod)).toEqual([]);
      // The instance shows up in the compute list like any other managed instance.
      const compute = (await t.http.get('/v1/compute').set(a.auth).expect(200)).body.data as {
        id: string;
        managed: boolean;
        spot: boolean;
      }[];
      expect(compute).toEqual([expect.objectContaining({ id: running.instance_id, managed: true, spot: true })]);

      const deleted = await t.http.delete(`/v1/schedules/${schedule.id}`).set(a.auth);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ id: schedule.id, deleted: true });
      await expect(t.temporal.schedule.getHandle(schedule.id).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
      expect((await t.http.get(`/v1/schedules/${schedule.id}`).set(a.auth)).status).toBe(404);
      await eventually(
        'the instance to be gone at the provider',
        () => (t.sims.vastai.control.instances(a.keys.vastai).length === 0 ? true : undefined),
        60_000,
      );
      const [row] = await eventually('the run to be cancelled', async () => {
        const rows = await t.sql<{ status: string; stop_reason: string; ended_at: Date | null }>(
          'SELECT status, stop_reason, ended_at FROM schedule_runs WHERE schedule_id = $1',
          [schedule.id],
        );
        return rows[0]?.status === 'cancelled' ? rows : undefined;
      });
      expect(row!.stop_reason).toMatch(/was deleted/);
      expect((await getJob(a.auth, running.job_id!)).status).toBe('cancelled');
      const kinds = await runEvents(a.accountId);
      expect(kinds).toEqual([
        'instance.started',
        'schedule.run.started',
        'instance.terminated',
        'schedule.run.completed',
      ]);
    },
  );

  it.concurrent('is a job: a startup script that exits 3 fails the run with exit_code 3 and the job id', async () => {
    const a = await accountWith(['vastai']);
    const schedule = await createSchedule(a.auth, {
      prefer_spot: false,
      startup_script: 'echo failing; sleep 2; exit 3',
    });
    await t.http.post(`/v1/schedules/${schedule.id}/trigger`).set(a.auth).expect(202);
    const failed = await waitForRun(a.auth, schedule.id, 'the run to fail', (r) =>
      r.find((x) => x.status === 'failed'),
    );
    expect(failed).toMatchObject({
      job_id: expect.stringMatching(/^job_/),
      exit_code: 3,
      error: 'the command exited with 3',
      provider: 'vastai',
    });
    // The job behind it: its attempt on the run's instance ended by the wrapper's report, with the output's tail.
    const job = await getJob(a.auth, failed.job_id!);
    expect(job).toMatchObject({ status: 'failed', exit_code: 3, command: 'echo failing; sleep 2; exit 3' });
    // The script is sealed at rest, as on the schedule: a read-only key sees neither.
    const readOnly = await t.http
      .post('/v1/api-keys')
      .set(a.auth)
      .send({ name: 'dashboard', scopes: ['read'] });
    expect(readOnly.status).toBe(201);
    const asReader = await t.http
      .get(`/v1/jobs/${failed.job_id}`)
      .set({ Authorization: `Bearer ${readOnly.body.api_key as string}` })
      .expect(200);
    expect(asReader.body.command).not.toContain('exit 3');
    const stored = await t.sql<{ command: string }>("SELECT spec->>'command' AS command FROM jobs WHERE id = $1", [
      failed.job_id,
    ]);
    expect(stored[0]!.command).not.toContain('exit 3');
    expect(job.attempts.at(-1)).toMatchObject({
      instance_id: failed.instance_id,
      end_reason: 'exited',
      exit_code: 3,
      output_tail: expect.stringContaining('failing'),
    });
    expect(failed.cost).toBe(await chargesOf(a.auth, failed.instance_id!));
    await eventually('the instance to be ended', () =>
      t.sims.vastai.control.instances(a.keys.vastai).length === 0 ? true : undefined,
    );
    expect(await runEvents(a.accountId)).toEqual(
      expect.arrayContaining(['schedule.run.started', 'schedule.run.failed']),
    );
    await t.http.delete(`/v1/schedules/${schedule.id}`).set(a.auth).expect(200);
  });

  it.concurrent(
    'falls back to the next offer when the cheapest provider has no capacity, and succeeds when the script exits 0',
    async () => {
      const a = await accountWith(['runpod', 'vastai']);
      // rtx-a6000 on-demand: vastai $0.4821 < runpod $0.49. Vast still lists the offer, but creates fail.
      t.sims.vastai.control.setNoCapacity('rtx-a6000', true, { mode: 'unavailable' });
      try {
        const script = 'echo "done"; sleep 4; exit 0';
        const schedule = await createSchedule(a.auth, { gpu: 'rtx-a6000', prefer_spot: false, startup_script: script });
        await t.http.post(`/v1/schedules/${schedule.id}/trigger`).set(a.auth).expect(202);
        const running = await waitForRun(a.auth, schedule.id, 'the run to be running on runpod', (r) =>
          r.find((x) => x.status === 'running'),
        );
        expect(running.provider).toBe('runpod');
        expect(t.sims.vastai.control.instances(a.keys.vastai)).toEqual([]);
        const pod = t.sims.runpod.control.instances(a.keys.runpod);
        expect(pod.map((p) => p.id)).toEqual([running.instance_id]);
        // RunPod has no start-up hook: the job wrapper travels in env and the container's args run it.
        runsAsJob(pod[0]!.env.GPUO_STARTUP_SCRIPT, script);
        const podCreate = t.sims.runpod.control
          .requests({ method: 'POST', path: '/v2/pods' })
          .find((r) => (r.response as { id?: string } | undefined)?.id === running.instance_id)!;
        expect((podCreate.body as { args?: string }).args).toBe('bash -c \'eval "$GPUO_STARTUP_SCRIPT"\'');

        // The script exits 0: the wrapper reports it, the pod is ended, and the run succeeds with the exit code.
        const done = await waitForRun(a.auth, schedule.id, 'the run to succeed', (r) =>
          r.find((x) => x.status === 'succeeded'),
        );
        expect(done).toMatchObject({ job_id: running.job_id, exit_code: 0, error: null });
        expect(done.ended_at).not.toBeNull();
        // The job's first attempt was refused at Vast; the second ran on RunPod and exited 0.
        const job = await getJob(a.auth, done.job_id!);
        expect(job).toMatchObject({ status: 'succeeded', exit_code: 0 });
        expect(job.attempts.map((x) => [x.provider, x.end_reason])).toEqual([
          ['vastai', 'refused'],
          ['runpod', 'exited'],
        ]);
        expect(done.cost).toBe(await chargesOf(a.auth, running.instance_id!));
        expect(done.cost).toBeGreaterThan(0);
        await eventually('the pod to be terminated', () =>
          t.sims.runpod.control.instances(a.keys.runpod).length === 0 ? true : undefined,
        );
        expect((await events(a.accountId)).map((e) => e.type)).toContain('schedule.run.completed');
        await t.http.delete(`/v1/schedules/${schedule.id}`).set(a.auth).expect(200);
      } finally {
        t.sims.vastai.control.setNoCapacity('rtx-a6000', false);
      }
    },
  );

  it.concurrent('stops at max_duration_hours after the instance started running, and terminates it', async () => {
    const a = await accountWith(['runpod']);
    const hours = 0.002; // 7.2 s
    const schedule = await createSchedule(a.auth, { max_duration_hours: hours });
    await t.http.post(`/v1/schedules/${schedule.id}/trigger`).set(a.auth).expect(202);
    const run = await waitForRun(
      a.auth,
      schedule.id,
      'the run to stop',
      (r) => r.find((x) => x.status === 'stopped_max_duration'),
      90_000,
    );
    expect(Date.parse(run.ended_at!) - Date.parse(run.started_at!)).toBeGreaterThanOrEqual(hours * 3_600_000);
    expect(run.stop_reason).toBe('max_duration_hours (0.002) reached');
    expect(t.sims.runpod.control.instances(a.keys.runpod)).toEqual([]);
    const row = await instanceRow(run.instance_id!);
    expect(row.status).toBe('terminated');
    // Stopped after the allowance was used up: the terminate reached RunPod after started_at + max_duration.
    const terminatedAt = terminatedAtRunpod(a.keys.runpod, run.instance_id!);
    expect(terminatedAt).toBeGreaterThanOrEqual(row.started_at.getTime() + hours * 3_600_000);
    // Charged exactly to the provider's end: metered up to the moment the terminate's answer came back, and the
    // run ended after that; the cost is price × (metered_through − started_at).
    expect(row.metered_through.getTime()).toBeGreaterThanOrEqual(terminatedAt);
    expect(Date.parse(run.ended_at!)).toBeGreaterThanOrEqual(row.metered_through.getTime());
    const meteredMs = row.metered_through.getTime() - row.started_at.getTime();
    expect(run.cost).toBe(Math.round((Number(row.price_per_hour_micros) * meteredMs) / 3_600_000) / 1e6);
    expect(run.cost).toBe(await chargesOf(a.auth, run.instance_id!));
    await t.http.delete(`/v1/schedules/${schedule.id}`).set(a.auth).expect(200);
  });

  it.concurrent(
    "stops once its cost reaches max_cost, charged to the provider's end, and a firing meanwhile is skipped",
    async () => {
      const a = await accountWith(['runpod']);
      // rtx-4090 on runpod: $0.69/h, so $0.0015 lasts about 7.8 s.
      const maxCost = 0.0015;
      const schedule = await createSchedule(a.auth, { max_cost: maxCost, prefer_spot: false });
      await t.http.post(`/v1/schedules/${schedule.id}/trigger`).set(a.auth).expect(202);
      const running = await waitForRun(a.auth, schedule.id, 'the run to be running', (r) =>
        r.find((x) => x.status === 'running'),
      );

      // Overlap: another firing while this run is live is recorded as skipped and launches nothing.
      await t.http.post(`/v1/schedules/${schedule.id}/trigger`).set(a.auth).expect(202);
      const skipped = await waitForRun(a.auth, schedule.id, 'a skipped run', (r) =>
        r.find((x) => x.status === 'skipped'),
      );
      expect(skipped).toMatchObject({
        provider: null,
        instance_id: null,
        cost: 0,
        stop_reason: `the previous run ${running.id} was still live`,
      });
      // One instance was ever created: the skipped firing launched nothing (the run may have stopped meanwhile).
      expect(t.sims.runpod.control.requests({ method: 'POST', path: '/v2/pods', key: a.keys.runpod })).toHaveLength(1);

      const stopped = await waitForRun(
        a.auth,
        schedule.id,
        'the run to stop at max_cost',
        (r) => r.find((x) => x.status === 'stopped_max_cost'),
        90_000,
      );
      expect(stopped.id).toBe(running.id);
      expect(stopped.cost).toBe(await chargesOf(a.auth, stopped.instance_id!));
      expect(stopped.stop_reason).toBe('max_cost (0.0015) reached');
      // Stopped after max_cost was reached: the terminate reached RunPod after the moment price × elapsed reached
      // it, and the charges, exactly price × (metered_through − started_at), run to the moment RunPod carried it out.
      const row = await instanceRow(stopped.instance_id!);
      const priceMicros = Number(row.price_per_hour_micros);
      const capReachedAt = row.started_at.getTime() + Math.floor((maxCost * 1e6 * 3_600_000) / priceMicros);
      const terminatedAt = terminatedAtRunpod(a.keys.runpod, stopped.instance_id!);
      expect(terminatedAt).toBeGreaterThanOrEqual(capReachedAt);
      expect(row.metered_through.getTime()).toBeGreaterThanOrEqual(terminatedAt);
      expect(stopped.cost).toBe(
        Math.round((priceMicros * (row.metered_through.getTime() - row.started_at.getTime())) / 3_600_000) / 1e6,
      );
      expect(stopped.cost).toBeGreaterThanOrEqual(maxCost - 0.000001); // the cap's moment is floored to the ms
      expect(t.sims.runpod.control.instances(a.keys.runpod)).toEqual([]);

      // Newest first: the skipped firing came after the run it overlapped.
      const all = await runs(a.auth, schedule.id);
      expect(all.map((r) => r.id)).toEqual([skipped.id, running.id]);
      // Paging: one per page, with a cursor to the next.
      const page1 = (await t.http.get(`/v1/schedules/${schedule.id}/runs?limit=1`).set(a.auth).expect(200)).body;
      expect(page1).toMatchObject({ has_more: true, data: [{ id: skipped.id }] });
      const page2 = (
        await t.http
          .get(`/v1/schedules/${schedule.id}/runs?limit=1&cursor=${page1.next_cursor}`)
          .set(a.auth)
          .expect(200)
      ).body;
      expect(page2).toMatchObject({ has_more: false, next_cursor: null, data: [{ id: running.id }] });
      const completed = (await events(a.accountId)).filter((e) => e.type === 'schedule.run.completed');
      expect(completed).toHaveLength(1);
      expect(completed[0]!.data).toMatchObject({ run_id: running.id, status: 'stopped_max_cost', cost: stopped.cost });
      await t.http.delete(`/v1/schedules/${schedule.id}`).set(a.auth).expect(200);
    },
  );
});

describe("a run, beside the simulators' fault knobs", () => {
  it.concurrent(
    'fails with the reasons when every offer is refused, and when no connected provider can run it',
    async () => {
      const a = await accountWith(['runpod']);
      t.sims.runpod.control.setNoCapacity('rtx-4090');
      try {
        const schedule = await createSchedule(a.auth, { prefer_spot: false });
        await t.http.post(`/v1/schedules/${schedule.id}/trigger`).set(a.auth).expect(202);
        const failed = await waitForRun(a.auth, schedule.id, 'the run to fail', (r) =>
          r.find((x) => x.status === 'failed'),
        );
        // The run's job tried its three attempts, each refused.
        expect(failed.error).toMatch(/provider_no_capacity/);
        expect(failed).toMatchObject({ provider: null, instance_id: null, cost: 0, exit_code: null });
        const job = await getJob(a.auth, failed.job_id!);
        expect(job.attempts.map((x) => x.end_reason)).toEqual(['refused', 'refused', 'refused']);
        expect(t.sims.runpod.control.instances(a.keys.runpod)).toEqual([]);
        expect(await runEvents(a.accountId)).toEqual(['schedule.run.failed']);
      } finally {
        t.sims.runpod.control.setNoCapacity('rtx-4090', false);
      }
      // Lambda cannot run a container image: an account with only Lambda has no offer to launch.
      const b = await accountWith(['lambda']);
      const other = await createSchedule(b.auth, { gpu: 'h100-80gb-sxm' });
      await t.http.post(`/v1/schedules/${other.id}/trigger`).set(b.auth).expect(202);
      const none = await waitForRun(b.auth, other.id, 'the run to fail', (r) => r.find((x) => x.status === 'failed'));
      expect(none.error).toMatch(/no available offer for h100-80gb-sxm/);
      expect(none.job_id).toBeNull();
      expect(t.sims.lambda.control.instances(b.keys.lambda)).toEqual([]);
    },
  );

  it.concurrent(
    'falls back on a provider refusal too, and relaunches a preempted spot run until its job gives up',
    async () => {
      const a = await accountWith(['runpod', 'vastai']);
      // The cheapest (vastai spot) refuses the create with a 4xx we cannot map: the run moves on to the next offer.
      t.sims.vastai.control.serverErrors(1, { match: { method: 'PUT', path: /^\/api\/v0\/asks\// }, status: 400 });
      const schedule = await createSchedule(a.auth);
      await t.http.post(`/v1/schedules/${schedule.id}/trigger`).set(a.auth).expect(202);
      const running = await waitForRun(a.auth, schedule.id, 'the run to be running', (r) =>
        r.find((x) => x.status === 'running'),
      );
      // rtx-4090: vastai spot $0.18 refused → the next offer, vastai on-demand $0.4021 (runpod is $0.69).
      expect(running.provider).toBe('vastai');
      const inst = t.sims.vastai.control.instances(a.keys.vastai);
      expect(inst).toEqual([expect.objectContaining({ id: running.instance_id, spot: false })]);

      // A second schedule on spot, preempted by the provider.
      const spot = await createSchedule(a.auth, { gpu: 'a100-80gb-pcie' });
      await t.http.post(`/v1/schedules/${spot.id}/trigger`).set(a.auth).expect(202);
      const spotRun = await waitForRun(a.auth, spot.id, 'the spot run to be running', (r) =>
        r.find((x) => x.status === 'running'),
      );
      expect(t.sims.vastai.control.instances(a.keys.vastai).find((i) => i.id === spotRun.instance_id)?.spot).toBe(true);
      // The run's job relaunches it after each preemption (a new instance, the run still running), three attempts in
      // all; the third preemption ends the run `preempted`.
      const instances: string[] = [];
      for (let n = 1; n <= 3; n++) {
        // Preempted once it runs (the job's attempt started), not while it boots.
        const attempt = await eventually(
          `attempt ${n} to run`,
          async () => (await getJob(a.auth, spotRun.job_id!)).attempts.find((x) => x.n === n && x.started_at !== null),
          60_000,
          200,
        );
        const [run] = (await runs(a.auth, spot.id)).filter((x) => x.id === spotRun.id);
        expect(run).toMatchObject({ status: 'running', instance_id: attempt.instance_id });
        instances.push(attempt.instance_id!);
        t.sims.vastai.control.preempt(a.keys.vastai, attempt.instance_id!, 'stopped');
      }
      const preempted = await waitForRun(
        a.auth,
        spot.id,
        'the run to be preempted',
        (r) => r.find((x) => x.status === 'preempted'),
        90_000,
      );
      expect(preempted.stop_reason).toBe('spot capacity reclaimed by the provider');
      expect((await getJob(a.auth, preempted.job_id!)).attempts.map((x) => x.end_reason)).toEqual([
        'preempted',
        'preempted',
        'preempted',
      ]);
      // The run's cost is its job's: every attempt's charges.
      let charged = 0;
      for (const id of instances) charged += await chargesOf(a.auth, id);
      expect(preempted.cost).toBeCloseTo(charged, 6);
      const failedEvents = (await events(a.accountId)).filter((e) => e.type === 'schedule.run.failed');
      expect(failedEvents.map((e) => e.data.run_id)).toEqual([spotRun.id]);
      await t.http.delete(`/v1/schedules/${spot.id}`).set(a.auth).expect(200);
      await t.http.delete(`/v1/schedules/${schedule.id}`).set(a.auth).expect(200);
      await eventually(
        'every instance to be gone',
        () => (t.sims.vastai.control.instances(a.keys.vastai).length === 0 ? true : undefined),
        60_000,
      );
      expect((await t.http.get(`/v1/schedules/${schedule.id}/runs`).set(a.auth)).status).toBe(404);
    },
  );

  it.concurrent(
    'fails a run whose instances never finish booting: each attempt ends at the boot deadline, nothing charged',
    async () => {
      const a = await accountWith(['runpod']);
      t.sims.runpod.control.setBootDelay(600_000);
      try {
        // rtx-a6000: the test beside this one refuses RunPod's rtx-4090. max_duration_hours counts from a running
        // start, which never comes: the boot deadline ends each attempt, and the job retries it twice.
        const schedule = await createSchedule(a.auth, { gpu: 'rtx-a6000', max_duration_hours: 0.001 });
        await t.http.post(`/v1/schedules/${schedule.id}/trigger`).set(a.auth).expect(202);
        const run = await waitForRun(
          a.auth,
          schedule.id,
          'the run to fail',
          (r) => r.find((x) => x.status === 'failed'),
          90_000,
        );
        expect(run).toMatchObject({ started_at: null, cost: 0, provider: 'runpod', exit_code: null });
        expect((await getJob(a.auth, run.job_id!)).attempts.map((x) => x.end_reason)).toEqual([
          'boot_failed',
          'boot_failed',
          'boot_failed',
        ]);
        await eventually(
          'the pod to be terminated',
          () => (t.sims.runpod.control.instances(a.keys.runpod).length === 0 ? true : undefined),
          30_000,
        );
        await t.http.delete(`/v1/schedules/${schedule.id}`).set(a.auth).expect(200);
      } finally {
        t.sims.runpod.control.setBootDelay(300);
      }
    },
  );
});
