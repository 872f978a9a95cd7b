/** One fresh database per test file, cloned from the migrated template the global setup made. */
import { randomBytes } from 'node:crypto';
import { Client, Pool as PgPool } from 'pg';
import { createDatabasePool, type Pool } from '../../src/db/pool';

export interface TestDatabase {
  url: string;
  pool: Pool;
  /**
   * Rows of one plain SQL query (`$1` parameters) on a connection of the test's own (not the app's pool): what a
   * test reads behind the API's back.
   */
  sql<T = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

function env(name: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(`${name} is not set: run the tests through jest (npm test), whose global setup starts Postgres`);
  return value;
}

async function admin<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: env('TEST_PG_ADMIN_URL') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const template = env('TEST_PG_TEMPLATE');
  // CREATE DATABASE ... TEMPLATE fails if another session is connected to the template; retry briefly.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));
      break;
    } catch (err) {
      if (attempt >= 20 || !/being accessed by other users/.test((err as Error).message)) throw err;
      await new Promise((r) => setTimeout(r, 100 + attempt * 50));
    }
  }
  const url = env('TEST_PG_ADMIN_URL').replace(/\/[^/]*$/, `/${name}`);
  const pool = await createDatabasePool(url, { maximumPoolSize: 20 });
  return {
    url,
    pool,
    sql: (text, values) => queryRows(url, text, values),
    drop: async () => {
      await pool.end();
      await closeReader(url);
      await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/**
 * The plain pg pools of {@link queryRows}, one per database URL. A test's reads reuse a connection: one per read
 * (a forked backend and a SCRAM handshake on both sides each time) was most of the suite's connections.
 */
const readers = new Map<string, PgPool>();

function reader(url: string): PgPool {
  let pool = readers.get(url);
  if (!pool) {
    pool = new PgPool({ connectionString: url, max: 2, idleTimeoutMillis: 10_000, allowExitOnIdle: true });
    // An idle connection ended from the server side (DROP DATABASE ... WITH (FORCE)) is only dropped from the pool.
    pool.on('error', () => undefined);
    readers.set(url, pool);
  }
  return pool;
}

/** Ends the reading connections of a database (before it is dropped). */
export async function closeReader(url: string): Promise<void> {
  const pool = readers.get(url);
  readers.delete(url);
  await pool?.end();
}

/** Rows of one query on a connection of the test's own, apart from the app's pool: a read behind the API's back. */
export async function queryRows<T = Record<string, unknown>>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  return (await reader(url).query(text, values)).rows as T[];
}
