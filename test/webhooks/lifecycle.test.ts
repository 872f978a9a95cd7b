/**
 * Deliveries in their retry wait (a long second step: 200 ms, then 60 s): deleting or deactivating the endpoint
 * ends them at once and nothing more is sent; a manual retry attempts now with the same webhook-id; an
 * endpoint failing for longer than the (compressed) 5-day window is deactivated.
 */
import request from 'supertest';
import { createApp } from '../../src/http/app';
import { webhookDeliveryWorkflowId } from '../../workflows/contracts/webhooks';
import { createTestContext, testActivityDeps, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/process';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';
import { startReceiver, startWebhookDispatcher, type Receiver } from '../helpers/webhooks';

jest.setTimeout(120_000);

let t: TestContext;
let temporal: TemporalTestEnv;
let receiver: Receiver;
let http: ReturnType<typeof request>;
let dispatcher: Awaited<ReturnType<typeof startWebhookDispatcher>>;
// Longer than a busy worker's delay between a delivery's first two failures (200 ms apart when idle): a window
// that elapses between them deactivates the endpoint under the other tests' feet.
const DISABLE_AFTER_MS = 10_000;
let firstDispatcherRun: string;

beforeAll(async () => {
  t = await createTestContext();
  http = request(createApp({ ...t.deps, webhooks: { allowedHosts: ['127.0.0.1'] } }).callback());
  temporal = await createTemporalTestEnv();
  receiver = await startReceiver();
  await temporal.startWorker(
    testActivityDeps(t.db.pool, {
      webhooks: {
        databaseUrl: t.db.url,
        settings: {
          allowedHosts: ['127.0.0.1'],
          retryScheduleMs: [200, 60_000, 60_000, 60_000, 60_000, 60_000, 60_000],
          disableAfterMs: DISABLE_AFTER_MS,
          timeoutMs: 2_000,
        },
      },
    }),
    t.deps.temporal.taskQueue,
  );
  // Few batches per run: the dispatcher continues as new many times during this file.
  dispatcher = await startWebhookDispatcher({
    client: t.temporal,
    taskQueue: t.deps.temporal.taskQueue,
    databaseUrl: t.db.url,
    tickMs: 500,
    batchesPerRun: 3,
    pumpMs: 1_000,
  });
  firstDispatcherRun = (await t.temporal.workflow.getHandle(dispatcher.workflows.dispatcherId).describe()).runId;
});
afterAll(async () => {
  await dispatcher.stop();
  await temporal.close();
  await receiver.close();
  await t.close();
});

type Auth = { Authorization: string };
let seq = 0;

interface Delivery {
  id: string;
  status: string;
  attempt_count: number;
  next_attempt_at: string | null;
  attempts: { attempted_at: string; success: boolean; status_code: number | null }[];
}

async function setup(answers: number[]) {
  const a = await t.newAccount();
  const path = `/wait-${++seq}`;
  const res = await http
    .post('/v1/webhooks')
    .set(a.auth)
    .send({ url: receiver.url(path), events: ['webhook.test'] })
    .expect(201);
  receiver.plan(path, answers);
  await http.post(`/v1/webhooks/${res.body.id}/test`).set(a.auth).expect(202);
  const d = await waitingDelivery(a.auth, res.body.id);
  return { auth: a.auth, id: res.body.id as string, path, delivery: d };
}

async function deliveries(auth: Auth, id: string): Promise<Delivery[]> {
  return (await http.get(`/v1/webhooks/${id}/deliveries`).set(auth).expect(200)).body.data;
}

/** The delivery after two failures, in its 60 s wait. */
const waitingDelivery = (auth: Auth, id: string) =>
  eventually(
    'a delivery in its 60 s retry wait',
    async () => {
      const [d] = await deliveries(auth, id);
      return d &&
        d.attempt_count === 2 &&
        d.status === 'pending' &&
        Date.parse(d.next_attempt_at!) - Date.now() > 30_000
        ? d
        : undefined;
    },
    30_000,
    150,
  );

const workflowStatus = async (deliveryId: string) =>
  (await t.temporal.workflow.getHandle(webhookDeliveryWorkflowId(deliveryId)).describe()).status.name;

const workflowClosed = (deliveryId: string) =>
  eventually(
    'the delivery workflow to end',
    async () => {
      const s = await workflowStatus(deliveryId);
      return s === 'RUNNING' ? undefined : s;
    },
    20_000,
    150,
  );

it.concurrent(
  'ends a delivery waiting for its retry when the endpoint is deleted, and sends nothing more',
  async () => {
    const { auth, id, path, delivery } = await setup(Array(10).fill(500));
    expect(await workflowStatus(delivery.id)).toBe('RUNNING');
    await http.delete(`/v1/webhooks/${id}`).set(auth).expect(200);
    expect(await workflowClosed(delivery.id)).toBe('COMPLETED'); // long before the 60 s timer
    expect(receiver.arrivals(path)).toBe(2);
  },
);

it.concurrent(
  'cancels a waiting delivery when the endpoint is deactivated; a reactivated endpoint receives new events',
  async () => {
    const { auth, id, path, delivery } = await setup([500, 500]);
    await http.put(`/v1/webhooks/${id}`).set(auth).send({ active: false }).expect(200);
    expect(await workflowClosed(delivery.id)).toBe('COMPLETED');
    const [d] = await deliveries(auth, id);
    expect(d).toMatchObject({ id: delivery.id, status: 'cancelled', attempt_count: 2, next_attempt_at: null });
    expect(receiver.arrivals(path)).toBe(2);
    expect((await http.post(`/v1/webhooks/${id}/test`).set(auth)).status).toBe(422);
    expect((await http.post(`/v1/webhooks/${id}/deliveries/${delivery.id}/retry`).set(auth)).status).toBe(422);

    await http.put(`/v1/webhooks/${id}`).set(auth).send({ active: true }).expect(200);
    await http.post(`/v1/webhooks/${id}/test`).set(auth).expect(202);
    await eventually('the new event', () => (receiver.on(path).some((r) => r.status === 200) ? true : undefined));
    expect(receiver.on(path).filter((r) => r.id === delivery.id)).toHaveLength(2);
  },
);

it.concurrent('attempts a waiting delivery at once on a manual retry, with the same webhook-id', async () => {
  const { auth, id, path, delivery } = await setup([500, 500]);
  const res = await http.post(`/v1/webhooks/${id}/deliveries/${delivery.id}/retry`).set(auth);
  expect(res.status).toBe(202);
  expect(res.body).toMatchObject({ id: delivery.id, status: 'pending', attempt_count: 2 });
  expect(await workflowClosed(delivery.id)).toBe('COMPLETED');
  const [d] = await deliveries(auth, id);
  expect(d).toMatchObject({ status: 'succeeded', attempt_count: 3 });
  expect(receiver.on(path).map((r) => [r.id, r.status])).toEqual([
    [delivery.id, 500],
    [delivery.id, 500],
    [delivery.id, 200],
  ]);
});

it.concurrent('deactivates an endpoint that keeps failing for longer than the window, and not before', async () => {
  const { auth, id, delivery } = await setup(Array(200).fill(500));
  // Manual retries make more failed attempts; the endpoint stays active until its streak spans the window.
  const deactivated = await eventually(
    'the endpoint to be deactivated',
    async () => {
      const ep = (await http.get(`/v1/webhooks/${id}`).set(auth).expect(200)).body;
      if (!ep.active) return ep;
      const retry = await http.post(`/v1/webhooks/${id}/deliveries/${delivery.id}/retry`).set(auth);
      expect(retry.status).toBe(202);
      return undefined;
    },
    60_000,
    250,
  );
  expect(deactivated.active).toBe(false);
  const [d] = await deliveries(auth, id);
  const times = d!.attempts.map((x) => Date.parse(x.attempted_at));
  const span = (i: number) => times[i]! - times[0]!;
  expect(d!.attempts.every((x) => !x.success)).toBe(true);
  // The attempt that deactivated it is the first one at least the window after the first failure.
  const firstOver = times.findIndex((_, i) => span(i) >= DISABLE_AFTER_MS);
  expect(firstOver).toBeGreaterThan(0);
  expect(times.length).toBe(firstOver + 1);
  expect((await http.post(`/v1/webhooks/${id}/deliveries/${delivery.id}/retry`).set(auth)).status).toBe(422);
});

it.concurrent(
  "keeps delivering across the dispatcher's continue-as-new, and a second start joins the running dispatcher",
  async () => {
    const handle = t.temporal.workflow.getHandle(dispatcher.workflows.dispatcherId);
    await eventually(
      'a new dispatcher run',
      async () => ((await handle.describe()).runId !== firstDispatcherRun ? true : undefined),
      30_000,
      200,
    );
    // What a second worker's start does.
    await dispatcher.workflows.ensureDispatcher({ tickMs: 500, batchesPerRun: 3, pumpMs: 1_000 });
    const a = await t.newAccount();
    const path = `/can-${++seq}`;
    const res = await http
      .post('/v1/webhooks')
      .set(a.auth)
      .send({ url: receiver.url(path), events: ['webhook.test'] })
      .expect(201);
    for (let i = 0; i < 5; i++) await http.post(`/v1/webhooks/${res.body.id}/test`).set(a.auth).expect(202);
    await eventually('five deliveries', () => (receiver.on(path).length === 5 ? true : undefined), 30_000);
    const running = await t.temporal.workflow.list({
      query: `WorkflowId = '${dispatcher.workflows.dispatcherId}' AND ExecutionStatus = 'Running'`,
    });
    let count = 0;
    for await (const _ of running) count++;
    expect(count).toBe(1);
  },
);
