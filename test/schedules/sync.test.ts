/**
 * The schedules row and its Temporal Schedule kept in step (src/workflow-clients/schedule-sync.ts), on the real
 * Temporal dev server: an engine that refuses the create leaves no row; reconciliation makes a missing
 * Schedule (a crash between the create's two steps), puts an out-of-step one back as its row is, and deletes
 * a Schedule of ours that has no row, leaving other deployments' alone.
 */
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { connectTemporal } from '../../src/workflow-clients/connection';
import request from 'supertest';
import { createApp } from '../../src/http/app';
import { createLimitQueries } from '../../src/db/queries/limits';
import { createScheduleQueries, type ScheduleRow } from '../../src/db/queries/schedules';
import { newId } from '../../src/domain/ids';
import { DEFAULT_LIMITS } from '../../src/domain/limits';
import { KeyVault } from '../../src/domain/key-vault';
import { temporalDataConverter } from '../../src/workflow-clients/payload-codec';
import { createScheduleSync } from '../../src/workflow-clients/schedule-sync';
import { createScheduleClient } from '../../src/workflow-clients/schedules';
import { createTestContext, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/process';
import { TEST_DATA_CONVERTER, uniqueTaskQueue } from '../helpers/temporal';

jest.setTimeout(120_000);

const TIMING = { pollIntervalMs: 500, meterIntervalMs: 2_000 };
let t: TestContext;
let refusingEngine: Connection;
let sync: ReturnType<typeof createScheduleSync>;

beforeAll(async () => {
  t = await createTestContext({ launchTiming: TIMING });
  refusingEngine = await connectTemporal({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  const queries = createScheduleQueries(t.deps.pool);
  sync = createScheduleSync({
    queries,
    limits: createLimitQueries(t.deps.pool, DEFAULT_LIMITS),
    engine: createScheduleClient({ temporal: t.deps.temporal, timing: TIMING }),
  });
});
afterAll(async () => {
  await refusingEngine.close();
  await t.close();
});

const body = (extra: Record<string, unknown> = {}) => ({
  name: 'nightly',
  gpu: 'rtx-4090',
  template: 'pytorch',
  cron: '0 3 * * *',
  ...extra,
});
const describeSchedule = (id: string) => t.temporal.schedule.getHandle(id).describe();
/** Reconciliation passes (the namespace listing Temporal answers from lags a little) until `done`. */
async function reconcileUntil(what: string, done: () => Promise<boolean>) {
  const seen = { created: [] as string[], aligned: [] as string[], removed: [] as string[], failed: [] as string[] };
  await eventually(
    what,
    async () => {
      const r = await sync.reconcile({ settleMs: 0 });
      for (const k of Object.keys(seen) as (keyof typeof seen)[]) seen[k].push(...r[k]);
      return (await done()) ? true : undefined;
    },
    30_000,
    500,
  );
  return seen;
}
const exists = (id: string) =>
  describeSchedule(id).then(
    () => true,
    () => false,
  );
const scheduleRows = async (accountId: string) =>
  t.sql<{ id: string; deleted_at: string | null }>('SELECT id, deleted_at FROM schedules WHERE account_id = $1', [
    accountId,
  ]);

it('a create the engine refuses leaves no row behind (and does not use up the limit)', async () => {
  const { accountId, auth } = await t.newAccount();
  // The same app, but its Temporal client names a namespace the server does not have: every call is refused.
  const refusing = request(
    createApp({
      ...t.deps,
      temporal: {
        client: new Client({
          connection: refusingEngine,
          namespace: 'no-such-namespace',
          dataConverter: TEST_DATA_CONVERTER,
        }),
        taskQueue: t.deps.temporal.taskQueue,
      },
    }).callback(),
  );
  const refused = await refusing.post('/v1/schedules').set(auth).send(body());
  expect(refused.status).toBeGreaterThanOrEqual(500);
  expect(refused.body.error.code).toEqual(expect.any(String));
  expect(await scheduleRows(accountId)).toEqual([]);
  expect((await t.http.get('/v1/schedules').set(auth).expect(200)).body.data).toEqual([]);
  // Then with the real engine: created, and it is the only row.
  const { id } = (await t.http.post('/v1/schedules').set(auth).send(body()).expect(201)).body;
  expect((await scheduleRows(accountId)).map((r) => r.id)).toEqual([id]);
  await describeSchedule(id);
});

it('reconciliation makes the Schedule of a row that has none (a crash between the two steps)', async () => {
  const { accountId, auth } = await t.newAccount();
  const active = (await t.http.post('/v1/schedules').set(auth).send(body()).expect(201)).body;
  const paused = (
    await t.http
      .post('/v1/schedules')
      .set(auth)
      .send(body({ name: 'paused one' }))
      .expect(201)
  ).body;
  await t.http.put(`/v1/schedules/${paused.id}`).set(auth).send({ status: 'paused' }).expect(200);
  // What a crash after the row's commit leaves: the row, no Schedule.
  for (const id of [active.id, paused.id]) await t.temporal.schedule.getHandle(id).delete();
  const row = await createScheduleQueries(t.deps.pool).transaction((tx) =>
    createScheduleQueries(t.deps.pool).insert(tx, accountId, {
      name: 'crashed create',
      gpu: 'rtx-4090',
      template: 'pytorch',
      cron: '0 4 * * *',
      max_duration_hours: null,
      max_cost_micros: null,
      prefer_spot: true,
      docker_image: null,
      startup_script: null,
      status: 'active',
    }),
  );

  // A just-changed row is left to the request changing it.
  expect((await sync.reconcile()).created).not.toContain(row.id);
  expect(await exists(row.id)).toBe(false);
  const seen = await reconcileUntil('the missing Schedules to be made', async () =>
    (await Promise.all([active.id, paused.id, row.id].map(exists))).every(Boolean),
  );
  expect(seen.created).toContain(row.id);
  expect(seen.failed).toEqual([]);
  const made = await describeSchedule(row.id);
  expect(made.state.paused).toBe(false);
  expect(made.action).toMatchObject({
    type: 'startWorkflow',
    workflowType: 'scheduleRun',
    workflowId: `${row.id}-run`,
    taskQueue: t.deps.temporal.taskQueue,
  });
  expect((await describeSchedule(paused.id)).state.paused).toBe(true);
  // The API shows it as the Schedule fires it.
  const shown = (await t.http.get(`/v1/schedules/${row.id}`).set(auth).expect(200)).body;
  expect(shown.next_run_at).toBe(made.info.nextActionTimes[0]!.toISOString());
  // Once in step (and listed), a pass leaves it alone.
  await eventually(
    'a pass that leaves the made Schedule alone',
    async () => {
      const r = await sync.reconcile({ settleMs: 0 });
      return [...r.created, ...r.aligned].includes(row.id) ? undefined : true;
    },
    30_000,
    500,
  );
});

it('reconciliation puts back a Schedule changed behind its row, and deletes one of ours that has no row', async () => {
  const { auth } = await t.newAccount();
  const { id } = (await t.http.post('/v1/schedules').set(auth).send(body()).expect(201)).body;
  // The engine took a change whose row never committed (and the put-back failed): paused, another cron.
  await t.temporal.schedule.getHandle(id).update((previous) => ({
    ...previous,
    spec: { cronExpressions: ['0 5 * * *'] },
    state: { ...previous.state, paused: true, note: 'drifted' },
  }));

  const engine = createScheduleClient({ temporal: t.deps.temporal, timing: TIMING });
  const orphan: ScheduleRow = {
    ...(await t.http.get(`/v1/schedules/${id}`).set(auth)).body,
    id: newId('sched'),
    account_id: 'acct_gone',
    max_cost_micros: null,
    deleted_at: null,
  };
  await engine.create(orphan);
  // Another deployment's Schedule in the same namespace (its own task queue and database): not ours to delete.
  const foreignEngine = createScheduleClient({
    temporal: { client: t.temporal, taskQueue: uniqueTaskQueue('other-deployment') },
    timing: TIMING,
  });
  const foreign: ScheduleRow = { ...orphan, id: newId('sched') };
  await foreignEngine.create(foreign);
  // ...and one sealed with keys this process does not hold: listed as unreadable, never failing the pass.
  const sealedElsewhere = new Client({
    connection: t.temporal.connection,
    dataConverter: temporalDataConverter(new KeyVault('elsewhere', randomBytes(32))),
  });
  const unreadable: ScheduleRow = { ...orphan, id: newId('sched') };
  await createScheduleClient({
    temporal: { client: sealedElsewhere, taskQueue: uniqueTaskQueue('sealed-elsewhere') },
    timing: TIMING,
  }).create(unreadable);

  const seen = await reconcileUntil(
    'the orphan to be deleted and the drifted Schedule put back',
    async () => !(await exists(orphan.id)) && !(await describeSchedule(id)).state.paused,
  );
  expect([...seen.aligned, ...seen.created]).toContain(id);
  expect(seen.removed).toContain(orphan.id);
  expect(seen.removed).not.toContain(foreign.id);
  expect(seen.removed).not.toContain(unreadable.id);
  expect(seen.failed).toEqual([]);
  const repaired = await describeSchedule(id);
  expect(repaired.state.paused).toBe(false);
  expect(repaired.info.nextActionTimes[0]!.toISOString()).toBe(
    (await t.http.get(`/v1/schedules/${id}`).set(auth)).body.next_run_at,
  );
  expect(repaired.info.nextActionTimes[0]!.getUTCHours()).toBe(3);
  await expect(describeSchedule(orphan.id)).rejects.toThrow();
  await describeSchedule(foreign.id);
  await t.temporal.schedule.getHandle(foreign.id).delete();
  await sealedElsewhere.schedule.getHandle(unreadable.id).delete();
});
