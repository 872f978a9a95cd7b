/**
 * Per-test-file context: a fresh database, a Temporal client on the run's dev server, and the Koa app
 * driven in-process through supertest. `newAccount()` returns an account and a ready authorized agent.
 */
import { Client, Connection } from '@temporalio/client';
import request from 'supertest';
import type Koa from 'koa';
import { createAccountQueries } from '../../src/db/queries/accounts';
import { createApp } from '../../src/http/app';
import { silentLogger } from '../../src/logger';
import { createTestDatabase, type TestDatabase } from './db';

export interface TestContext {
  db: TestDatabase;
  temporal: Client;
  app: Koa;
  http: ReturnType<typeof request>;
  newAccount(name?: string): Promise<{ accountId: string; apiKey: string; auth: { Authorization: string } }>;
  close(): Promise<void>;
}

export async function createTestContext(): Promise<TestContext> {
  const db = await createTestDatabase();
  const connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  const temporal = new Client({ connection });
  const app = createApp({ pool: db.pool, logger: silentLogger, temporal: { client: temporal } });
  const server = app.callback();
  const accounts = createAccountQueries(db.pool);
  return {
    db,
    temporal,
    app,
    http: request(server),
    async newAccount(name = 'test account') {
      const { account, apiKey } = await accounts.insertAccountWithKey(name);
      return { accountId: account.id, apiKey, auth: { Authorization: `Bearer ${apiKey}` } };
    },
    async close() {
      await connection.close();
      await db.drop();
    },
  };
}
