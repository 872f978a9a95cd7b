/**
 * The moment metering starts (`markRunning`, src/db/queries/instances.ts): the provider's reported start when
 * it is plausible (not after we saw the instance running, not more than 1 s before the row was written), the
 * accepted create for a provider that bills from it (Lambda) and reports no start, the first sight otherwise;
 * `instance.started` written with it, once, carrying the same moment; a second word changes neither.
 */
import { sql } from 'slonik';
import { z } from 'zod';
import { createInstanceQueries, type InstanceQueries } from '../../src/db/queries/instances';
import type { ProviderId, ProviderInstance } from '../../src/providers/types';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

let db: TestDatabase;
let instances: InstanceQueries;
const ACCOUNT = 'acct_start';

beforeAll(async () => {
  db = await createTestDatabase();
  instances = createInstanceQueries(db.pool);
  await db.pool.query(sql.unsafe`INSERT INTO accounts (id, name) VALUES (${ACCOUNT}, 'start')`);
});
afterAll(async () => {
  await db.drop();
});

// The row was written at CREATED (µs precision, as Postgres keeps it), the provider accepted the create 2 s later.
const CREATED = '2026-11-24T10:00:00.123456Z';
const ACCEPTED = '2026-11-24T10:00:02.345678Z';
const SEEN = new Date('2026-11-24T10:01:00.000Z');

let n = 0;
async function bootingRow(provider: ProviderId): Promise<string> {
  const id = `launch-${ACCOUNT}-${++n}`;
  await db.pool.query(sql.unsafe`
    INSERT INTO instances (id, account_id, request_hash, provider, provider_instance_id, name, status, gpu_type,
      gpu_count, price_per_hour_micros, created_at, accepted_at)
    VALUES (${id}, ${ACCOUNT}, 'h', ${provider}, ${`p-${n}`}, ${`gpuo-${n}`}, 'provisioning', 'rtx-4090',
      1, 1000000, ${CREATED}, ${ACCEPTED})`);
  return id;
}

function seenRunning(startedAt: string | null): ProviderInstance {
  return {
    id: 'p',
    provider: 'runpod', // not read: the row says which provider
    name: 'gpuo',
    status: 'running',
    providerStatus: 'RUNNING',
    gpuType: 'rtx-4090',
    gpuCount: 1,
    pricePerHour: 1,
    spot: false,
    region: null,
    dockerImage: null,
    publicIp: '203.0.113.7',
    ssh: { host: '203.0.113.7', port: 22, user: 'root' },
    createdAt: null,
    startedAt,
  };
}

const startedEvents = (id: string) =>
  db.pool.any(sql.type(z.object({ data: z.record(z.unknown()) }))`
    SELECT data FROM events WHERE account_id = ${ACCOUNT} AND dedupe_key = ${`instance.started:${id}`}`);

/** Marks the row running on `seen`, checks the row and its one event, and returns where metering started. */
async function startOf(provider: ProviderId, seen: ProviderInstance): Promise<string> {
  const id = await bootingRow(provider);
  const row = await instances.markRunning(id, SEEN, seen);
  expect(row).toMatchObject({
    status: 'running',
    provider_status: 'RUNNING',
    public_ip: '203.0.113.7',
    ssh: { host: '203.0.113.7', port: 22, user: 'root' },
  });
  expect(row.metered_through).toBe(row.started_at);
  expect((await startedEvents(id)).map((e) => e.data)).toEqual([
    { instance_id: row.provider_instance_id, provider, gpu_type: 'rtx-4090', started_at: row.started_at },
  ]);
  return row.started_at!;
}

it("starts at the provider's reported start when it lies between the row (less 1 s) and the first sight", async () => {
  expect(await startOf('runpod', seenRunning('2026-11-24T10:00:30.456Z'))).toBe('2026-11-24T10:00:30.456Z');
  // Within the 1 s allowed before the row (the provider's clock and ours differ a little).
  expect(await startOf('vastai', seenRunning('2026-11-24T09:59:59.500Z'))).toBe('2026-11-24T09:59:59.500Z');
});

it('starts at the first sight when the reported start is not plausible or not a time', async () => {
  expect(await startOf('runpod', seenRunning('2026-11-24T10:01:00.001Z'))).toBe(SEEN.toISOString()); // after we saw it
  // More than 1 s before the row.
  expect(await startOf('vastai', seenRunning('2026-11-24T09:59:59.000Z'))).toBe(SEEN.toISOString());
  expect(await startOf('runpod', seenRunning(null))).toBe(SEEN.toISOString()); // none reported
  expect(await startOf('lambda', seenRunning('yesterday-ish'))).toBe(SEEN.toISOString()); // said, but not a time
});

it('Lambda (bills from the create, reports no start) starts at the accepted create, to the millisecond', async () => {
  expect(await startOf('lambda', seenRunning(null))).toBe('2026-11-24T10:00:02.345Z');
});

it('a second word about the same start moves nothing and writes no second event', async () => {
  const id = await bootingRow('runpod');
  const first = await instances.markRunning(id, SEEN, seenRunning('2026-11-24T10:00:30.456Z'));
  const again = await instances.markRunning(id, new Date(SEEN.getTime() + 60_000), {
    ...seenRunning('2026-11-24T10:00:45.000Z'),
    publicIp: null,
    ssh: null,
  });
  expect(again.started_at).toBe(first.started_at);
  expect(again.metered_through).toBe(first.metered_through);
  expect(again.public_ip).toBe('203.0.113.7'); // kept when the provider's answer lacks it
  expect(await startedEvents(id)).toHaveLength(1);
});

it('an unknown row is an error, and writes nothing', async () => {
  await expect(instances.markRunning('launch-nobody', SEEN, seenRunning(null))).rejects.toThrow();
  expect(await startedEvents('launch-nobody')).toEqual([]);
});
