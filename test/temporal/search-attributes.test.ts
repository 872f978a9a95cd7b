/**
 * Search attributes on the real dev server (registered by test/global-setup.ts like the local default does):
 * a launch carries the account and provider from its start and the provider's instance id once created,
 * across continue-as-new runs too; a refused launch carries account and provider; the pricing schedule and
 * its runs carry the schedule id. Listing by them is what an operator does in the Temporal UI.
 */
import request from 'supertest';
import { createApp } from '../../src/http/app';
import { Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common';
import { ensureSearchAttributes } from '../../src/workflow-clients/register-search-attributes';
import { ensurePricingSchedule } from '../../src/workflow-clients/service-schedules';
import { accountRunsQuery, runSearchAttributes, SEARCH_ATTRIBUTES } from '../../workflows/contracts/search-attributes';
import { ed25519Key } from '../fixtures/ssh-keys';
import { createTestContext, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/process';
import { createTemporalTestEnv, TEST_DATA_CONVERTER, type TemporalTestEnv } from '../helpers/temporal';

jest.setTimeout(120_000);

let t: TestContext;
let temporal: TemporalTestEnv;

beforeAll(async () => {
  t = await createTestContext({ simulators: true });
  temporal = await createTemporalTestEnv();
  await temporal.startWorker(t.workerDeps(), t.deps.temporal.taskQueue);
  t.sims.vastai.control.setBootDelay(200);
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

interface Run {
  workflowId: string;
  runId: string;
  type: string;
  status: string;
  attrs: Record<string, unknown>;
}

async function list(query: string): Promise<Run[]> {
  const runs: Run[] = [];
  for await (const wf of t.temporal.workflow.list({ query })) {
    runs.push({
      workflowId: wf.workflowId,
      runId: wf.runId,
      type: wf.type,
      status: wf.status.name,
      // Ours only (the server adds its own, e.g. BuildIds).
      attrs: Object.fromEntries(
        wf.typedSearchAttributes
          .getAll()
          .filter((p) => p.key.name.startsWith('Gpuo'))
          .map((p) => [p.key.name, p.value]),
      ),
    });
  }
  return runs;
}

it('tags a launch with account and provider at start and the instance id once created, in every run', async () => {
  const fast = request(
    createApp({
      ...t.deps,
      launchTiming: { pollIntervalMs: 100, meterIntervalMs: 250, continueAsNewAfter: 2 },
    }).callback(),
  );
  const a = await t.newAccount();
  await fast
    .post('/v1/settings/providers')
    .set(a.auth)
    .send({ provider: 'vastai', api_key: t.sims.vastai.createKey() })
    .expect(201);
  await fast.post('/v1/ssh-keys').set(a.auth).send({ name: 'laptop', public_key: ed25519Key() }).expect(201);
  const id = (
    await fast.post('/v1/compute/launch').set(a.auth).send({ provider: 'vastai', gpu_type: 'rtx-a6000' }).expect(201)
  ).body.id as string;

  const runs = await eventually(
    'three runs of the launch, listed by account',
    async () => {
      const found = (await list(accountRunsQuery(a.accountId))).filter((r) => r.type === 'launchInstance');
      return found.length >= 3 ? found : undefined;
    },
    60_000,
    250,
  );
  expect(new Set(runs.map((r) => r.workflowId)).size).toBe(1);
  // The account's observer at the provider is found the same way, tagged with account and provider.
  const observers = (await list(accountRunsQuery(a.accountId))).filter((r) => r.type === 'observeProviderInstances');
  expect(observers.length).toBeGreaterThanOrEqual(1);
  for (const run of observers) expect(run.attrs).toEqual({ GpuoAccountId: a.accountId, GpuoProvider: 'vastai' });
  for (const run of runs)
    expect(run.attrs).toEqual({ GpuoAccountId: a.accountId, GpuoProvider: 'vastai', GpuoInstanceId: id });
  expect((await list(`GpuoInstanceId = "${id}" AND ExecutionStatus = "Running"`)).map((r) => r.type)).toEqual([
    'launchInstance',
  ]);
  await fast.post(`/v1/compute/${id}/terminate`).set(a.auth).expect(200);
});

it('tags a refused launch with account and provider (no instance id: nothing was created)', async () => {
  const a = await t.newAccount();
  await t.http
    .post('/v1/settings/providers')
    .set(a.auth)
    .send({ provider: 'runpod', api_key: t.sims.runpod.createKey() })
    .expect(201);
  t.sims.runpod.control.setNoCapacity('rtx-a6000');
  try {
    await t.http.post('/v1/compute/launch').set(a.auth).send({ provider: 'runpod', gpu_type: 'rtx-a6000' }).expect(422);
  } finally {
    t.sims.runpod.control.setNoCapacity('rtx-a6000', false);
  }
  const [run] = await eventually(
    'the failed run listed by account',
    async () => {
      const found = await list(`${accountRunsQuery(a.accountId)} AND ExecutionStatus = "Failed"`);
      return found.length === 1 ? found : undefined;
    },
    30_000,
    250,
  );
  expect(run!.attrs).toEqual({ GpuoAccountId: a.accountId, GpuoProvider: 'runpod' });
  // Another account's query finds none of it.
  const other = await t.newAccount();
  expect(await list(accountRunsQuery(other.accountId))).toEqual([]);
});

it('tags the pricing schedule and the runs it starts with the schedule id', async () => {
  const scheduleId = `pricing-refresh-test-${Date.now()}`;
  await ensurePricingSchedule(t.temporal, {
    taskQueue: t.deps.temporal.taskQueue,
    everyMs: 3_600_000,
    scheduleId,
    triggerNow: true,
  });
  try {
    const description = await t.temporal.schedule.getHandle(scheduleId).describe();
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTES[3])).toBe(scheduleId);
    const runs = await eventually(
      'the triggered run listed by schedule id',
      async () => {
        const found = await list(`GpuoScheduleId = "${scheduleId}"`);
        return found.length >= 1 ? found : undefined;
      },
      30_000,
      250,
    );
    expect(runs.every((r) => r.type === 'pricingRefresh' && r.attrs.GpuoScheduleId === scheduleId)).toBe(true);
    // A second ensure (every worker start) converges on the same schedule and keeps the attribute on its runs.
    await ensurePricingSchedule(t.temporal, { taskQueue: t.deps.temporal.taskQueue, everyMs: 1_800_000, scheduleId });
    const updated = (await t.temporal.schedule.getHandle(scheduleId).describe()).action.typedSearchAttributes;
    const pairs = Array.isArray(updated) ? updated : (updated?.getAll() ?? []);
    expect(pairs.find((p) => p.key.name === 'GpuoScheduleId')?.value).toBe(scheduleId);
  } finally {
    await t.temporal.schedule.getHandle(scheduleId).delete();
  }
});

it('registers the attributes on a namespace lacking them (as the worker does at start), idempotently', async () => {
  const namespace = `gpuo-sa-${Date.now()}`;
  await t.temporal.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  const client = new Client({ connection: t.temporal.connection, namespace, dataConverter: TEST_DATA_CONVERTER });
  const start = (id: string) =>
    client.workflow.start('healthProbe', {
      taskQueue: 'nobody-polls-this',
      workflowId: id,
      args: [{ message: 'x' }],
      typedSearchAttributes: runSearchAttributes({ accountId: 'acct_sa', provider: 'runpod' }),
    });
  // A fresh namespace refuses a start that names our attributes...
  await eventually(
    'the new namespace to answer',
    async () => {
      try {
        await start('sa-before');
        return 'started';
      } catch (err) {
        const messages: string[] = [];
        for (let e: unknown = err; e instanceof Object && messages.length < 5; e = (e as { cause?: unknown }).cause)
          messages.push(String((e as Error).message));
        return /GpuoAccountId|search attribute/i.test(messages.join(' ')) ? 'refused' : undefined;
      }
    },
    30_000,
    250,
  ).then((outcome) => expect(outcome).toBe('refused'));

  expect((await ensureSearchAttributes(client, namespace)).sort()).toEqual(SEARCH_ATTRIBUTES.map((k) => k.name).sort());
  expect(await ensureSearchAttributes(client, namespace)).toEqual([]);
  // ...and accepts it once they are registered; the run is then found by them.
  const handle = await eventually(
    'a start with our attributes accepted',
    async () => {
      try {
        return await start('sa-after');
      } catch {
        return undefined;
      }
    },
    30_000,
    250,
  );
  try {
    const found = await eventually(
      'the run listed by account',
      async () => {
        const ids: string[] = [];
        for await (const wf of client.workflow.list({ query: 'GpuoAccountId = "acct_sa" AND GpuoProvider = "runpod"' }))
          ids.push(wf.workflowId);
        return ids.length ? ids : undefined;
      },
      30_000,
      250,
    );
    expect(found).toEqual(['sa-after']);
  } finally {
    await handle.terminate('test done');
  }
});
