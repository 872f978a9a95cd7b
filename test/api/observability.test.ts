/**
 * Logs and metrics in one process: the request log line and the HTTP series (named by the declared route
 * template) on the operations listener, the ledger counters, the worker's port with workflow and activity outcomes, and
 * the logger's one-line guarantee (errors as fields, stacks only at debug, the Temporal SDK through ours).
 */
import request from 'supertest';
import { createLedgerQueries } from '../../src/db/queries/ledger';
import { createApp } from '../../src/http/app';
import { createOpsApp } from '../../src/http/ops';
import { PayloadEncryptionCodec } from '../../src/workflow-clients/payload-codec';
import { createLogger, requestLogLine, type LogSink } from '../../src/logger';
import { recordWebhookDelivery, renderMetrics } from '../../src/metrics';
import { serveWorkerHealth, temporalLoggerFor } from '../../src/worker';
import { ed25519Key } from '../fixtures/ssh-keys';
import { createTestContext, type TestContext } from '../helpers/context';
import { freePort } from '../helpers/ports';
import { eventually } from '../helpers/process';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';

jest.setTimeout(120_000);

let t: TestContext;
let temporal: TemporalTestEnv;
const lines: { line: string }[] = [];
const sink: LogSink = (line) => {
  lines.push({ line });
};
let http: ReturnType<typeof request>;
let ops: ReturnType<typeof request>;

beforeAll(async () => {
  t = await createTestContext({ simulators: true });
  http = request(createApp({ ...t.deps, logger: createLogger('info', { process: 'api' }, sink) }).callback());
  ops = request(
    createOpsApp({
      logger: createLogger('silent'),
      codec: new PayloadEncryptionCodec(t.deps.vault),
      corsOrigins: [],
      metrics: () => renderMetrics(),
      ready: async () => true,
    }).callback(),
  );
  temporal = await createTemporalTestEnv();
});
afterAll(async () => {
  await temporal.close();
  await t.close();
});

/** Sum of the samples of `name` whose labels include `labels` (0 when there is none). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) total += Number(m[3]);
  }
  return total;
}

const scrape = async () => {
  const res = await ops.get('/metrics');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
};

const requestLines = () =>
  lines.map((l) => JSON.parse(l.line) as Record<string, unknown>).filter((e) => e.msg === 'request');

describe('requests', () => {
  it('logs one JSON line per request with request id, account, route template, status and latency', async () => {
    const a = await t.newAccount();
    const res = await http.delete('/v1/ssh-keys/sshkey_doesnotexist').set(a.auth);
    expect(res.status).toBe(404);
    const mine = requestLines().filter((e) => e.request_id === res.headers['x-request-id']);
    expect(mine).toEqual([
      {
        time: expect.any(String),
        level: 'info',
        msg: 'request',
        process: 'api',
        request_id: res.headers['x-request-id'],
        account_id: a.accountId,
        method: 'DELETE',
        route: '/v1/ssh-keys/{id}',
        path: '/v1/ssh-keys/sshkey_doesnotexist',
        status: 404,
        ms: expect.any(Number),
      },
    ]);
    // Refused before authentication: still named by its route, with no account.
    const anonymous = await http.get('/v1/ssh-keys').set({ 'X-Request-Id': 'probe-anon-1' });
    expect(anonymous.status).toBe(401);
    expect(requestLines().find((e) => e.request_id === 'probe-anon-1')).toMatchObject({
      route: '/v1/ssh-keys',
      status: 401,
      account_id: null,
    });
    // A bad body: 400, one line, no stack anywhere at info.
    const bad = await http
      .post('/v1/ssh-keys')
      .set(a.auth)
      .set('X-Request-Id', 'probe-bad-1')
      .send({ name: 'x', public_key: 'not a key' });
    expect(bad.status).toBe(400);
    expect(requestLines().filter((e) => e.request_id === 'probe-bad-1')).toHaveLength(1);
    expect(lines.every((l) => !l.line.includes('"stack"') && !l.line.includes('\n'))).toBe(true);
  });

  it('counts requests and latency by method, route template and status; an unknown path is "unmatched"', async () => {
    const a = await t.newAccount();
    const before = await scrape();
    await http.delete('/v1/ssh-keys/sshkey_one').set(a.auth).expect(404);
    await http.delete('/v1/ssh-keys/sshkey_two').set(a.auth).expect(404);
    await http.post('/v1/ssh-keys').set(a.auth).send({ name: 'laptop', public_key: ed25519Key() }).expect(201);
    await http.get('/v1/no-such-thing/123').expect(404);
    const after = await scrape();
    const del = { method: 'DELETE', route: '/v1/ssh-keys/{id}', status: '404' };
    expect(sample(after, 'gpuo_http_requests_total', del) - sample(before, 'gpuo_http_requests_total', del)).toBe(2);
    expect(
      sample(after, 'gpuo_http_request_duration_seconds_count', del) -
        sample(before, 'gpuo_http_request_duration_seconds_count', del),
    ).toBe(2);
    const created = { method: 'POST', route: '/v1/ssh-keys', status: '201' };
    expect(
      sample(after, 'gpuo_http_requests_total', created) - sample(before, 'gpuo_http_requests_total', created),
    ).toBe(1);
    const unmatched = { method: 'GET', route: 'unmatched', status: '404' };
    expect(
      sample(after, 'gpuo_http_requests_total', unmatched) - sample(before, 'gpuo_http_requests_total', unmatched),
    ).toBe(1);
    expect(after).not.toContain('sshkey_one');
    expect(after).not.toContain('no-such-thing');
    // The scrape itself is counted under its route.
    expect(sample(after, 'gpuo_http_requests_total', { route: '/metrics', status: '200' })).toBeGreaterThanOrEqual(1);
  });

  it(
    'counts ledger entries as they are posted (no scrape-time sums), ' +
      'and webhook deliveries recorded by their module',
    async () => {
      expect((await http.get('/metrics')).status).toBe(404); // the API port serves no metrics
      const a = await t.newAccount();
      const ledger = createLedgerQueries(t.db.pool);
      const before = await scrape();
      await ledger.postEntry({
        accountId: a.accountId,
        type: 'credit_topup',
        amountMicros: 5_000_000,
        description: 'top-up',
        idempotencyKey: 'obs-topup',
      });
      await ledger.postEntry({
        accountId: a.accountId,
        type: 'instance_charge',
        amountMicros: -1_250_001,
        description: 'charge',
        instanceId: 'pod-1',
        idempotencyKey: 'obs-charge',
      });
      recordWebhookDelivery('delivered');
      recordWebhookDelivery('delivered');
      recordWebhookDelivery('failed');
      const after = await scrape();
      const moved = (type: string) =>
        sample(after, 'gpuo_ledger_amount_usd_total', { type }) -
        sample(before, 'gpuo_ledger_amount_usd_total', { type });
      const posted = (type: string) =>
        sample(after, 'gpuo_ledger_entries_total', { type }) - sample(before, 'gpuo_ledger_entries_total', { type });
      expect(moved('credit_topup')).toBeCloseTo(5, 6);
      expect(moved('instance_charge')).toBeCloseTo(1.250001, 6);
      expect([posted('credit_topup'), posted('instance_charge')]).toEqual([1, 1]);
      // The same key again changes nothing, and counts nothing.
      await ledger.postEntry({
        accountId: a.accountId,
        type: 'credit_topup',
        amountMicros: 5_000_000,
        description: 'top-up',
        idempotencyKey: 'obs-topup',
      });
      expect(sample(await scrape(), 'gpuo_ledger_entries_total', { type: 'credit_topup' })).toBe(
        sample(after, 'gpuo_ledger_entries_total', { type: 'credit_topup' }),
      );
      expect(
        sample(after, 'gpuo_webhook_deliveries_total', { outcome: 'delivered' }) -
          sample(before, 'gpuo_webhook_deliveries_total', { outcome: 'delivered' }),
      ).toBe(2);
      expect(
        sample(after, 'gpuo_webhook_deliveries_total', { outcome: 'failed' }) -
          sample(before, 'gpuo_webhook_deliveries_total', { outcome: 'failed' }),
      ).toBe(1);
    },
  );
});

describe('worker port', () => {
  it('serves liveness and the workflow, activity and provider series, which move with a refused launch', async () => {
    const { worker } = await temporal.startWorker(t.workerDeps(), t.deps.temporal.taskQueue);
    const port = await freePort();
    const server = serveWorkerHealth(worker, port, '127.0.0.1', createLogger('silent'));
    try {
      const metricsUrl = `http://127.0.0.1:${port}/metrics`;
      const before = await (await fetch(metricsUrl)).text();
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);

      const a = await t.newAccount();
      const simKey = t.sims.runpod.createKey();
      await http.post('/v1/settings/providers').set(a.auth).send({ provider: 'runpod', api_key: simKey }).expect(201);
      t.sims.runpod.control.setNoCapacity('rtx-a6000');
      try {
        const res = await http
          .post('/v1/compute/launch')
          .set(a.auth)
          .send({ provider: 'runpod', gpu_type: 'rtx-a6000' });
        expect(res.status).toBe(422);
      } finally {
        t.sims.runpod.control.setNoCapacity('rtx-a6000', false);
      }
      await t.temporal.workflow.execute('healthProbe', {
        taskQueue: t.deps.temporal.taskQueue,
        workflowId: `obs-probe-${Date.now()}`,
        args: [{ message: 'hi' }],
      });

      const failedRuns = { workflow_type: 'launchInstance', outcome: 'failed' };
      const after = await eventually(
        'the refused launch counted as a failed run',
        async () => {
          const text = await (await fetch(metricsUrl)).text();
          return sample(text, 'gpuo_workflow_completions_total', failedRuns) >
            sample(before, 'gpuo_workflow_completions_total', failedRuns)
            ? text
            : undefined;
        },
        30_000,
        100,
      );
      const diff = (name: string, labels: Record<string, string>) =>
        sample(after, name, labels) - sample(before, name, labels);
      expect(diff('gpuo_workflow_completions_total', failedRuns)).toBe(1);
      expect(diff('gpuo_workflow_completions_total', { workflow_type: 'healthProbe', outcome: 'completed' })).toBe(1);
      expect(diff('gpuo_activity_executions_total', { activity_type: 'recordProbe', outcome: 'completed' })).toBe(1);
      expect(
        diff('gpuo_activity_executions_total', { activity_type: 'createAndRecord', outcome: 'failed' }),
      ).toBeGreaterThanOrEqual(1);
      expect(diff('gpuo_activity_duration_seconds_count', { activity_type: 'createAndRecord' })).toBeGreaterThanOrEqual(
        1,
      );
      expect(diff('gpuo_provider_request_errors_total', { provider: 'runpod' })).toBeGreaterThanOrEqual(1);
      expect(diff('gpuo_provider_request_duration_seconds_count', { provider: 'runpod' })).toBeGreaterThanOrEqual(1);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('logger', () => {
  const capture = (level: 'debug' | 'info' | 'warn') => {
    const out: string[] = [];
    return { out, logger: createLogger(level, { process: 'test' }, (line) => void out.push(line)) };
  };

  it('writes an error as one line of fields, its stack only at debug', () => {
    const err = new Error('outer', { cause: new Error('inner') });
    const info = capture('info');
    info.logger.warn('failed', { err, stack: err.stack });
    expect(info.out).toHaveLength(1);
    expect(JSON.parse(info.out[0]!)).toMatchObject({
      level: 'warn',
      msg: 'failed',
      err: { name: 'Error', message: 'outer', cause: { message: 'inner' } },
    });
    expect(info.out[0]).not.toContain('stack');
    const debug = capture('debug');
    debug.logger.warn('failed', { err });
    expect(debug.out).toHaveLength(1);
    expect(JSON.parse(debug.out[0]!).err.stack).toContain('Error: outer\n    at ');
  });

  it('stays one JSON line with a cycle or a bigint in a field, and redacts secret-named fields', () => {
    const { out, logger } = capture('info');
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    logger.info('odd fields', { cyclic, big: 10n, api_key: 'sk_live_x' });
    expect(out).toHaveLength(1);
    expect(JSON.parse(out[0]!)).toMatchObject({ cyclic: { a: 1 }, big: 10, api_key: '[redacted]' });
    expect(out[0]).toContain('[Circular]');
  });

  it(
    'writes the per-request line exactly as logger.info would, escaped, with the child bindings, ' +
      'and not below its level',
    () => {
      const { out, logger } = capture('info');
      const child = logger.child({ component: 'edge' });
      const fields = {
        request_id: 'req_"quoted"\\',
        account_id: null,
        method: 'GET',
        route: '/v1/pricing',
        path: '/v1/x"\u2028\n',
        status: 404,
        ms: 0.25,
      };
      for (const f of [fields, { ...fields, account_id: 'acc_1', ms: NaN }]) {
        child.info('request', f);
        requestLogLine(child)(f);
      }
      expect(out).toHaveLength(4);
      const withoutTime = (line: string) => line.replace(/"time":"[^"]+"/, '"time":""');
      expect(withoutTime(out[1]!)).toBe(withoutTime(out[0]!));
      expect(withoutTime(out[3]!)).toBe(withoutTime(out[2]!));
      expect(JSON.parse(out[1]!)).toEqual({
        level: 'info',
        time: expect.any(String),
        process: 'test',
        component: 'edge',
        ...fields,
        msg: 'request',
      });
      const quiet = capture('warn');
      requestLogLine(quiet.logger)(fields);
      expect(quiet.out).toHaveLength(0);
    },
  );

  it('routes the Temporal SDK logger through ours, dropping what is below its minimum', () => {
    const { out, logger } = capture('debug');
    const sdk = temporalLoggerFor(logger, 'WARN');
    sdk.info('Worker state changed', { state: 'RUNNING' });
    sdk.warn('Activity failed', {
      activityType: 'createInstance',
      error: new Error('no capacity'),
      message: 'shadowed',
    });
    sdk.error('Core panicked', {});
    expect(out.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: 'Activity failed',
        component: 'temporal',
        activityType: 'createInstance',
        sdk_message: 'shadowed',
        error: expect.objectContaining({ message: 'no capacity', stack: expect.any(String) }),
      }),
      expect.objectContaining({ level: 'error', msg: 'Core panicked', component: 'temporal' }),
    ]);
  });
});
