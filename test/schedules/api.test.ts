/**
 * /v1/schedules on the real Temporal dev server: records, validation, each schedule a real Temporal Schedule
 * (ALLOW_ALL overlap, the run workflow as its action), PUT applied to row and Temporal together (an
 * unreachable engine changes neither), pause/resume stopping and restarting real firings, PUT of cron moving
 * the Temporal Schedule's next action times.
 */
import { Client, Connection, ScheduleOverlapPolicy } from '@temporalio/client';
import request from 'supertest';
import { CronExpressionParser } from 'cron-parser';
import { createApp } from '../../src/http/app';
import { createTestContext, type TestContext } from '../helpers/context';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';
import { eventually } from '../helpers/process';

jest.setTimeout(240_000);

let t: TestContext;
let temporal: TemporalTestEnv;
let deadEngine: Connection;
/** The same app, but its Temporal client points at a port where nothing listens. */
let withoutEngine: ReturnType<typeof request>;

beforeAll(async () => {
  t = await createTestContext({ launchTiming: { pollIntervalMs: 500, meterIntervalMs: 2_000 } });
  temporal = await createTemporalTestEnv();
  await temporal.startWorker(t.workerDeps(), t.deps.temporal.taskQueue);
  deadEngine = await Connection.lazy({ address: '127.0.0.1:1' });
  // A 1 s engine bound instead of the default 10 s: the answer is the same 503, three calls sooner.
  withoutEngine = request(
    createApp({
      ...t.deps,
      answerBounds: { ...t.deps.answerBounds, engineMs: 1_000 },
      temporal: { client: new Client({ connection: deadEngine }), taskQueue: t.deps.temporal.taskQueue },
    }).callback(),
  );
});
afterAll(async () => {
  await deadEngine.close();
  await temporal.close();
  await t.close();
});

const body = (extra: Record<string, unknown> = {}) => ({
  name: 'nightly training',
  gpu: 'rtx-4090',
  template: 'pytorch',
  cron: '0 3 * * *',
  ...extra,
});
const next = (cron: string, n: number, after = new Date()) => {
  const it = CronExpressionParser.parse(cron, { tz: 'UTC', currentDate: after });
  return Array.from({ length: n }, () => it.next().toDate().toISOString());
};
const describeSchedule = (id: string) => t.temporal.schedule.getHandle(id).describe();

/**
 * PUT `status` as the SDK does it: a 503 (the engine did not answer within its bound, which a machine running
 * the whole suite can make it miss) changed nothing and is retried after its `Retry-After`; any other answer
 * is returned.
 */
async function putStatus(auth: Record<string, string>, id: string, status: 'active' | 'paused') {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await t.http.put(`/v1/schedules/${id}`).set(auth).send({ status });
    if (res.status !== 503 || Date.now() > deadline) return res;
    await new Promise((r) => setTimeout(r, Math.min(Number(res.headers['retry-after']) || 1, 5) * 1000));
  }
}

// Every test has an account of its own, so they all run at once (jest's maxConcurrency at a time): the
// pause/resume test waits for a real minute boundary, and the others run during that wait. It comes first so
// that it starts first.

// Pause and resume.
it.concurrent('pausing stops real firings and resuming restarts them', async () => {
  // No provider connected: every run records `failed` at once, which is all this test needs to count firings.
  // Two every-minute schedules over the same minute boundary (one wait instead of two): one stays paused, the
  // other is paused and resumed.
  const { auth } = await t.newAccount();
  const create = async (name: string) =>
    (
      await t.http
        .post('/v1/schedules')
        .set(auth)
        .send(body({ name, cron: '* * * * *' }))
        .expect(201)
    ).body.id as string;
  const [held, resumedId] = await Promise.all([create('held'), create('resumed')]);
  const runs = async (id: string) =>
    (await t.http.get(`/v1/schedules/${id}/runs`).set(auth).expect(200)).body.data as {
      status: string;
      scheduled_at: string;
      error: string;
    }[];

  // Paused right away (a firing that slipped in before is counted, not a problem).
  for (const id of [held, resumedId]) {
    const paused = await putStatus(auth, id, 'paused');
    expect(paused.body).toMatchObject({ status: 'paused', next_run_at: null });
    expect((await describeSchedule(id)).state.paused).toBe(true);
  }
  // A manual trigger still runs while paused.
  const countBeforeTrigger = (await runs(held)).length;
  await t.http.post(`/v1/schedules/${held}/trigger`).set(auth).expect(202);
  await eventually(
    'the triggered run',
    async () => ((await runs(held)).length === countBeforeTrigger + 1 ? true : undefined),
    30_000,
    250,
  );
  const countAtPause = (await runs(held)).length;
  const actionsAtPause = (await describeSchedule(held)).info.numActionsTaken;

  const resumedAt = Date.now();
  const resumed = await putStatus(auth, resumedId, 'active');
  expect(resumed.body).toMatchObject({ status: 'active', next_run_at: next('* * * * *', 1)[0] });
  expect((await describeSchedule(resumedId)).state.paused).toBe(false);
  const firing = await eventually(
    'a firing after resume',
    async () => {
      const fired = (await runs(resumedId)).find((r) => Date.parse(r.scheduled_at) > resumedAt);
      return fired && Date.now() > Date.parse(fired.scheduled_at) + 5_000 ? fired : undefined;
    },
    75_000,
    500,
  );
  // A real firing: on a minute boundary after the resume, and the schedule's last_run_at.
  expect(firing.scheduled_at).toMatch(/:00\.000Z$/);
  await eventually('the run to fail for want of a provider', async () =>
    (await runs(resumedId))[0]!.status === 'failed' ? true : undefined,
  );
  expect((await runs(resumedId))[0]!.error).toMatch(/no available offer for rtx-4090/);
  expect((await t.http.get(`/v1/schedules/${resumedId}`).set(auth)).body.last_run_at).toBe(
    (await runs(resumedId))[0]!.scheduled_at,
  );
  // The same minute boundary passed (5 s ago) for the paused one: nothing fired.
  expect((await runs(held)).length).toBe(countAtPause);
  expect((await describeSchedule(held)).info.numActionsTaken).toBe(actionsAtPause);
  await Promise.all([held, resumedId].map((id) => t.http.delete(`/v1/schedules/${id}`).set(auth).expect(200)));
});

// Records and the Temporal Schedule behind each.
it.concurrent(
  'creates, lists, reads, updates and deletes; the Temporal Schedule starts the run workflow with ALLOW_ALL overlap',
  async () => {
    const { auth } = await t.newAccount();
    const created = await t.http
      .post('/v1/schedules')
      .set(auth)
      .send(body({ max_cost: 12.5, max_duration_hours: 1.5, startup_script: 'python train.py\n' }));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^sched_[1-9A-HJ-NP-Za-km-z]{22}$/),
      name: 'nightly training',
      gpu: 'rtx-4090',
      template: 'pytorch',
      cron: '0 3 * * *',
      max_duration_hours: 1.5,
      max_cost: 12.5,
      prefer_spot: true,
      docker_image: null,
      startup_script: 'python train.py\n',
      status: 'active',
      next_run_at: next('0 3 * * *', 1)[0],
      last_run_at: null,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    const id = created.body.id as string;

    const described = await describeSchedule(id);
    expect(described.policies.overlap).toBe(ScheduleOverlapPolicy.ALLOW_ALL);
    expect(described.state.paused).toBe(false);
    expect(described.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'scheduleRun',
      workflowId: `${id}-run`,
      taskQueue: t.deps.temporal.taskQueue,
    });
    expect(described.info.nextActionTimes[0]!.toISOString()).toBe(created.body.next_run_at);

    expect((await t.http.get('/v1/schedules').set(auth).expect(200)).body).toEqual({
      data: [created.body],
      has_more: false,
      next_cursor: null,
    });
    expect((await t.http.get(`/v1/schedules/${id}`).set(auth).expect(200)).body).toEqual(created.body);

    const custom = await t.http
      .put(`/v1/schedules/${id}`)
      .set(auth)
      .send({ template: 'custom', docker_image: 'ghcr.io/acme/train:1.2', max_cost: null, prefer_spot: false });
    expect(custom.status).toBe(200);
    expect(custom.body).toMatchObject({
      template: 'custom',
      docker_image: 'ghcr.io/acme/train:1.2',
      max_cost: null,
      prefer_spot: false,
      max_duration_hours: 1.5,
    });
    // Back to a catalog template: the custom image goes with it.
    const back = await t.http.put(`/v1/schedules/${id}`).set(auth).send({ template: 'vllm' });
    expect(back.body).toMatchObject({ template: 'vllm', docker_image: null });

    const deleted = await t.http.delete(`/v1/schedules/${id}`).set(auth);
    expect(deleted.body).toEqual({ id, deleted: true });
    await expect(describeSchedule(id)).rejects.toThrow();
    expect((await t.http.get('/v1/schedules').set(auth)).body).toEqual({
      data: [],
      has_more: false,
      next_cursor: null,
    });
    expect((await t.http.delete(`/v1/schedules/${id}`).set(auth)).status).toBe(404);
  },
);

it.concurrent("PUT of cron moves the Temporal Schedule's next action times", async () => {
  const { auth } = await t.newAccount();
  const { id } = (
    await t.http
      .post('/v1/schedules')
      .set(auth)
      .send(body({ cron: '0 0 * * *' }))
      .expect(201)
  ).body;
  const before = (await describeSchedule(id)).info.nextActionTimes.map((d) => d.toISOString());
  expect(before).toEqual(next('0 0 * * *', before.length));
  const res = await t.http.put(`/v1/schedules/${id}`).set(auth).send({ cron: '30 12 13 * 1' });
  expect(res.status).toBe(200);
  expect(res.body.cron).toBe('30 12 13 * 1');
  const after = (await describeSchedule(id)).info.nextActionTimes.map((d) => d.toISOString());
  expect(after).toEqual(next('30 12 13 * 1', after.length));
  expect(after[0]).toBe(res.body.next_run_at);
  expect(after).not.toEqual(before);
  await t.http.delete(`/v1/schedules/${id}`).set(auth).expect(200);
});

it.concurrent('an unreachable engine is a 503 that leaves the row and the Temporal Schedule as they were', async () => {
  const { auth } = await t.newAccount();
  const { id } = (
    await t.http
      .post('/v1/schedules')
      .set(auth)
      .send(body({ cron: '0 0 * * *' }))
      .expect(201)
  ).body;
  const before = (await t.http.get(`/v1/schedules/${id}`).set(auth)).body;

  const put = await withoutEngine
    .put(`/v1/schedules/${id}`)
    .set(auth)
    .send({ cron: '*/5 * * * *', status: 'paused', max_cost: 3 });
  expect(put.status).toBe(503);
  expect(put.body.error.code).toBe('service_unavailable');
  expect(put.headers['retry-after']).toBeDefined();
  expect((await t.http.get(`/v1/schedules/${id}`).set(auth)).body).toEqual(before);
  const described = await describeSchedule(id);
  expect(described.state.paused).toBe(false);
  expect(described.info.nextActionTimes[0]!.toISOString()).toBe(next('0 0 * * *', 1)[0]);

  const post = await withoutEngine
    .post('/v1/schedules')
    .set(auth)
    .send(body({ name: 'never made' }));
  expect(post.status).toBe(503);
  const del = await withoutEngine.delete(`/v1/schedules/${id}`).set(auth);
  expect(del.status).toBe(503);
  expect((await t.http.get('/v1/schedules').set(auth)).body.data.map((s: { id: string }) => s.id)).toEqual([id]);
  await describeSchedule(id); // still there
  await t.http.delete(`/v1/schedules/${id}`).set(auth).expect(200);
});

// Validation.
it.concurrent.each([
  ['missing name', { name: undefined }, 'name'],
  ['missing cron', { cron: undefined }, 'cron'],
  ['unknown gpu', { gpu: 'tpu-v5' }, 'gpu'],
  ['unknown template', { template: 'nope' }, 'template'],
  ['custom without docker_image', { template: 'custom' }, 'docker_image'],
  ['docker_image with a catalog template', { docker_image: 'ghcr.io/acme/x:1' }, 'docker_image'],
  ['a docker_image with spaces', { template: 'custom', docker_image: 'acme x' }, 'docker_image'],
  ['max_cost zero', { max_cost: 0 }, 'max_cost'],
  ['max_cost with seven decimals', { max_cost: 0.0000001 }, 'max_cost'],
  ['max_cost as text', { max_cost: '5' }, 'max_cost'],
  ['max_duration_hours negative', { max_duration_hours: -1 }, 'max_duration_hours'],
  ['max_duration_hours over 30 days', { max_duration_hours: 721 }, 'max_duration_hours'],
  ['prefer_spot as text', { prefer_spot: 'yes' }, 'prefer_spot'],
  ['a NUL in the name', { name: 'a\u0000b' }, 'name'],
  ['a control character in the script', { startup_script: 'echo \u0007' }, 'startup_script'],
  ['an unknown field', { status: 'paused' }, 'status'],
  ['a server-owned field', { next_run_at: '2030-01-01T00:00:00Z' }, 'next_run_at'],
])('POST with %s is a 400 naming the field', async (_what, extra, path) => {
  const { auth } = await t.newAccount();
  const res = await t.http.post('/v1/schedules').set(auth).send(body(extra));
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('validation_error');
  expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  expect((await t.http.get('/v1/schedules').set(auth)).body.data).toEqual([]);
});

it.concurrent('PUT refuses an empty change, bad values and unknown fields, and keeps the row', async () => {
  const { auth } = await t.newAccount();
  const created = (await t.http.post('/v1/schedules').set(auth).send(body()).expect(201)).body;
  for (const change of [
    {},
    { status: 'stopped' },
    { cron: '0 0 * *' },
    { id: 'sched_x' },
    { template: 'custom' },
    { name: null },
  ]) {
    const res = await t.http.put(`/v1/schedules/${created.id}`).set(auth).send(change);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
  }
  expect((await t.http.get(`/v1/schedules/${created.id}`).set(auth)).body).toEqual(created);
  await t.http.delete(`/v1/schedules/${created.id}`).set(auth).expect(200);
});

it.concurrent("another account's schedule is a 404 everywhere; bad paging is a 400", async () => {
  const owner = await t.newAccount();
  const other = await t.newAccount();
  const { id } = (await t.http.post('/v1/schedules').set(owner.auth).send(body()).expect(201)).body;
  expect((await t.http.get(`/v1/schedules/${id}`).set(other.auth)).status).toBe(404);
  expect((await t.http.put(`/v1/schedules/${id}`).set(other.auth).send({ status: 'paused' })).status).toBe(404);
  expect((await t.http.delete(`/v1/schedules/${id}`).set(other.auth)).status).toBe(404);
  expect((await t.http.get(`/v1/schedules/${id}/runs`).set(other.auth)).status).toBe(404);
  expect((await t.http.post(`/v1/schedules/${id}/trigger`).set(other.auth)).status).toBe(404);
  expect((await t.http.get('/v1/schedules').set(other.auth)).body.data).toEqual([]);
  expect((await describeSchedule(id)).state.paused).toBe(false);
  expect((await t.http.get(`/v1/schedules/${id}/runs?limit=0`).set(owner.auth)).status).toBe(400);
  expect((await t.http.get(`/v1/schedules/${id}/runs?cursor=bogus`).set(owner.auth)).status).toBe(400);
  expect((await t.http.get(`/v1/schedules/${id}/runs`).set(owner.auth)).body).toEqual({
    data: [],
    has_more: false,
    next_cursor: null,
  });
  expect((await t.http.get('/v1/schedules')).status).toBe(401);
  await t.http.delete(`/v1/schedules/${id}`).set(owner.auth).expect(200);
});
