/**
 * Webhook test support: a local receiver on 127.0.0.1 that records every request, verifies it with the
 * `standardwebhooks` package, and answers from a per-path plan; and the dispatcher + LISTEN a worker process
 * runs at start-up, for tests that run their worker in-process.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { Webhook } from 'standardwebhooks';
import { silentLogger } from '../../src/logger';
import { OutboxListener } from '../../src/webhooks/outbox-listener';
import { createWebhookClient } from '../../src/workflow-clients/webhooks';

export interface ReceivedWebhook {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  payload: { id: string; type: string; created_at: string; data: Record<string, unknown> };
  /** True when `standardwebhooks` verified the signature with the path's secret (null: no secret known). */
  verified: boolean | null;
  status: number;
}

/** What the receiver answers: a status, or a status with headers, or a promise of one (to hold a request). */
export type Answer = number | { status: number; headers?: Record<string, string> } | Promise<number>;

export interface Receiver {
  port: number;
  url(path: string): string;
  received: ReceivedWebhook[];
  on(path: string): ReceivedWebhook[];
  /** Requests that reached `path`, answered or still held. */
  arrivals(path: string): number;
  /** Answers for the next requests to `path`, in order; afterwards 200. */
  plan(path: string, answers: Answer[]): void;
  secret(path: string, secret: string): void;
  /** Every answer waits this long (deliveries stay in flight). */
  setDelay(ms: number): void;
  /** Stops accepting connections (connection refused) until `up()`. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  const plans = new Map<string, Answer[]>();
  const secrets = new Map<string, string>();
  const arrived = new Map<string, number>();
  let delayMs = 0;
  const handler = async (req: IncomingMessage, res: import('node:http').ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = req.url ?? '/';
    arrived.set(path, (arrived.get(path) ?? 0) + 1);
    const headers = {
      'webhook-id': String(req.headers['webhook-id'] ?? ''),
      'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
      'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
    };
    const secret = secrets.get(path);
    let verified: boolean | null = null;
    if (secret) {
      try {
        new Webhook(secret).verify(body, headers);
        verified = true;
      } catch {
        verified = false;
      }
    }
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    const next = plans.get(path)?.shift() ?? 200;
    const answer = typeof next === 'object' && 'then' in next ? await next : next;
    const status = typeof answer === 'number' ? answer : answer.status;
    let payload: ReceivedWebhook['payload'];
    try {
      payload = JSON.parse(body);
    } catch {
      payload = { id: '', type: '', created_at: '', data: {} };
    }
    received.push({
      path,
      id: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      signature: headers['webhook-signature'],
      body,
      payload,
      verified,
      status,
    });
    res.writeHead(status, typeof answer === 'object' ? answer.headers : undefined);
    res.end(status >= 400 ? `nope ${status}` : 'ok');
  };
  let server: Server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const closeServer = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    on: (path) => received.filter((r) => r.path === path),
    arrivals: (path) => arrived.get(path) ?? 0,
    plan: (path, answers) => void plans.set(path, [...answers]),
    secret: (path, secret) => void secrets.set(path, secret),
    setDelay: (ms) => void (delayMs = ms),
    down: closeServer,
    async up() {
      server = createServer((req, res) => void handler(req, res));
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    },
    close: closeServer,
  };
}

/**
 * What `src/main-worker.ts` does at start-up for webhooks: start the dispatcher of `taskQueue` (idempotently)
 * and wake it on every outbox insert. `stop()` ends both (the dispatcher would otherwise outlive the test).
 */
export async function startWebhookDispatcher(opts: {
  client: Client;
  taskQueue: string;
  databaseUrl: string;
  tickMs?: number;
  batchesPerRun?: number;
  pumpMs?: number;
}) {
  const workflows = createWebhookClient({ temporal: { client: opts.client, taskQueue: opts.taskQueue } });
  await workflows.ensureDispatcher({
    tickMs: opts.tickMs ?? 1_000,
    batchesPerRun: opts.batchesPerRun,
    pumpMs: opts.pumpMs,
  });
  const listener = new OutboxListener(opts.databaseUrl, () => workflows.signalOutbox(), silentLogger);
  await listener.start();
  return {
    workflows,
    async stop() {
      await listener.stop();
      await opts.client.workflow
        .getHandle(workflows.dispatcherId)
        .terminate('test over')
        .catch(() => undefined);
    },
  };
}
