/**
 * The worker is a real child process (`src/main-worker.ts`, which starts the dispatcher and its LISTEN
 * itself), SIGKILLed while deliveries are in flight; the receiver is then down for a while. Afterwards every
 * event has arrived (0 lost), and an event that arrived more than once always carried the same webhook-id.
 */
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { connectTemporal } from '../../src/workflow-clients/connection';
import { Client as PgClient } from 'pg';
import { createAccountQueries } from '../../src/db/queries/accounts';
import { insertEvent } from '../../src/db/queries/events';
import { createWebhookQueries } from '../../src/db/queries/webhooks';
import { generateWebhookSecret } from '../../src/domain/webhook-signing';
import { KeyVault } from '../../src/domain/key-vault';
import { webhookDispatcherWorkflowId } from '../../workflows/contracts/webhooks';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { eventually, runEntry, killProcess } from '../helpers/process';
import { uniqueTaskQueue } from '../helpers/temporal';
import { startReceiver, type Receiver } from '../helpers/webhooks';

jest.setTimeout(240_000);

let db: TestDatabase;
let receiver: Receiver;
let connection: Connection;
const taskQueue = uniqueTaskQueue('whcrash');
const workers: ReturnType<typeof runEntry>[] = [];

// Webhook secrets are sealed with it: the test's inserts and the spawned worker must share it.
const masterKey = randomBytes(32);

function startWorker() {
  const worker = runEntry('src/main-worker.ts', [], {
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
    TEMPORAL_TASK_QUEUE: taskQueue,
    MASTER_ENCRYPTION_KEY: masterKey.toString('base64'),
    MASTER_ENCRYPTION_KEY_ID: 'crash',
    PRICING_REFRESH_INTERVAL: '1h',
    RUNPOD_API_BASE_URL: 'http://127.0.0.1:9/v2',
    VASTAI_API_BASE_URL: 'http://127.0.0.1:9',
    LAMBDA_API_BASE_URL: 'http://127.0.0.1:9/api/v1',
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    // Short first steps (the receiver is back within about a second of its last wait), 40 s in all: longer than
    // the receiver stays down while the worker starts on a loaded machine, so nothing runs out of attempts.
    WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s,2s,5s,10s,20s',
    WEBHOOK_CLAIM_LEASE: '5s',
    WEBHOOK_DISPATCH_TICK: '1s',
    WEBHOOK_TIMEOUT_MS: '3000',
    WEBHOOK_BATCH_SIZE: '20',
    LOG_LEVEL: 'warn',
  });
  workers.push(worker);
  return worker;
}

const killWorker = killProcess;

async function count(text: string, values: unknown[]): Promise<number> {
  const client = new PgClient({ connectionString: db.url });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>(text, values)).rows[0]!.n);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startReceiver();
  connection = await connectTemporal({ address: process.env.TEST_TEMPORAL_ADDRESS! });
});

afterAll(async () => {
  for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) await killWorker(w);
  await new Client({ connection }).workflow
    .getHandle(webhookDispatcherWorkflowId(taskQueue))
    .terminate('test over')
    .catch(() => undefined);
  await connection.close();
  await receiver.close();
  await db.drop();
});

it('loses no event when the worker is killed mid-delivery and the receiver is down for a while', async () => {
  const { account } = await createAccountQueries(db.pool).insertAccountWithKey('webhook crash');
  const secret = generateWebhookSecret();
  const endpoint = await createWebhookQueries(db.pool, new KeyVault('crash', masterKey)).insertEndpoint(account.id, {
    url: receiver.url('/crash'),
    events: ['instance.started'],
    secret,
  });
  receiver.secret('/crash', secret);
  const written: string[] = [];
  const writeEvents = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const key = `crash-${written.length}`;
      await insertEvent(db.pool, {
        accountId: account.id,
        type: 'instance.started',
        data: { n: written.length },
        dedupeKey: key,
      });
      written.push(key);
    }
  };
  const receivedEventIds = () =>
    new Set(
      receiver
        .on('/crash')
        .filter((r) => r.status === 200)
        .map((r) => r.payload.data.n),
    );

  let worker = startWorker();
  receiver.setDelay(150); // deliveries stay in flight long enough to be cut off
  await writeEvents(40);
  await eventually('deliveries under way', () => (receiver.arrivals('/crash') >= 10 ? true : undefined), 90_000, 50);
  await killWorker(worker);
  const succeededAtKill = `SELECT count(*) AS n FROM webhook_deliveries
    WHERE endpoint_id = $1 AND status = 'succeeded'`;
  expect(await count(succeededAtKill, [endpoint.id])).toBeLessThan(40); // it died with deliveries unfinished

  // While the worker is dead, more events land; then the receiver goes down too.
  await writeEvents(25);
  await receiver.down();
  worker = startWorker();
  await eventually(
    'failed attempts while the receiver is down',
    async () =>
      (await count(
        `SELECT count(*) AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
                  WHERE d.endpoint_id = $1 AND a.status_code IS NULL`,
        [endpoint.id],
      )) >= 10
        ? true
        : undefined,
    90_000,
    200,
  );
  await writeEvents(15);
  receiver.setDelay(0);
  await receiver.up();

  await eventually(
    'every event at the receiver',
    () => (receivedEventIds().size === written.length ? true : undefined),
    150_000,
    250,
  );
  const got = receiver.on('/crash');
  expect(got.every((r) => r.verified)).toBe(true);
  // 0 lost: each written event arrived; duplicates (at least once) only ever with the event's one webhook-id.
  const idsByEvent = new Map<number, Set<string>>();
  for (const r of got) {
    const n = r.payload.data.n as number;
    idsByEvent.set(n, (idsByEvent.get(n) ?? new Set()).add(r.id));
  }
  expect([...idsByEvent.keys()].sort((a, b) => a - b)).toEqual(written.map((_, i) => i));
  expect([...idsByEvent.values()].every((ids) => ids.size === 1)).toBe(true);
  // A receipt whose answer was cut off is retried (same webhook-id) until its delivery records the success.
  await eventually(
    'every delivery recorded as succeeded',
    async () =>
      (await count(`SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'succeeded'`, [
        endpoint.id,
      ])) === written.length
        ? true
        : undefined,
    90_000,
    250,
  );
  expect(await count(`SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = $1`, [endpoint.id])).toBe(
    written.length,
  );
  await killWorker(worker);
});
