/**
 * The slonik pool every query module uses (`src/db/pool.ts`): each row is checked against the query's zod
 * schema, int8 and timestamptz come back as the API shows them, and a connection goes back to the pool without
 * `DISCARD ALL`, so the next caller gets a working connection after a failed statement or a rolled-back
 * transaction.
 */
import { SchemaValidationError, sql } from 'slonik';
import { z } from 'zod';
import { createDatabasePool, type Pool } from '../../src/db/pool';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  // One connection: every query below reuses the connection the one before it gave back.
  pool = await createDatabasePool(db.url, { maximumPoolSize: 1 });
});

afterAll(async () => {
  await pool.end();
  await db.drop();
});

describe('the database pool', () => {
  it('parses each row with its schema: int8 as a number, timestamptz as ISO 8601 with Z', async () => {
    const row = await pool.one(
      sql.type(
        z.object({ n: z.number(), at: z.string() }),
      )`SELECT 9007199254740991::int8 AS n, '2026-11-24 10:00:00+02'::timestamptz AS at`,
    );
    expect(row).toEqual({ n: 9007199254740991, at: '2026-11-24T08:00:00.000Z' });
  });

  it('refuses a row that does not match its schema, naming the field', async () => {
    const query = pool.one(sql.type(z.object({ n: z.number() }))`SELECT 'seven'::text AS n`);
    await expect(query).rejects.toBeInstanceOf(SchemaValidationError);
    await expect(query).rejects.toMatchObject({ issues: [expect.objectContaining({ path: ['n'] })] });
  });

  it('applies the schema to every row of a many-row result', async () => {
    const rows = await pool.any(
      sql.type(z.object({ i: z.number().transform((i) => i * 2) }))`SELECT generate_series(1, 50)::int AS i`,
    );
    expect(rows.map((r) => r.i)).toEqual(Array.from({ length: 50 }, (_, k) => (k + 1) * 2));
    const bad = pool.any(sql.type(z.object({ i: z.number().max(49) }))`SELECT generate_series(1, 50)::int AS i`);
    await expect(bad).rejects.toBeInstanceOf(SchemaValidationError);
  });

  it('hands its one connection on working after a failed statement and a rolled-back transaction', async () => {
    await expect(pool.query(sql.unsafe`SELECT 1 / 0`)).rejects.toThrow(/division by zero/);
    await expect(
      pool.transaction(async (tx) => {
        await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(42)`);
        await tx.query(sql.unsafe`SELECT no_such_column FROM pg_class`);
      }),
    ).rejects.toThrow(/no_such_column/);
    // Not inside a transaction any more, and the transaction's advisory lock went with it.
    const state = await pool.one(
      sql.type(z.object({ in_tx: z.boolean(), locks: z.number() }))`
        SELECT now() <> statement_timestamp() AS in_tx,
               (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid())::int AS locks`,
    );
    expect(state).toEqual({ in_tx: false, locks: 0 });
  });
});
