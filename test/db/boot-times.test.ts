/**
 * The boots boot deadlines are learned from (`recentBootsMs`, src/db/queries/boot-times.ts): the newest ones of
 * the same provider and GPU, launch row to running, never a boot that has not happened or ran backwards; read
 * through an index in order (migration 021), not by scanning and sorting the table.
 */
import { sql } from 'slonik';
import { z } from 'zod';
import { createBootTimeQueries } from '../../src/db/queries/boot-times';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

let db: TestDatabase;
/**
 * Enough rows that reading the whole table would be the planner's last choice, as in a service that has run a
 * while.
 */
const ROWS = 20_000;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(sql.unsafe`INSERT INTO accounts (id, name) VALUES ('acct_boots', 'boots')`);
  // Per row i: written i minutes after a base moment, running (10 + i) s later. Every 5th has not started; one
  // "started" before its row (a clock gone wrong); others are another GPU or another provider.
  await db.pool.query(sql.unsafe`
    INSERT INTO instances
      (id, account_id, request_hash, provider, name, status, gpu_type, gpu_count, created_at, started_at)
    SELECT 'launch-b-' || i, 'acct_boots', 'h',
      CASE WHEN i % 7 = 3 THEN 'vastai' ELSE 'runpod' END, 'b' || i, 'running',
      CASE WHEN i % 11 = 4 THEN 'rtx-4090' ELSE 'rtx-a6000' END, 1,
      timestamptz '2026-11-01 00:00:00+00' + i * interval '1 minute',
      CASE WHEN i % 5 = 0 THEN NULL
           WHEN i = 19999 THEN timestamptz '2026-11-01 00:00:00+00' + i * interval '1 minute' - interval '5 seconds'
           ELSE timestamptz '2026-11-01 00:00:00+00' + i * interval '1 minute' + (10 + i) * interval '1 second' END
    FROM generate_series(1, ${ROWS}) AS i`);
  await db.pool.query(sql.unsafe`ANALYZE instances`);
});
afterAll(async () => {
  await db.drop();
});

it('the newest boots of the provider and GPU, newest first, in milliseconds', async () => {
  const boots = createBootTimeQueries(db.pool);
  const expected = Array.from({ length: ROWS }, (_, k) => ROWS - k)
    .filter((i) => i % 7 !== 3 && i % 11 !== 4 && i % 5 !== 0 && i !== 19999)
    .map((i) => (10 + i) * 1000);
  expect(await boots.recentBootsMs('runpod', 'rtx-a6000', 50)).toEqual(expected.slice(0, 50));
  expect(await boots.recentBootsMs('runpod', 'rtx-a6000')).toEqual(expected.slice(0, 200));
  expect(await boots.recentBootsMs('lambda', 'rtx-a6000')).toEqual([]);
});

it('is read through the boots index, not by scanning the table', async () => {
  const plan = await db.pool.anyFirst(sql.type(z.object({ 'QUERY PLAN': z.string() }))`
    EXPLAIN SELECT (extract(epoch FROM started_at - created_at) * 1000)::bigint AS ms FROM instances
    WHERE provider = 'runpod' AND gpu_type = 'rtx-a6000' AND started_at IS NOT NULL AND started_at >= created_at
    ORDER BY created_at DESC LIMIT 200`);
  expect(plan.join('\n')).toContain('instances_boots_idx');
  expect(plan.join('\n')).not.toMatch(/Seq Scan|Sort/);
});
