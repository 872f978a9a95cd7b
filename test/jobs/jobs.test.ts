/**
 * Jobs end to end on the real Temporal dev server, real Postgres and the provider simulators, with the API
 * listening so the simulated containers' wrapper reports to it: POST /v1/jobs → runJob → attempts as
 * launchInstance children → the wrapper's exit report → the instance ended → the job's record, attempts,
 * cost and events. Nothing sleeps to wait.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { chargeForElapsed } from '../../src/domain/money';
import { PROVIDERS, type ProviderId } from '../../src/providers/types';
import { createTestContext, testVault, type TestContext } from '../helpers/context';
import { eventually, REPO_ROOT } from '../helpers/process';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';

jest.setTimeout(180_000);

let t: TestContext;
let temporal: TemporalTestEnv;
let server: Server;
let publicBaseUrl: string;

beforeAll(async () => {
  t = await createTestContext({
    simulators: true,
    launchTiming: { pollIntervalMs: 1_000, meterIntervalMs: 2_000, spotPollIntervalMs: 1_000 },
  });
  server = t.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  publicBaseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  temporal = await createTemporalTestEnv();
  // The wrapper ships its tail every second while the command runs (30 s in production).
  await temporal.startWorker(
    t.workerDeps({ jobs: { publicBaseUrl, vault: testVault(), tailIntervalSeconds: 1 } }),
    t.deps.temporal.taskQueue,
  );
  for (const p of PROVIDERS) t.sims[p].control.setBootDelay(300);
  await t.recordSimulatorPrices();
});
afterAll(async () => {
  await temporal.close();
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

type Auth = { Authorization: string };
interface Attempt {
  n: number;
  provider: ProviderId;
  spot: boolean;
  instance_id: string | null;
  started_at: string | null;
  ended_at: string | null;
  end_reason: string | null;
  exit_code: number | null;
  output_tail: string | null;
  cost: number;
}
interface Job {
  id: string;
  status: string;
  exit_code: number | null;
  error: string | null;
  cost: number;
  attempts: Attempt[];
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
  return { ...account, keys };
}

const getJob = async (auth: Auth, id: string) => (await t.http.get(`/v1/jobs/${id}`).set(auth).expect(200)).body as Job;
const waitFor = (auth: Auth, id: string, what: string, ok: (j: Job) => boolean, timeoutMs = 90_000) =>
  eventually(
    what,
    async () => {
      const j = await getJob(auth, id);
      return ok(j) ? j : undefined;
    },
    timeoutMs,
    200,
  );
const ended = (j: Job) => ['succeeded', 'failed', 'cancelled'].includes(j.status);

/** The ledger's instance charges of `instanceIds`, in micro-dollars. */
async function ledgerMicros(accountId: string, instanceIds: string[]): Promise<number> {
  const [row] = await t.sql<{ s: string | null }>(
    `SELECT -sum(amount_micros) AS s FROM ledger_entries WHERE account_id = $1 AND type = 'instance_charge' ` +
      `AND instance_id = ANY($2)`,
    [accountId, instanceIds],
  );
  return Number(row!.s ?? 0);
}

/** When the instance ended and what it was charged through, from its record. */
async function instanceEnd(instanceId: string) {
  const [row] = await t.sql<{ status: string; ended_at: Date | null; metered_through: Date | null }>(
    'SELECT status, ended_at, metered_through FROM instances WHERE provider_instance_id = $1',
    [instanceId],
  );
  return row!;
}

async function reportedAt(jobId: string, n: number): Promise<Date> {
  const [row] = await t.sql<{ reported_at: Date }>(
    'SELECT reported_at FROM job_attempts WHERE job_id = $1 AND n = $2',
    [jobId, n],
  );
  return row!.reported_at;
}

/**
 * The instance ended after the exit report and was charged exactly up to the end the provider confirmed, not a
 * millisecond past it. How many seconds the end took is this machine's, so no bound on it here: on a 2-core
 * machine running the whole suite beside two CPU hogs a Lambda job's took 8.5 s.
 */
function endedAfterReport(end: { ended_at: Date | null; metered_through: Date | null }, reported: Date): void {
  expect(end.ended_at!.getTime()).toBeGreaterThanOrEqual(reported.getTime());
  expect(end.metered_through!.getTime()).toBe(end.ended_at!.getTime());
}

describe('a job', () => {
  it.concurrent.each(['vastai', 'runpod'] as const)(
    'on %s that exits 0 ends succeeded, its instance ended after the report and charged exactly to that end',
    async (provider) => {
      const a = await accountWith([provider]);
      const res = await t.http
        .post('/v1/jobs')
        .set(a.auth)
        .send({
          // Runs past the observer's boot looks (1, 2, 3 s), so the instance is seen running before it exits.
          gpu: 'rtx-4090',
          template: 'pytorch',
          command: 'echo "value=$GREETING"; sleep 4; exit 0',
          env: { GREETING: 'hush-secret-42' },
          providers: [provider],
          spot_policy: 'on-demand',
        });
      expect(res.status).toBe(201);
      expect(JSON.stringify(res.body)).not.toContain('hush-secret-42');
      const job = await waitFor(a.auth, res.body.id, 'the job to end', ended);
      expect(job).toMatchObject({ status: 'succeeded', exit_code: 0, error: null });
      expect(job.attempts).toHaveLength(1);
      const [attempt] = job.attempts;
      expect(attempt).toMatchObject({
        n: 1,
        provider,
        end_reason: 'exited',
        exit_code: 0,
        output_tail: 'value=hush-secret-42',
      });
      const end = await instanceEnd(attempt!.instance_id!);
      expect(end.status).toBe('terminated');
      const reported = await reportedAt(job.id, 1);
      endedAfterReport(end, reported);
      expect(Math.round(job.cost * 1e6)).toBe(await ledgerMicros(a.accountId, [attempt!.instance_id!]));
      expect(t.sims[provider].control.instances(a.keys[provider])).toEqual([]);
      // The env never comes back: not in the record, nor in any event.
      const events = await t.sql<{ type: string; data: unknown }>(
        'SELECT type, data FROM events WHERE account_id = $1 ORDER BY created_at',
        [a.accountId],
      );
      expect(JSON.stringify(events)).not.toContain('hush-secret-42');
      expect(events.map((e) => e.type).filter((k) => k.startsWith('job.'))).toEqual([
        'job.started',
        'job.attempt_ended',
        'job.succeeded',
      ]);
    },
  );

  it.concurrent(
    'whose command exits before the instance was seen running is charged from the create’s acknowledgement to ' +
      'the provider’s end, exactly; cost = ledger',
    async () => {
      const a = await accountWith(['vastai']);
      // Every look at this account's instances fails (the observer's lists, the look before an end), so the exit
      // report comes before any running sighting, as a short command's does under a long observation interval.
      t.sims.vastai.control.serverErrors(10_000, {
        match: { key: a.keys.vastai, method: 'GET', path: /^\/api\/v[01]\/instances\// },
      });
      const res = await t.http
        .post('/v1/jobs')
        .set(a.auth)
        .send({ gpu: 'rtx-4090', template: 'pytorch', command: 'exit 0', providers: ['vastai'] })
        .expect(201);
      const job = await waitFor(a.auth, res.body.id, 'the job to end', ended);
      expect(job).toMatchObject({ status: 'succeeded', exit_code: 0 });
      const [attempt] = job.attempts;
      expect(attempt).toMatchObject({ end_reason: 'exited', exit_code: 0 });
      const [row] = await t.sql<{
        status: string;
        accepted_at: Date;
        started_at: Date | null;
        ended_at: Date;
        metered_through: Date | null;
        price_per_hour_micros: string;
      }>(
        'SELECT i.status, i.accepted_at, i.started_at, i.ended_at, i.metered_through, i.price_per_hour_micros ' +
          'FROM instances i JOIN job_attempts a ON a.instance_row_id = i.id WHERE a.job_id = $1 AND a.n = 1',
        [job.id],
      );
      expect(row).toBeDefined();
      expect(row!.status).toBe('terminated');
      expect(row!.started_at?.getTime()).toBe(row!.accepted_at.getTime());
      expect(row!.metered_through?.getTime()).toBe(row!.ended_at.getTime());
      const charged = await ledgerMicros(a.accountId, [attempt!.instance_id!]);
      const ranMs = row!.ended_at.getTime() - row!.accepted_at.getTime();
      expect(charged).toBe(chargeForElapsed(Number(row!.price_per_hour_micros), ranMs));
      expect(charged).toBeGreaterThan(0);
      expect(Math.round(job.cost * 1e6)).toBe(charged);
      expect(Math.round(attempt!.cost * 1e6)).toBe(charged);
      expect(t.sims.vastai.control.instances(a.keys.vastai)).toEqual([]);
      // It started as any attempt does: its start in the record, `job.started` before its end.
      expect(Date.parse(attempt!.started_at!)).toBe(row!.accepted_at.getTime());
      const events = await t.sql<{ type: string }>(
        'SELECT type FROM events WHERE account_id = $1 ORDER BY created_at',
        [a.accountId],
      );
      expect(events.map((e) => e.type).filter((k) => k.startsWith('job.'))).toEqual([
        'job.started',
        'job.attempt_ended',
        'job.succeeded',
      ]);
    },
  );

  it.concurrent('that exits 3 ends failed with exit_code 3 and its output tail', async () => {
    const a = await accountWith(['runpod']);
    const res = await t.http
      .post('/v1/jobs')
      .set(a.auth)
      .send({ gpu: 'rtx-4090', template: 'pytorch', command: 'echo hello; sleep 2; exit 3' })
      .expect(201);
    const job = await waitFor(a.auth, res.body.id, 'the job to end', ended);
    expect(job).toMatchObject({ status: 'failed', exit_code: 3 });
    expect(job.attempts).toEqual([
      expect.objectContaining({ end_reason: 'exited', exit_code: 3, output_tail: 'hello' }),
    ]);
    const listed = (await t.http.get('/v1/jobs?status=failed').set(a.auth).expect(200)).body.data as Job[];
    expect(listed.map((j) => j.id)).toEqual([job.id]);
  });

  it.concurrent('ignores forged and replayed exit reports', async () => {
    const a = await accountWith(['vastai']);
    const res = await t.http
      .post('/v1/jobs')
      .set(a.auth)
      .send({ gpu: 'rtx-4090', template: 'pytorch', command: 'sleep 120', spot_policy: 'on-demand' })
      .expect(201);
    const running = await waitFor(
      a.auth,
      res.body.id,
      'the job and its attempt to run',
      (j) => j.status === 'running' && j.attempts[0]?.started_at != null,
    );
    // The token only the instance holds, read from the create request the simulator received.
    const create = t.sims.vastai.control
      .requests({ method: 'PUT', path: /^\/api\/v0\/asks\// })
      .find(
        (r) =>
          String((r.response as { new_contract?: unknown } | undefined)?.new_contract) ===
          running.attempts[0]!.instance_id,
      )!;
    const token = /GPUO_EXIT_TOKEN='([^']+)'/.exec((create.body as { onstart: string }).onstart)![1]!;

    const forged = await t.http.post('/v1/jobs/exit').send({ token: `${token}x`, exit_code: 0, tail: '' });
    expect(forged.status).toBe(401);
    expect((await getJob(a.auth, res.body.id)).status).toBe('running');

    // A program may print a NUL or half a surrogate pair: the report is kept, those shown as U+FFFD.
    await t.http.post('/v1/jobs/exit').send({ token, exit_code: 4, tail: 'reported\u0000\ud800' }).expect(202);
    const replay = await t.http.post('/v1/jobs/exit').send({ token, exit_code: 0, tail: 'again' });
    expect(replay.status).toBe(409);
    const job = await waitFor(a.auth, res.body.id, 'the job to end', ended);
    expect(job).toMatchObject({ status: 'failed', exit_code: 4 });
    expect(job.attempts[0]).toMatchObject({ exit_code: 4, output_tail: 'reported\ufffd\ufffd' });
  });

  it.concurrent(
    'on Vast spot, preempted twice with on_demand_after_preemptions 2, succeeds on an on-demand third attempt; ' +
      'cost = ledger',
    async () => {
      const a = await accountWith(['vastai']);
      const res = await t.http
        .post('/v1/jobs')
        .set(a.auth)
        .send({
          gpu: 'rtx-4090',
          template: 'pytorch',
          command: 'sleep 15; exit 0', // outlasts the test's wait to see each spot attempt running
          providers: ['vastai'],
          retry: { on: ['preemption'], max_attempts: 3, within: '1h', on_demand_after_preemptions: 2 },
        })
        .expect(201);
      for (const n of [1, 2]) {
        const j = await waitFor(
          a.auth,
          res.body.id,
          `attempt ${n} to run`,
          (x) => x.attempts[n - 1]?.started_at != null,
        );
        expect(j.attempts[n - 1]!.spot).toBe(true);
        t.sims.vastai.control.preempt(a.keys.vastai, j.attempts[n - 1]!.instance_id!);
      }
      const job = await waitFor(a.auth, res.body.id, 'the job to end', ended, 120_000);
      expect(job.status).toBe('succeeded');
      expect(job.attempts.map((x) => [x.spot, x.end_reason])).toEqual([
        [true, 'preempted'],
        [true, 'preempted'],
        [false, 'exited'],
      ]);
      const ids = job.attempts.map((x) => x.instance_id!);
      expect(Math.round(job.cost * 1e6)).toBe(await ledgerMicros(a.accountId, ids));
      expect(job.attempts.reduce((s, x) => s + Math.round(x.cost * 1e6), 0)).toBe(Math.round(job.cost * 1e6));
    },
  );

  it.concurrent(
    'stops at max_cost across attempts: what the preempted attempt spent shortens the next one',
    async () => {
      const a = await accountWith(['vastai']);
      // rtx-4090 Vast spot: $0.18/h, so $0.003 (one minute of it, the least max_cost allowed) lasts 60 s in all.
      const res = await t.http
        .post('/v1/jobs')
        .set(a.auth)
        .send({
          gpu: 'rtx-4090',
          template: 'pytorch',
          command: 'sleep 600',
          providers: ['vastai'],
          spot_policy: 'spot',
          max_cost: 0.003,
          retry: { on: ['preemption'], max_attempts: 3, within: '1h' },
        })
        .expect(201);
      const first = await waitFor(
        a.auth,
        res.body.id,
        'the first attempt to be charged',
        (j) => (j.attempts[0]?.cost ?? 0) >= 0.0005,
      );
      t.sims.vastai.control.preempt(a.keys.vastai, first.attempts[0]!.instance_id!);
      const job = await waitFor(a.auth, res.body.id, 'the job to end', ended, 150_000);
      expect(job.status).toBe('failed');
      expect(job.error).toMatch(/max_cost \(0\.003\) reached/);
      expect(job.attempts.map((x) => x.end_reason)).toEqual(['preempted', 'max_cost']);
      const costMicros = Math.round(job.cost * 1e6);
      expect(costMicros).toBe(
        await ledgerMicros(
          a.accountId,
          job.attempts.map((x) => x.instance_id!),
        ),
      );
      // Over by at most one observation interval of burn (2 s at $0.18/h = 100 micro-dollars) and the end's latency.
      expect(costMicros).toBeGreaterThanOrEqual(3_000);
      expect(costMicros).toBeLessThanOrEqual(3_000 + 200);
    },
  );

  it.concurrent(
    'cancel terminates the live attempt and ends the job cancelled; another account sees nothing',
    async () => {
      const a = await accountWith(['runpod']);
      const res = await t.http
        .post('/v1/jobs')
        .set(a.auth)
        .set('Idempotency-Key', 'cancel-me')
        .send({ gpu: 'rtx-4090', template: 'pytorch', command: 'sleep 600' })
        .expect(201);
      // The same key and body: the same job; another body: 409.
      const again = await t.http
        .post('/v1/jobs')
        .set(a.auth)
        .set('Idempotency-Key', 'cancel-me')
        .send({ gpu: 'rtx-4090', template: 'pytorch', command: 'sleep 600' });
      expect([again.status, again.body.id]).toEqual([200, res.body.id]);
      expect(
        (
          await t.http
            .post('/v1/jobs')
            .set(a.auth)
            .set('Idempotency-Key', 'cancel-me')
            .send({ gpu: 'rtx-4090', template: 'pytorch', command: 'sleep 1' })
        ).status,
      ).toBe(409);
      const other = await t.newAccount();
      expect((await t.http.get(`/v1/jobs/${res.body.id}`).set(other.auth)).status).toBe(404);
      expect((await t.http.post(`/v1/jobs/${res.body.id}/cancel`).set(other.auth)).status).toBe(404);

      await waitFor(a.auth, res.body.id, 'the attempt to run', (j) => j.attempts[0]?.started_at != null);
      await t.http.post(`/v1/jobs/${res.body.id}/cancel`).set(a.auth).expect(202);
      const job = await waitFor(a.auth, res.body.id, 'the job to end', ended);
      expect(job).toMatchObject({ status: 'cancelled', exit_code: null });
      expect(job.attempts).toEqual([expect.objectContaining({ end_reason: 'cancelled', exit_code: null })]);
      expect(t.sims.runpod.control.instances(a.keys.runpod)).toEqual([]);
      expect((await t.http.post(`/v1/jobs/${res.body.id}/cancel`).set(a.auth)).status).toBe(409);
    },
  );

  it.concurrent('refuses a max_cost below one minute of the cheapest allowed offer, with the numbers', async () => {
    const a = await accountWith(['runpod']);
    const res = await t.http
      .post('/v1/jobs')
      .set(a.auth)
      .send({ gpu: 'rtx-4090', template: 'pytorch', command: 'true', max_cost: 0.001 });
    expect(res.status).toBe(422);
    expect(res.body.error.message).toMatch(
      /max_cost \$0\.001 is below one minute \(\$0\.0115\) of the cheapest allowed offer \(\$0\.69\/h\)/,
    );
    const missing = await t.http.post('/v1/jobs').set(a.auth).send({ gpu: 'rtx-4090', template: 'pytorch' });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toContain('command');
    // Lambda launches no instance without an SSH key: asked for by name without one, the job is refused.
    const keyless = await t.connectedAccount('lambda', { sshKey: false });
    const lambda = await t.http
      .post('/v1/jobs')
      .set(keyless.auth)
      .send({ gpu: 'a10-24gb', template: 'pytorch', command: 'true', providers: ['lambda'] });
    expect([lambda.status, lambda.body.error.message]).toEqual([422, expect.stringMatching(/default SSH key/)]);
  });
});

/** `gpuo <args>` as a child process against the test API, its output kept as it comes. */
function gpuoChild(args: string[], apiKey: string, configDir: string) {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'gpuo.js'), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, GPUO_API_URL: publicBaseUrl, GPUO_API_KEY: apiKey, GPUO_CONFIG_DIR: configDir },
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out.stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (out.stderr += c));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { out, exited, kill: () => child.kill('SIGKILL') };
}

describe('logs', () => {
  it.concurrent.each(['runpod', 'vastai'] as const)(
    'on %s: a running attempt’s tail; a follow (API and gpuo jobs logs -f) gets a line printed after it started ' +
      'and ends with the exit code; the ended attempt’s tail; never the env; 404 for another account',
    async (provider) => {
      t.sims.vastai.control.setLogDelay(200);
      const a = await accountWith([provider]);
      const dir = await mkdtemp(join(tmpdir(), 'gpuo-logs-test-'));
      let cli: ReturnType<typeof gpuoChild> | undefined;
      try {
        const res = await t.http
          .post('/v1/jobs')
          .set(a.auth)
          .send({
            gpu: 'rtx-4090',
            template: 'pytorch',
            providers: [provider],
            spot_policy: 'on-demand',
            // Prints a line, then another only once the test says so (the file), then exits 3.
            command:
              `echo "first line"; while [ ! -e '${dir}/go' ]; do sleep 0.1; done; ` +
              'echo "after the request"; exit 3',
            env: { API_TOKEN: 'env-hush-77' },
          })
          .expect(201);
        const id = res.body.id as string;
        const logsOf = (query = '', auth = a.auth) => t.http.get(`/v1/jobs/${id}/logs${query}`).set(auth);
        const running = await eventually(
          'the running attempt to print its first line',
          async () => {
            const r = await logsOf();
            return r.status === 200 && r.text.includes('first line') ? r : undefined;
          },
          60_000,
          200,
        );
        expect(running.headers['content-type']).toMatch(/^text\/plain/);
        expect(running.text).toBe('first line\n');
        // The job names its instance once the provider has answered the create (the shipped tail may come first).
        const instanceId = await eventually(
          'the job to name its instance',
          async () => (await getJob(a.auth, id)).attempts[0]?.instance_id ?? undefined,
          30_000,
          100,
        );
        const byInstance = await t.http.get(`/v1/compute/${instanceId}/logs`).set(a.auth);
        expect([byInstance.status, byInstance.text]).toEqual([200, 'first line\n']);

        // The provider failing: 503 in the usual error shape, and nothing changed.
        t.sims[provider].control.serverErrors(1, { match: { key: a.keys[provider], path: /logs/ } });
        const down = await logsOf();
        expect([down.status, down.body.error.code]).toEqual([503, 'provider_unavailable']);
        // The job goes on (its status may still be catching up with the attempt's start).
        const after = await getJob(a.auth, id);
        expect([after.status === 'pending' || after.status === 'running', after.attempts[0]!.ended_at]).toEqual([
          true,
          null,
        ]);

        const other = await t.newAccount();
        expect((await logsOf('', other.auth)).status).toBe(404);
        expect((await t.http.get(`/v1/compute/${instanceId}/logs`).set(other.auth)).status).toBe(404);

        // Two followers, started while the command waits: the API's event stream and the CLI.
        const response = await fetch(`${publicBaseUrl}/v1/jobs/${id}/logs?follow=true`, { headers: a.auth });
        expect([response.status, response.headers.get('content-type')]).toEqual([
          200,
          'text/event-stream; charset=utf-8',
        ]);
        let sse = '';
        const streamed = (async () => {
          const decoder = new TextDecoder();
          for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) sse += decoder.decode(chunk);
        })();
        cli = gpuoChild(['jobs', 'logs', id, '-f'], a.apiKey, dir);
        const { out } = cli;
        await eventually(
          'both followers to show the first line',
          () => (sse.includes('data: first line\n\n') && out.stdout.includes('first line') ? true : undefined),
          60_000,
        );
        await writeFile(join(dir, 'go'), '');
        await streamed;
        expect(sse).toContain('data: after the request\n\n');
        expect(sse.startsWith(': keep-alive\n\n')).toBe(true);
        expect(sse.endsWith('event: end\ndata: {"status":"failed","exit_code":3}\n\n')).toBe(true);
        expect(await cli.exited).toBe(0);
        expect(out.stdout).toBe('first line\nafter the request\n');
        expect(out.stderr).toContain(`job ${id} ended: failed, exit code 3`);

        // Ended: the instance is gone at the provider, so the tail the job reported answers.
        const ended = await logsOf('?attempt=1');
        expect(ended.text).toBe('first line\nafter the request\n');
        expect((await logsOf('?tail=1')).text).toBe('after the request\n');
        expect((await logsOf('?attempt=2')).status).toBe(404);
        expect((await logsOf('?tail=5001')).status).toBe(400);
        expect((await t.http.get(`/v1/compute/${instanceId}/logs`).set(a.auth)).text).toBe(ended.text);
        const again = await fetch(`${publicBaseUrl}/v1/jobs/${id}/logs?follow=true`, { headers: a.auth });
        expect(await again.text()).toBe(
          ': keep-alive\n\ndata: first line\n\ndata: after the request\n\n' +
            'event: end\ndata: {"status":"failed","exit_code":3}\n\n',
        );
        for (const text of [running.text, sse, ended.text, out.stdout, out.stderr])
          expect(text).not.toContain('env-hush-77');
      } finally {
        cli?.kill();
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it.concurrent.each([
    [0, 'succeeded'],
    [3, 'failed'],
  ] as const)(
    'on Lambda (cloud-init user_data), a job exiting %i ends %s, its command run in the job’s image by Docker with ' +
      'its env; its running logs are the shipped tail, a follow ends with the exit code, the ended logs are the ' +
      'final tail; a forged or late tail changes nothing',
    async (code, status) => {
      const a = await t.connectedAccount('lambda');
      // One case names a template, the other an image: either way the VM pulls and runs that image.
      const image = code === 0 ? 'pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime' : 'ghcr.io/acme/trainer';
      const ref = code === 0 ? image : `${image}:latest`;
      const pulled = `Unable to find image '${ref}' locally\nStatus: Downloaded newer image for ${ref}\n`;
      const dir = await mkdtemp(join(tmpdir(), 'gpuo-lambda-job-'));
      let cli: ReturnType<typeof gpuoChild> | undefined;
      try {
        const res = await t.http
          .post('/v1/jobs')
          .set(a.auth)
          .send({
            gpu: 'a10-24gb',
            ...(code === 0 ? { template: 'pytorch' } : { docker_image: image }),
            providers: ['lambda'],
            env: { RUN_NAME: "lambda's run" },
            // The container has the job's env and not the wrapper's token.
            command:
              `[ "$RUN_NAME" = "lambda's run" ] && [ -z "$GPUO_EXIT_TOKEN" ] || exit 9; echo "first line"; ` +
              `while [ ! -e '${dir}/go' ]; do sleep 0.1; done; echo "last line"; exit ${code}`,
          })
          .expect(201);
        const id = res.body.id as string;
        const logsOf = (path = `/v1/jobs/${id}/logs`) => t.http.get(path).set(a.auth).expect(200);
        // Lambda has no log API: the line is there once the wrapper shipped it.
        const running = await eventually(
          'the running attempt’s shipped tail',
          async () => ((await logsOf()).text === `${pulled}first line\n` ? getJob(a.auth, id) : undefined),
          60_000,
          200,
        );
        expect(running.attempts[0]).toMatchObject({ provider: 'lambda', ended_at: null });
        // The job names its instance once Lambda has answered the launch (the shipped tail may come first); the
        // instance's own log route serves the same tail.
        const instanceId = await eventually(
          'the job to name its instance',
          async () => (await getJob(a.auth, id)).attempts[0]?.instance_id ?? undefined,
          30_000,
          100,
        );
        const byInstance = await t.http.get(`/v1/compute/${instanceId}/logs`).set(a.auth);
        expect([byInstance.status, byInstance.text]).toEqual([200, `${pulled}first line\n`]);
        // The launch carried the wrapper as a first-boot script; its token is the only one that speaks for it.
        const launch = t.sims.lambda.control
          .requests({ method: 'POST', path: /instance-operations\/launch$/ })
          .find((r) => (r.response as { data?: { instance_ids?: string[] } }).data?.instance_ids?.[0] === instanceId)!;
        const userData = (launch.body as { user_data: string }).user_data;
        expect(userData.startsWith('#!/bin/sh\n')).toBe(true);
        // The wrapper stays on the VM and starts the image; the env's value is exported there, never an argument.
        expect(userData).toContain(
          `docker run --rm --gpus all --network host -e RUN_NAME --entrypoint sh -- '\\''${image}'\\''`,
        );
        expect(userData.split("lambda'\\''s run").length - 1).toBe(1);
        const token = /GPUO_EXIT_TOKEN='([^']+)'/.exec(userData)![1]!;
        const forged = await t.http.post('/v1/jobs/tail').send({ token: `${token}x`, tail: 'forged' });
        expect(forged.status).toBe(401);
        expect((await logsOf()).text).toBe(`${pulled}first line\n`);

        // Followed while the command waits: by the API (code 0) or by `gpuo jobs logs -f` (code 3).
        let sse = '';
        let streamed: Promise<void>;
        if (code === 0) {
          const response = await fetch(`${publicBaseUrl}/v1/jobs/${id}/logs?follow=true`, { headers: a.auth });
          expect(response.status).toBe(200);
          streamed = (async () => {
            const decoder = new TextDecoder();
            for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
              sse += decoder.decode(chunk);
          })();
          await eventually('the follow to pass the first line', () => (sse.includes('first line') ? true : undefined));
        } else {
          cli = gpuoChild(['jobs', 'logs', id, '-f'], a.apiKey, dir);
          const { out } = cli;
          streamed = cli.exited.then(() => undefined);
          await eventually('the CLI to print the first line', () => (out.stdout.includes('first') ? true : undefined));
        }
        await writeFile(join(dir, 'go'), '');
        await streamed;
        const end = `{"status":"${status}","exit_code":${code}}`;
        if (code === 0) {
          expect(sse).toMatch(/data: first line\n\n(: keep-alive\n\n)*data: last line\n\n/);
          expect(sse.endsWith(`event: end\ndata: ${end}\n\n`)).toBe(true);
        } else {
          expect([await cli!.exited, cli!.out.stdout]).toEqual([0, `${pulled}first line\nlast line\n`]);
          expect(cli!.out.stderr).toContain(`job ${id} ended: failed, exit code 3`);
        }

        const job = await waitFor(a.auth, id, 'the job to end', ended);
        expect(job).toMatchObject({ status, exit_code: code });
        expect(job.attempts).toEqual([
          expect.objectContaining({ provider: 'lambda', end_reason: 'exited', exit_code: code }),
        ]);
        // As on the other providers: ended after the report, paid up to that end and no further.
        const ending = await instanceEnd(instanceId);
        const reported = await reportedAt(id, 1);
        expect(ending.status).toBe('terminated');
        endedAfterReport(ending, reported);
        expect(t.sims.lambda.control.instances(a.simKey)).toEqual([]);
        expect(Math.round(job.cost * 1e6)).toBe(await ledgerMicros(a.accountId, [instanceId]));
        expect((await logsOf()).text).toBe(`${pulled}first line\nlast line\n`);
        expect(job.attempts[0]!.output_tail).toBe(`${pulled}first line\nlast line`);
        // A tail after the exit report is refused and changes nothing.
        expect((await t.http.post('/v1/jobs/tail').send({ token, tail: 'late' })).status).toBe(409);
        expect((await logsOf(`/v1/compute/${instanceId}/logs`)).text).toBe(`${pulled}first line\nlast line\n`);
      } finally {
        cli?.kill();
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it.concurrent('Lambda has no log API: an instance that ran no job answers 422 saying so', async () => {
    const a = await t.connectedAccount('lambda');
    const launched = await t.http
      .post('/v1/compute/launch')
      .set(a.auth)
      .send({ provider: 'lambda', gpu_type: 'h100-80gb-sxm', gpu_count: 8, region: 'us-east-1' })
      .expect(201);
    const id = launched.body.id as string;
    const res = await t.http.get(`/v1/compute/${id}/logs`).set(a.auth);
    expect([res.status, res.body.error.code]).toEqual([422, 'unsupported_operation']);
    expect(res.body.error.message).toMatch(/lambda has no log API/);
    await t.http.post(`/v1/compute/${id}/terminate`).set(a.auth);
  });
});
