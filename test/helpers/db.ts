/** One fresh database per test file, cloned from the migrated template the global setup made. */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createDatabasePool, type Pool } from '../../src/db/pool';

export interface TestDatabase {
  url: string;
  pool: Pool;
  /** Rows of one plain SQL query (`$1` parameters) on its own connection: what a test reads behind the API's back. */
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
      await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/** Rows of one query on its own short-lived connection: what a test reads behind the API's back. */
export async function queryRows<T = Record<string, unknown>>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}
