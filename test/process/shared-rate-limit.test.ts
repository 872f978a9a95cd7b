/**
 * Two real API processes (`src/main-api.ts`) on one database enforce one unauthenticated limit per client
 * address and one failed-authentication limit: the requests both accept together stay within the limit.
 * Each burst uses an address of its own (X-Forwarded-For), so bursts never share a window; a burst that
 * straddles a minute boundary (two windows, so up to twice the limit) is run again on a fresh address.
 */
import { randomBytes } from 'node:crypto';
import { createAccountQueries } from '../../src/db/queries/accounts';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { freePort } from '../helpers/ports';
import { eventually, killProcess, runEntry } from '../helpers/process';
import { uniqueTaskQueue } from '../helpers/temporal';

jest.setTimeout(180_000);

const UNAUTHENTICATED_LIMIT = 50;
const AUTH_FAILURE_LIMIT = 8;

let db: TestDatabase;
let apiUrls: string[];
const apis: ReturnType<typeof runEntry>[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  const env = {
    DATABASE_URL: db.url,
    DATABASE_POOL_SIZE: '4',
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
    TEMPORAL_TASK_QUEUE: uniqueTaskQueue('ratelimit'),
    MASTER_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: String(UNAUTHENTICATED_LIMIT),
    RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: String(AUTH_FAILURE_LIMIT),
    // The test's bursts name their address in X-Forwarded-For, as one proxy in front would.
    TRUST_PROXY: '1',
  };
  const ports = [await freePort(), await freePort()];
  apiUrls = ports.map((p) => `http://127.0.0.1:${p}`);
  for (const port of ports) apis.push(runEntry('src/main-api.ts', [], { ...env, PORT: String(port), OPS_PORT: '0' }));
  await eventually(
    'two APIs ready',
    async () => {
      const dead = apis.find((p) => p.child.exitCode !== null);
      if (dead) throw new Error(`an API exited during start-up: ${dead.output().slice(-2000)}`);
      const ready = await Promise.all(
        apiUrls.map((u) =>
          fetch(`${u}/healthz`).then(
            (r) => r.status === 200,
            () => false,
          ),
        ),
      );
      return ready.every(Boolean) ? true : undefined;
    },
    120_000,
    250,
  );
});

afterAll(async () => {
  await Promise.allSettled(apis.map(killProcess));
  await db?.drop();
});

/**
 * Sends `count` requests alternating between the two APIs from one fresh address; retried once across a minute
 * boundary.
 */
async function burst(count: number, path: string, headers: Record<string, string> = {}): Promise<number[]> {
  for (let attempt = 0; ; attempt++) {
    const address = `198.51.100.${Math.floor(Math.random() * 250)}`;
    const minute = Math.floor(Date.now() / 60_000);
    const statuses = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        fetch(`${apiUrls[i % 2]}${path}`, { headers: { ...headers, 'X-Forwarded-For': address } }).then(
          (r) => r.status,
        ),
      ),
    );
    if (Math.floor(Date.now() / 60_000) === minute || attempt > 0) return statuses;
  }
}

it('unauthenticated requests: the two processes together accept at most the limit per address', async () => {
  const statuses = await burst(200, '/v1/pricing');
  // Accepted = not refused by the limiter (this database has no pricing snapshot yet: 503 is the route's own answer).
  const accepted = statuses.filter((s) => s !== 429).length;
  process.stderr.write(
    `two API processes, limit ${UNAUTHENTICATED_LIMIT}/min: ${accepted} of 200 accepted, ` +
      `${statuses.filter((s) => s === 429).length} refused\n`,
  );
  expect(accepted).toBeLessThanOrEqual(UNAUTHENTICATED_LIMIT);
  expect(accepted).toBeGreaterThanOrEqual(UNAUTHENTICATED_LIMIT - 2 * Math.ceil(UNAUTHENTICATED_LIMIT / 8));
});

it('failed authentications: at most the limit are answered 401 across both processes, the rest 429', async () => {
  const { apiKey } = await createAccountQueries(db.pool).insertAccountWithKey('target');
  const guessed = `${apiKey.slice(0, -4)}ZZZZ`;
  const statuses = await burst(60, '/v1/alerts', { Authorization: `Bearer ${guessed}` });
  expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(AUTH_FAILURE_LIMIT);
  expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(60 - AUTH_FAILURE_LIMIT);
});
