/**
 * `npm run bench:webhooks`: the webhook pipeline end to end (event committed to the outbox → LISTEN/NOTIFY →
 * dispatcher workflow → batch activity → signed POST → received and verified with `standardwebhooks` by a
 * local receiver) beside a bare loop that signs and POSTs the same messages to the same receiver, in one run.
 *   1. throughput: BENCH_EVENTS messages ready at once (bare loop: in memory; pipeline: committed to the outbox
 *      in one statement), drained as fast as each can → ratio
 *   2. latency at a steady load: BENCH_RATE events/s for BENCH_SECONDS, p50/p99 from commit to receipt
 *   3. fairness: a second account with BENCH_SLOW_ENDPOINTS (20) endpoints that each hang until the 15 s
 *      delivery timeout, both accounts writing BENCH_FAIR_RATE events/s for BENCH_FAIR_SECONDS: the healthy
 *      account's p50/p99 from commit to receipt beside its own figures from phase 2 (goal p50 < 2 s).
 *      BENCH_BATCH_WAIT_MS sets the dispatcher's batch wait (WEBHOOK_BATCH_WAIT; 60000 = the old behaviour).
 * Real embedded Postgres and the real Temporal dev server; everything on 127.0.0.1.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { createAccountQueries } from '../src/db/queries/accounts';
import { insertEvent } from '../src/db/queries/events';
import { createWebhookQueries } from '../src/db/queries/webhooks';
import { sql } from '../src/db/sql';
import { generateWebhookSecret, signWebhook } from '../src/domain/webhook-signing';
import { silentLogger } from '../src/logger';
import { createProviderAdapters } from '../src/providers';
import { createProviderCredentials } from '../src/providers/provider-credentials';
import { createProviderKeyQueries } from '../src/db/queries/provider-keys';
import { OutboxListener } from '../src/webhooks/outbox-listener';
import { createWebhookClient } from '../src/workflow-clients/webhooks';
import { pct, runBench, startBench } from './harness';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = 64; // the bare loop's parallel POSTs, as many as a dispatcher batch makes
const SLOW_ENDPOINTS = Number(process.env.BENCH_SLOW_ENDPOINTS ?? 20);
const FAIR_RATE = Number(process.env.BENCH_FAIR_RATE ?? 2);
const FAIR_SECONDS = Number(process.env.BENCH_FAIR_SECONDS ?? 30);
const BATCH_WAIT_MS = process.env.BENCH_BATCH_WAIT_MS ? Number(process.env.BENCH_BATCH_WAIT_MS) : undefined;

/**
 * Calls `send(k)` for k = 0 … count − 1 at `perSecond`, spread evenly from now, each without waiting for the
 * ones before; resolves once all of them have.
 */
async function paced(perSecond: number, count: number, send: (k: number) => Promise<void>): Promise<void> {
  const start = performance.now();
  const sent: Promise<void>[] = [];
  for (let k = 0; k < count; k++) {
    const wait = start + (k * 1000) / perSecond - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    sent.push(send(k));
  }
  await Promise.all(sent);
}

async function main(): Promise<void> {
  const stack = await startBench('webhooks');
  const { url: databaseUrl, pool } = await stack.database('bench', 20);
  const { client } = await stack.temporal();

  // The receiver: verifies every message and notes when each event id arrived.
  const secret = generateWebhookSecret();
  const verifier = new Webhook(secret);
  const arrivals = new Map<string, number>();
  let verifyFailures = 0;
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const payload = verifier.verify(body, {
          'webhook-id': String(req.headers['webhook-id']),
          'webhook-timestamp': String(req.headers['webhook-timestamp']),
          'webhook-signature': String(req.headers['webhook-signature']),
        }) as { data: { key: string } };
        if (!arrivals.has(payload.data.key)) arrivals.set(payload.data.key, performance.now());
        res.writeHead(204).end();
      } catch {
        verifyFailures++;
        res.writeHead(400).end();
      }
    });
  });
  receiver.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  // Closed after the worker has stopped, so that no delivery of the run fails at the end.
  stack.defer('the receiver', () => {
    receiver.close();
    receiver.closeAllConnections();
  });
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/bench`;
  /** Resolves once every key has arrived (arrival times are taken by the receiver, not here). */
  const waitForArrivals = async (keys: string[], timeoutMs: number) => {
    const deadline = performance.now() + timeoutMs;
    while (!keys.every((k) => arrivals.has(k))) {
      if (performance.now() > deadline)
        throw new Error(`only ${keys.filter((k) => arrivals.has(k)).length}/${keys.length} arrived`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };

  // The service's side: a worker with the webhook activities, the dispatcher, the LISTEN that wakes it.
  const taskQueue = 'bench-webhooks';
  const webhooks = createWebhookClient({ temporal: { client, taskQueue } });
  // After the worker has stopped (which cancels the dispatcher's pumping activities).
  stack.defer('the dispatcher', () =>
    client.workflow
      .getHandle(webhooks.dispatcherId)
      .terminate('bench over')
      .catch(() => undefined),
  );
  // No provider is called: the adapters point at a closed port.
  const adapters = createProviderAdapters({
    runpodBaseUrl: 'http://127.0.0.1:9',
    vastaiBaseUrl: 'http://127.0.0.1:9',
    lambdaBaseUrl: 'http://127.0.0.1:9',
    timeoutMs: 1000,
    logger: silentLogger,
  });
  const vault = stack.vault;
  await stack.worker(taskQueue, {
    pool,
    logger: silentLogger,
    adapters,
    vault,
    credentials: createProviderCredentials(createProviderKeyQueries(pool), vault),
    pricingKeys: {},
    webhooks: {
      settings: { allowedHosts: ['127.0.0.1'], ...(BATCH_WAIT_MS === undefined ? {} : { batchWaitMs: BATCH_WAIT_MS }) },
      databaseUrl,
    },
  });
  await webhooks.ensureDispatcher({ tickMs: 5_000 });
  const listener = new OutboxListener(databaseUrl, () => webhooks.signalOutbox(), silentLogger);
  await listener.start();
  stack.defer('the outbox listener', () => listener.stop());

  const { account } = await createAccountQueries(pool).insertAccountWithKey('bench');
  await createWebhookQueries(pool, vault).insertEndpoint(account.id, {
    url: receiverUrl,
    events: ['instance.started'],
    secret,
  });
  let seq = 0;
  const writeEvent = async (prefix: string, accountId = account.id) => {
    const key = `${prefix}-${seq++}`;
    await insertEvent(pool, {
      accountId,
      type: 'instance.started',
      data: { key, instance_id: 'bench', provider: 'runpod' },
      dedupeKey: key,
    });
    return { key, committedAt: performance.now() };
  };

  // The bare loop: the same message shape, signed and POSTed with keep-alive, CONCURRENCY at a time.
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  stack.defer("the bare loop's sockets", () => agent.destroy());
  const target = new URL(receiverUrl);
  const bareSend = (key: string) =>
    new Promise<void>((resolve, reject) => {
      const id = `msg_${key}`;
      const ts = Math.floor(Date.now() / 1000);
      const body = JSON.stringify({
        id: `evt_${key}`,
        type: 'instance.started',
        created_at: new Date().toISOString(),
        data: { key, instance_id: 'bench', provider: 'runpod' },
      });
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'webhook-id': id,
            'webhook-timestamp': String(ts),
            'webhook-signature': signWebhook(secret, id, ts, body),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 204 ? resolve() : reject(new Error(`receiver said ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const bareLoop = async (n: number, prefix: string) => {
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < n) await bareSend(`${prefix}-${next++}`);
      }),
    );
    return n / ((performance.now() - t0) / 1000);
  };
  /** N events committed to the outbox at once (one statement), then drained: the pipeline's own capacity. */
  const pipelineBurst = async (n: number, prefix: string) => {
    const keys = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
    const t0 = performance.now();
    await pool.query(sql.typeAlias('void')`
      INSERT INTO events (id, account_id, type, data, dedupe_key)
      SELECT 'evt_' || k, ${account.id}, 'instance.started',
        jsonb_build_object('key', k, 'instance_id', 'bench', 'provider', 'runpod'), k
      FROM unnest(${sql.array(keys, 'text')}) AS k`);
    await waitForArrivals(keys, 300_000);
    return n / ((performance.now() - t0) / 1000);
  };

  // Warm-up: JIT, the workflow bundle, connections.
  await bareLoop(200, 'warm-bare');
  await pipelineBurst(200, 'warm');

  const bareRate = await bareLoop(EVENTS, 'bare');
  const pipelineRate = await pipelineBurst(EVENTS, 'burst');

  // Steady load: RATE events/s, spread evenly, for SECONDS.
  const steady: { key: string; committedAt: number }[] = [];
  const total = RATE * SECONDS;
  await paced(RATE, total, () => writeEvent('steady').then((w) => void steady.push(w)));
  await waitForArrivals(
    steady.map((s) => s.key),
    120_000,
  );
  const latencies = steady.map((s) => arrivals.get(s.key)! - s.committedAt);

  const bareSteady: number[] = [];
  await paced(RATE, total, (k) => {
    const t0 = performance.now();
    return bareSend(`bare-steady-${k}`).then(() => void bareSteady.push(performance.now() - t0));
  });

  // Fairness: the slow account's endpoints accept the connection and never answer (the sender gives up at 15 s).
  const hanging = http.createServer((req) => req.resume());
  await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
  stack.defer('the hanging endpoints', () => {
    hanging.close();
    hanging.closeAllConnections();
  });
  const hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
  const { account: slowAccount } = await createAccountQueries(pool).insertAccountWithKey('bench-slow');
  for (let i = 0; i < SLOW_ENDPOINTS; i++) {
    await createWebhookQueries(pool, vault).insertEndpoint(slowAccount.id, {
      url: `${hangingUrl}/slow-${i}`,
      events: ['instance.started'],
      secret: generateWebhookSecret(),
    });
  }
  const fair: { key: string; committedAt: number }[] = [];
  const fairTotal = FAIR_RATE * FAIR_SECONDS;
  await paced(FAIR_RATE, fairTotal, async () => {
    await Promise.all([writeEvent('slow', slowAccount.id), writeEvent('fair').then((w) => void fair.push(w))]);
  });
  // Whatever has not arrived after 3 minutes counts as 3 minutes late (the old behaviour could get there).
  const FAIR_DEADLINE_MS = 180_000;
  await waitForArrivals(
    fair.map((s) => s.key),
    FAIR_DEADLINE_MS,
  ).catch(() => undefined);
  const missing = fair.filter((s) => !arrivals.has(s.key)).length;
  const fairLatencies = fair.map((s) => (arrivals.get(s.key) ?? s.committedAt + FAIR_DEADLINE_MS) - s.committedAt);

  /** p50 and p99 of a set of latencies, in columns. */
  const spread = (xs: number[]) =>
    `p50 ${pct(xs, 50).toFixed(1).padStart(7)} ms   p99 ${pct(xs, 99).toFixed(1).padStart(7)} ms`;
  process.stdout.write(
    [
      `webhooks: ${EVENTS} messages each way, receiver verifies every signature (standardwebhooks); ` +
        `${verifyFailures} verification failures`,
      `throughput   bare loop (sign + POST, ${CONCURRENCY} concurrent)        ${bareRate.toFixed(0).padStart(6)} msg/s`,
      `throughput   pipeline (outbox commit → verified receipt)         ${pipelineRate.toFixed(0).padStart(6)} msg/s`,
      `ratio pipeline / bare loop: ${(pipelineRate / bareRate).toFixed(2)}   (goal >= 0.5)`,
      `steady load ${RATE} events/s for ${SECONDS}s (${total} events):`,
      `  pipeline  commit → verified receipt   ${spread(latencies)}   (goal p50 <= 500 ms)`,
      `  bare loop sign → POST answered        ${spread(bareSteady)}`,
      `fairness: account A with ${SLOW_ENDPOINTS} endpoints hanging to the 15 s timeout ` +
        `and account B with one healthy endpoint, ` +
        `${FAIR_RATE} events/s each for ${FAIR_SECONDS}s (batch wait ${BATCH_WAIT_MS ?? 'default'} ms):`,
      `  B with A's load      commit → verified receipt   ${spread(fairLatencies)}   (goal p50 < 2000 ms)` +
        (missing
          ? `   ${missing}/${fair.length} not arrived after ${FAIR_DEADLINE_MS / 1000} s ` +
            `(counted as ${FAIR_DEADLINE_MS / 1000} s)`
          : ''),
      `  B alone (phase 2)    commit → verified receipt   ${spread(latencies)}`,
      `  ratio B p50 with A / alone: ${(pct(fairLatencies, 50) / pct(latencies, 50)).toFixed(2)}`,
      '',
    ].join('\n'),
  );
}

runBench(main);
