/**
 * Temporal's history holds only ciphertext (issue 18, items 1 and 3): a launch with an `onstart_cmd` marker,
 * a scheduled run with a `startup_script` marker and a webhook delivery (marker in its URL), each read raw
 * from the Temporal server's own API (no codec): neither the marker nor the instance IP appears anywhere
 * in any history or in the Temporal Schedule. Through the operations listener's `POST /codec/decode`, with
 * the OPS_TOKEN, the same payloads decode back to the marker and the IP; without it: 401. Metrics are on
 * the operations listener only (404 on the API port; 401 without the token, 200 with it).
 */
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { createPricingQueries, type ProviderOutcome } from '../../src/db/queries/pricing';
import { toStoredOffer } from '../../src/domain/pricing';
import type { ProviderId } from '../../src/providers/types';
import { createApp } from '../../src/http/app';
import { createOpsApp } from '../../src/http/ops';
import { silentLogger } from '../../src/logger';
import { renderMetrics } from '../../src/metrics';
import { serveWorkerHealth } from '../../src/worker';
import type { Worker } from '@temporalio/worker';
import { freePort } from '../helpers/ports';
import { ENCRYPTED_ENCODING, PayloadEncryptionCodec } from '../../src/workflow-clients/payload-codec';
import { ed25519Key } from '../fixtures/ssh-keys';
import { createTestContext, type TestContext } from '../helpers/context';
import { queryRows } from '../helpers/db';
import { eventually } from '../helpers/process';
import { createTemporalTestEnv, TEST_TEMPORAL_VAULT, type TemporalTestEnv } from '../helpers/temporal';
import { startReceiver, startWebhookDispatcher, type Receiver } from '../helpers/webhooks';

jest.setTimeout(180_000);

const OPS_TOKEN = 'ops-token-' + randomBytes(12).toString('hex');
let t: TestContext;
let temporal: TemporalTestEnv;
let receiver: Receiver;
let api: ReturnType<typeof request>;
let ops: ReturnType<typeof request>;
let dispatcher: Awaited<ReturnType<typeof startWebhookDispatcher>>;
let worker: Worker;

beforeAll(async () => {
  t = await createTestContext({ simulators: true, launchTiming: { pollIntervalMs: 500, meterIntervalMs: 60_000 } });
  api = request(createApp({ ...t.deps, webhooks: { allowedHosts: ['127.0.0.1'] } }).callback());
  ops = request(
    createOpsApp({
      logger: silentLogger,
      token: OPS_TOKEN,
      codec: new PayloadEncryptionCodec(TEST_TEMPORAL_VAULT),
      corsOrigins: ['http://127.0.0.1:8233'],
      metrics: () => renderMetrics(),
      ready: async () => true,
    }).callback(),
  );
  temporal = await createTemporalTestEnv();
  receiver = await startReceiver();
  ({ worker } = await temporal.startWorker(
    t.workerDeps({
      webhooks: {
        databaseUrl: t.db.url,
        settings: { allowedHosts: ['127.0.0.1'], retryScheduleMs: [100, 100], timeoutMs: 2_000 },
      },
    }),
    t.deps.temporal.taskQueue,
  ));
  dispatcher = await startWebhookDispatcher({
    client: t.temporal,
    taskQueue: t.deps.temporal.taskQueue,
    databaseUrl: t.db.url,
    tickMs: 500,
  });
  t.sims.vastai.control.setBootDelay(200);
  // Scheduled runs pick their offer from the pricing tables: fill them as a refresh would.
  await createPricingQueries(t.db.pool).recordRefresh(
    {
      vastai: {
        ok: true,
        offers: (await t.deps.adapters.vastai.listOffers(t.sims.vastai.createKey())).map(toStoredOffer),
      },
    } as Record<ProviderId, ProviderOutcome>,
    new Date(),
  );
});
afterAll(async () => {
  await dispatcher?.stop();
  await temporal?.close();
  await receiver?.close();
  await t?.close();
});

/** Bytes as latin1 text (what a database dump or a UI without the codec shows), everything else as it is. */
function rawText(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (
      v &&
      typeof v === 'object' &&
      (v as { type?: unknown }).type === 'Buffer' &&
      Array.isArray((v as { data?: unknown }).data)
    ) {
      return Buffer.from((v as { data: number[] }).data).toString('latin1');
    }
    if (v instanceof Uint8Array) return Buffer.from(v).toString('latin1');
    return v;
  });
}

/**
 * Every payload object ({metadata, data}) in a raw proto value, in the codec-server JSON form. Left out:
 * search attributes (Temporal indexes them, so no codec touches them; they hold ids, no secrets) and the
 * local-activity marker's own `data` detail, which the SDK core writes itself (activity type, attempt,
 * times; the activity's result beside it is encrypted). The raw-text checks cover them all the same.
 */
function payloadsIn(
  value: unknown,
  out: { metadata: Record<string, string>; data: string }[] = [],
  path = '',
): typeof out {
  if (!value || typeof value !== 'object') return out;
  if (path.endsWith('markerRecordedEventAttributes.details.data')) return out;
  const v = value as { metadata?: Record<string, Uint8Array>; data?: Uint8Array };
  if (v.metadata && v.data instanceof Uint8Array && v.metadata.encoding) {
    out.push({
      metadata: Object.fromEntries(Object.entries(v.metadata).map(([k, b]) => [k, Buffer.from(b).toString('base64')])),
      data: Buffer.from(v.data).toString('base64'),
    });
    return out;
  }
  for (const [key, child] of Object.entries(value)) {
    if (key !== 'searchAttributes' && key !== 'upsertWorkflowSearchAttributesEventAttributes')
      payloadsIn(child, out, `${path}.${key}`);
  }
  return out;
}

/** The full history of a workflow run from the server's own API: no data converter, no codec. */
async function rawHistory(workflowId: string): Promise<unknown[]> {
  const events: unknown[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await t.temporal.connection.workflowService.getWorkflowExecutionHistory({
      namespace: 'default',
      execution: { workflowId },
      nextPageToken,
    });
    events.push(...(page.history?.events ?? []));
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return events;
}

/** Ids of every workflow run on this file's task queue (launches, runs, observers, deliveries, dispatcher). */
async function workflowsOnQueue(): Promise<string[]> {
  const ids: string[] = [];
  for await (const w of t.temporal.workflow.list({ query: `TaskQueue = "${t.deps.temporal.taskQueue}"` }))
    ids.push(w.workflowId);
  return ids;
}

async function decodeThroughCodec(payloads: unknown[]): Promise<string> {
  const res = await ops.post('/codec/decode').set('Authorization', `Bearer ${OPS_TOKEN}`).send({ payloads });
  expect(res.status).toBe(200);
  return (res.body.payloads as { data: string }[])
    .map((p) => Buffer.from(p.data, 'base64').toString('utf8'))
    .join('\n');
}

it('raw histories hide onstart_cmd, startup_script, webhook URL and instance IP; the codec decodes them', async () => {
  const marker = `MARKER-${randomBytes(8).toString('hex')}`;
  const a = await t.newAccount();
  await api
    .post('/v1/settings/providers')
    .set(a.auth)
    .send({ provider: 'vastai', api_key: t.sims.vastai.createKey() })
    .expect(201);
  await api.post('/v1/ssh-keys').set(a.auth).send({ name: 'laptop', public_key: ed25519Key() }).expect(201);

  // Three workflows that carry the marker, brought about side by side:
  // 1. A launch with a token in its onstart_cmd, until it runs and has an IP.
  const launched = (async () => {
    const launch = await api
      .post('/v1/compute/launch')
      .set(a.auth)
      .send({ provider: 'vastai', gpu_type: 'rtx-4090', onstart_cmd: `export HF_TOKEN=${marker}-launch` });
    expect(launch.status).toBe(201);
    const instanceId = launch.body.id as string;
    let last: unknown;
    const ip = await eventually(
      'the instance running with an IP',
      async () => {
        const res = await api.get('/v1/compute').set(a.auth);
        last = res.body;
        const mine = (res.body.data as { id: string; status: string; public_ip: string | null }[]).find(
          (i) => i.id === instanceId,
        );
        return mine?.status === 'running' && mine.public_ip ? mine.public_ip : undefined;
      },
      60_000,
      200,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; last: ${JSON.stringify(last)}`);
    });
    return { instanceId, ip };
  })();

  // 2. A scheduled run with a startup script (a cron that never fires by itself; `trigger` starts the run).
  const scheduled = (async () => {
    const schedule = await api
      .post('/v1/schedules')
      .set(a.auth)
      .send({
        name: 'nightly',
        gpu: 'rtx-4090',
        template: 'pytorch',
        cron: '17 3 29 2 *',
        startup_script: `python train.py --token ${marker}-schedule`,
      });
    expect(schedule.status).toBe(201);
    await api.post(`/v1/schedules/${schedule.body.id}/trigger`).set(a.auth).expect(202);
    await eventually(
      'the scheduled run running',
      async () => {
        const runs = (await api.get(`/v1/schedules/${schedule.body.id}/runs`).set(a.auth)).body.data as {
          status: string;
        }[];
        return runs.some((r) => r.status === 'running') ? true : undefined;
      },
      60_000,
      200,
    );
    return schedule;
  })();

  // 3. A webhook delivery that fails once (a retry workflow then owns it) and then arrives.
  const delivered = (async () => {
    const path = `/hook-${marker}-webhook`;
    receiver.plan(path, [500, 200]);
    const hook = await api
      .post('/v1/webhooks')
      .set(a.auth)
      .send({ url: receiver.url(path), events: ['webhook.test'] });
    expect(hook.status).toBe(201);
    await api.post(`/v1/webhooks/${hook.body.id}/test`).set(a.auth).expect(202);
    await eventually(
      'the delivery to arrive after its retry',
      async () => (receiver.arrivals(path) >= 2 ? true : undefined),
      60_000,
      100,
    );
  })();
  const [{ instanceId, ip }, schedule] = await Promise.all([launched, scheduled, delivered]);

  const [row] = await queryRows<{ id: string }>(t.db.url, 'SELECT id FROM instances WHERE provider_instance_id = $1', [
    instanceId,
  ]);
  const launchWorkflowId = row!.id;
  // Every run of this queue, read raw: the launch, the scheduled run and its launch, the delivery retry.
  const ids = await eventually(
    'the runs listed by visibility',
    async () => {
      const found = await workflowsOnQueue();
      return found.includes(launchWorkflowId) &&
        found.some((id) => id.includes(schedule.body.id)) &&
        found.some((id) => id.startsWith('webhook-delivery'))
        ? found
        : undefined;
    },
    30_000,
    250,
  );
  const histories = await Promise.all(ids.map(async (id) => ({ id, events: await rawHistory(id) })));
  const scheduleRaw = await t.temporal.connection.workflowService.describeSchedule({
    namespace: 'default',
    scheduleId: schedule.body.id as string,
  });
  for (const h of [...histories, { id: 'the Temporal Schedule', events: [scheduleRaw] }]) {
    const text = rawText(h.events);
    expect({ id: h.id, leaks: text.includes(marker) }).toEqual({ id: h.id, leaks: false });
    expect({ id: h.id, leaks: text.includes(ip) }).toEqual({ id: h.id, leaks: false });
  }
  const all = histories.flatMap((h) => payloadsIn(h.events));
  expect(all.length).toBeGreaterThan(10);
  const plain = all.filter((p) => Buffer.from(p.metadata.encoding!, 'base64').toString() !== ENCRYPTED_ENCODING);
  // The one exception is written by the SDK's core, not through the data converter: a version marker naming
  // the code path (`patched()`), our identifier and nothing of the user's. Nothing else is plain.
  const patchMarker = (text: string) => /^\{"id":"[a-z0-9-]+","deprecated":(true|false)\}$/.test(text);
  expect(plain.map((p) => Buffer.from(p.data, 'base64').toString()).filter((text) => !patchMarker(text))).toEqual([]);

  // The operator's view: without the token, 401; with it, the payloads decode to what was hidden.
  const launchPayloads = payloadsIn(histories.find((h) => h.id === launchWorkflowId)!.events);
  const refused = await ops.post('/codec/decode').send({ payloads: launchPayloads });
  expect(refused.status).toBe(401);
  expect(refused.body.error.code).toBe('unauthenticated');
  expect(
    await ops
      .post('/codec/decode')
      .set('Authorization', 'Bearer wrong-token-0123456789')
      .send({ payloads: launchPayloads })
      .then((r) => r.status),
  ).toBe(401);
  const launchDecoded = await decodeThroughCodec(launchPayloads);
  expect(launchDecoded).toContain(`${marker}-launch`);
  expect(launchDecoded).toContain(ip);
  const scheduleDecoded = await decodeThroughCodec(
    histories.filter((h) => h.id.includes(schedule.body.id)).flatMap((h) => payloadsIn(h.events)),
  );
  // The schedule's script is sealed at rest and travels sealed: even the decoded payloads hold it only sealed
  // (the create activity opens it for the provider).
  expect(scheduleDecoded).toContain(schedule.body.id as string);
  expect(scheduleDecoded).toMatch(/"startup_script":"sealed:v1:/);
  expect(scheduleDecoded).not.toContain(`${marker}-schedule`);
  // The Schedule's action input and memo are encrypted as well (the script itself is read from Postgres per run).
  expect(await decodeThroughCodec(payloadsIn(scheduleRaw))).toContain(schedule.body.id as string);
  const deliveryDecoded = await decodeThroughCodec(
    histories.filter((h) => h.id.startsWith('webhook-delivery')).flatMap((h) => payloadsIn(h.events)),
  );
  expect(deliveryDecoded).toMatch(/dlv_|evt_/);
});

describe('the operations listener', () => {
  it.concurrent('serves /metrics there only: 404 on the API port, 401 without the token, 200 with it', async () => {
    expect((await api.get('/metrics')).status).toBe(404);
    const refused = await ops.get('/metrics');
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer');
    expect(refused.text).not.toContain('gpuo_');
    const ok = await ops.get('/metrics').set('Authorization', `Bearer ${OPS_TOKEN}`);
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('gpuo_http_requests_total');
    expect((await api.post('/codec/decode').send({ payloads: [] })).status).toBe(404);
  });

  it.concurrent(
    'round-trips encode and decode in the codec-server convention, with CORS for the UI origin only',
    async () => {
      const original = {
        metadata: { encoding: Buffer.from('json/plain').toString('base64') },
        data: Buffer.from('{"hello":"world"}').toString('base64'),
      };
      const encoded = await ops
        .post('/codec/encode')
        .set('Authorization', `Bearer ${OPS_TOKEN}`)
        .send({ payloads: [original] });
      expect(encoded.status).toBe(200);
      expect(Buffer.from(encoded.body.payloads[0].data, 'base64').toString('latin1')).not.toContain('hello');
      const decoded = await ops.post('/codec/decode').set('Authorization', `Bearer ${OPS_TOKEN}`).send(encoded.body);
      expect(decoded.body).toEqual({ payloads: [original] });
      // A payload this codec did not encrypt passes through unchanged (the UI sends everything it shows).
      expect(
        (
          await ops
            .post('/codec/decode')
            .set('Authorization', `Bearer ${OPS_TOKEN}`)
            .send({ payloads: [original] })
        ).body,
      ).toEqual({ payloads: [original] });
      // Tampered ciphertext: 400, not a 500 and not garbage.
      const tampered = structuredClone(encoded.body);
      tampered.payloads[0].data = Buffer.from(
        Buffer.from(tampered.payloads[0].data, 'base64').map((b: number, i: number) => (i === 40 ? b ^ 1 : b)),
      ).toString('base64');
      expect((await ops.post('/codec/decode').set('Authorization', `Bearer ${OPS_TOKEN}`).send(tampered)).status).toBe(
        400,
      );

      const preflight = await ops
        .options('/codec/decode')
        .set('Origin', 'http://127.0.0.1:8233')
        .set('Access-Control-Request-Method', 'POST');
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('http://127.0.0.1:8233');
      expect(preflight.headers['access-control-allow-headers']).toMatch(/Authorization/);
      const foreign = await ops
        .options('/codec/decode')
        .set('Origin', 'https://evil.example')
        .set('Access-Control-Request-Method', 'POST');
      expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    },
  );

  it.concurrent("guards the worker's /metrics with the same token, liveness stays open", async () => {
    const port = await freePort();
    const server = serveWorkerHealth(worker, port, '127.0.0.1', silentLogger, OPS_TOKEN);
    try {
      const url = `http://127.0.0.1:${port}`;
      expect((await fetch(`${url}/metrics`)).status).toBe(401);
      const ok = await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${OPS_TOKEN}` } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('gpuo_activity_executions_total');
      expect((await fetch(`${url}/`)).status).toBe(200);
    } finally {
      server.close();
    }
  });

  it.concurrent('says ready or not ready, nothing more', async () => {
    const down = request(
      createOpsApp({
        logger: silentLogger,
        codec: new PayloadEncryptionCodec(TEST_TEMPORAL_VAULT),
        corsOrigins: [],
        metrics: () => renderMetrics(),
        ready: async () => false,
      }).callback(),
    );
    const res = await down.get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'not_ready' });
  });
});
