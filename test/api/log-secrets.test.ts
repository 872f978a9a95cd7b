/**
 * No secret reaches a log line. A provider key, a service key and a webhook secret go through every logging
 * path (the request log, the error log, an activity's and the Temporal SDK's logs, the worker's failure
 * logs of a real refused launch), and then every line written is searched for them; every line is also
 * one JSON object with the documented fields.
 */
import request from 'supertest';
import { createApp } from '../../src/http/app';
import { createLogger, type LogSink } from '../../src/logger';
import { createProviderAdapters } from '../../src/providers';
import { temporalLoggerFor } from '../../src/worker';
import { simulatorBaseUrls } from '../../simulators';
import { ed25519Key } from '../fixtures/ssh-keys';
import { createTestContext, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/process';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';

jest.setTimeout(120_000);

const lines: string[] = [];
const sink: LogSink = (line) => {
  lines.push(line);
};
// Debug everywhere: the most a line can carry (stacks, provider requests, the SDK's chatter).
const apiLogger = createLogger('debug', { process: 'api' }, sink);
const workerLogger = createLogger('debug', { process: 'worker' }, sink);
const sdkLogger = temporalLoggerFor(workerLogger, 'DEBUG');

let t: TestContext;
let temporal: TemporalTestEnv;
let http: ReturnType<typeof request>;

beforeAll(async () => {
  t = await createTestContext({ simulators: true });
  temporal = await createTemporalTestEnv({ runtimeLogger: sdkLogger });
});
afterAll(async () => {
  await temporal?.close();
  await t?.close();
});

it(
  'writes no provider key, service key or webhook secret on any path, ' +
    'and only JSON lines with the documented fields',
  async () => {
    const apiAdapters = createProviderAdapters({ ...simulatorBaseUrls(t.sims), timeoutMs: 2000, logger: apiLogger });
    const workerAdapters = createProviderAdapters({
      ...simulatorBaseUrls(t.sims),
      timeoutMs: 2000,
      logger: workerLogger,
    });
    http = request(
      createApp({
        ...t.deps,
        logger: apiLogger,
        adapters: apiAdapters,
        webhooks: { allowedHosts: ['127.0.0.1'] },
      }).callback(),
    );
    await temporal.startWorker(
      t.workerDeps({ logger: workerLogger, adapters: workerAdapters }),
      t.deps.temporal.taskQueue,
    );

    const { apiKey: serviceKey, auth } = await t.newAccount();
    const providerKey = t.sims.runpod.createKey();
    const secrets = { serviceKey, providerKey, webhookSecret: '' };

    // Request log, the provider adapter's log (verify), and 4xx "request failed" lines with the key around.
    await http
      .post('/v1/settings/providers')
      .set(auth)
      .set('X-Request-Id', 'leak-1')
      .send({ provider: 'runpod', api_key: providerKey })
      .expect(201);
    await http.post(`/v1/settings/providers/runpod/verify?api_key=${providerKey}`).set(auth).expect(200);
    await http.post('/v1/settings/providers').set(auth).send({ provider: 'nope', api_key: providerKey }).expect(400);
    await http
      .post('/v1/settings/providers')
      .set(auth)
      .send({ provider: 'runpod', api_key: `${providerKey}\n` })
      .expect(400);
    await http
      .get('/v1/ssh-keys')
      .set({ Authorization: `Bearer ${serviceKey}x` })
      .expect(401);
    await http.post('/v1/ssh-keys').set(auth).send({ name: 'laptop', public_key: ed25519Key() }).expect(201);
    const created = await http
      .post('/v1/webhooks')
      .set(auth)
      .send({ url: 'http://127.0.0.1:9/in', events: ['instance.started'] })
      .expect(201);
    secrets.webhookSecret = created.body.secret as string;
    expect(secrets.webhookSecret).toMatch(/^whsec_/);
    await http
      .post('/v1/webhooks')
      .set(auth)
      .send({ url: 'http://127.0.0.1:9/in', events: ['instance.started'], secret: `${secrets.webhookSecret}!` })
      .expect(400);

    // The error log: an unexpected failure whose error object carries the secrets in its own fields and cause.
    const failing = createApp({
      ...t.deps,
      logger: apiLogger,
      vault: {
        seal: () => {
          const cause = Object.assign(new Error('kms unreachable'), {
            config: { headers: { authorization: `Bearer ${serviceKey}` } },
          });
          throw Object.assign(new Error('seal failed', { cause }), {
            api_key: providerKey,
            secret: secrets.webhookSecret,
          });
        },
      } as unknown as typeof t.deps.vault,
    });
    await request(failing.callback())
      .post('/v1/settings/providers')
      .set(auth)
      .send({ provider: 'runpod', api_key: providerKey })
      .expect(500);

    // The worker: a launch the provider refuses fails its activity and its workflow, logged by the SDK.
    t.sims.runpod.control.setNoCapacity('rtx-a6000');
    try {
      await http.post('/v1/compute/launch').set(auth).send({ provider: 'runpod', gpu_type: 'rtx-a6000' }).expect(422);
    } finally {
      t.sims.runpod.control.setNoCapacity('rtx-a6000', false);
    }
    await eventually(
      'the SDK logged the failed activity',
      async () => lines.some((l) => l.includes('"component":"temporal"') && l.includes('createAndRecord')) || undefined,
      30_000,
      100,
    );

    // What activities and the SDK are handed as fields (activity `log.warn(msg, meta)` reaches the SDK logger).
    workerLogger.child({ activity: 'deliverWebhook', signing_secret: secrets.webhookSecret }).warn('delivery failed', {
      headers: { Authorization: `Bearer ${serviceKey}`, 'x-api-key': providerKey },
      endpoint: { url: 'http://127.0.0.1:9/in', secret: secrets.webhookSecret },
    });
    sdkLogger.warn('Activity failed', {
      activityType: 'createAndRecord',
      input: { api_key: providerKey },
      headers: { authorization: `Bearer ${serviceKey}` },
    });
    apiLogger.error('unhandled error', {
      api_key: providerKey,
      request: { body: { api_key: providerKey, secret: secrets.webhookSecret } },
    });

    expect(lines.length).toBeGreaterThan(10);
    const leaks = lines.filter((l) => Object.values(secrets).some((s) => l.includes(s)));
    expect(leaks).toEqual([]);
    for (const line of lines) {
      expect(line).not.toContain('\n');
      const entry = JSON.parse(line) as Record<string, unknown>;
      expect(entry).toEqual(
        expect.objectContaining({
          time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          level: expect.stringMatching(/^(debug|info|warn|error)$/),
          msg: expect.any(String),
          process: expect.stringMatching(/^(api|worker)$/),
        }),
      );
    }
    // The paths were really taken: the request lines, the 500's error line (described, not dumped), the SDK's.
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries.find((e) => e.request_id === 'leak-1')).toMatchObject({
      msg: 'request',
      status: 201,
      route: '/v1/settings/providers',
    });
    expect(entries.find((e) => e.msg === 'unhandled error' && e.err)).toMatchObject({
      err: { message: 'seal failed', cause: { message: 'kms unreachable' } },
    });
    expect(entries.some((e) => e.component === 'temporal' && e.level === 'warn')).toBe(true);
    expect(entries.some((e) => e.msg === 'provider request' && e.provider === 'runpod')).toBe(true);
  },
);
