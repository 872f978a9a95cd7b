import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { runEntry } from '../helpers/process';
import { createApp } from '../../src/http/app';
import { testAppDeps } from '../helpers/context';
import request from 'supertest';
import { parseConfig, ConfigError } from '../../src/config';
import { z } from 'zod';
import { sql } from '../../src/db/sql';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

describe('configuration', () => {
  it('parses defaults and coerces numbers', () => {
    const config = parseConfig({ PORT: '8080' });
    expect(config.PORT).toBe(8080);
    expect(config.TEMPORAL_NAMESPACE).toBe('default');
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('names every bad variable', () => {
    let error: ConfigError | undefined;
    try {
      parseConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', MASTER_ENCRYPTION_KEY: 'short' });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'DATABASE_URL',
      'MASTER_ENCRYPTION_KEY',
      'PORT',
    ]);
  });

  it.concurrent('stops a process with exit code 1 and a clear message on a bad value', async () => {
    const run = runEntry('src/main-api.ts', [], {
      PORT: '99999',
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: '127.0.0.1:1',
    });
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(/Invalid configuration:\n\s+- PORT: /);
  });

  it.concurrent('stops the API with exit code 1 when DATABASE_URL is missing', async () => {
    const run = runEntry('src/main-api.ts', [], { DATABASE_URL: '', TEMPORAL_ADDRESS: '127.0.0.1:7233' });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain('DATABASE_URL: required');
  });
});

describe('npm run db:migrate', () => {
  it('applies nothing the second time', async () => {
    // The template database was migrated by the global setup; this database is a clone of it.
    const run = runEntry('src/cli/migrate.ts', [], { DATABASE_URL: db.url });
    expect(await run.exited).toBe(0);
    const result = JSON.parse(run.output().trim().split('\n').pop()!);
    expect(result.applied).toEqual([]);
    expect(result.previously_applied).toBeGreaterThan(0);
  });
});

describe('npm run account:create', () => {
  it.concurrent('prints the account id and a key that authenticates', async () => {
    const run = runEntry('src/cli/account-create.ts', ['--name', 'Ada'], { DATABASE_URL: db.url });
    expect(await run.exited).toBe(0);
    const printed = JSON.parse(run.output().trim());
    expect(Object.keys(printed).sort()).toEqual(['account_id', 'api_key']);
    expect(printed.account_id).toMatch(/^acct_/);
    const app = createApp(testAppDeps(db.pool));
    const res = await request(app.callback()).get('/v1/ssh-keys').set('Authorization', `Bearer ${printed.api_key}`);
    expect(res.status).toBe(200);
  });

  it.concurrent(
    'with no variable set, uses the database the last `npm start` recorded in DATA_DIR/local.json',
    async () => {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gpuo-cli-'));
      await writeFile(path.join(dataDir, 'local.json'), JSON.stringify({ database_url: db.url }));
      const run = runEntry('src/cli/account-create.ts', ['--name', 'Local'], { DATABASE_URL: '', DATA_DIR: dataDir });
      expect(await run.exited).toBe(0);
      const printed = JSON.parse(run.output().trim());
      const res = await request(createApp(testAppDeps(db.pool)).callback())
        .get('/v1/ssh-keys')
        .set('Authorization', `Bearer ${printed.api_key}`);
      expect(res.status).toBe(200);
    },
  );

  it.concurrent('refuses a missing name with exit code 1', async () => {
    const run = runEntry('src/cli/account-create.ts', [], { DATABASE_URL: db.url });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain('usage: npm run account:create -- --name <name>');
  });

  it.concurrent('grants --credit as one credit_grant transaction the account can see', async () => {
    const run = runEntry('src/cli/account-create.ts', ['--name', 'Grace', '--credit', '25.50'], {
      DATABASE_URL: db.url,
    });
    expect(await run.exited).toBe(0);
    const printed = JSON.parse(run.output().trim());
    const http = request(createApp(testAppDeps(db.pool)).callback());
    const auth = { Authorization: `Bearer ${printed.api_key}` };
    expect((await http.get('/v1/billing/balance').set(auth)).body).toEqual({ balance: 25.5, currency: 'usd' });
    const grants = await http.get('/v1/billing/transactions?type=credit_grant').set(auth);
    expect(grants.status).toBe(200);
    expect(grants.body.data).toEqual([
      expect.objectContaining({ type: 'credit_grant', amount: 25.5, balance_after: 25.5 }),
    ]);
    expect(grants.body.data[0].instance_id).toBeUndefined();
  });

  it.concurrent.each([['-5'], ['0'], ['1.234'], ['ten'], ['2000000']])(
    'refuses --credit %s with exit code 1 and creates nothing',
    async (credit) => {
      const run = runEntry('src/cli/account-create.ts', ['--name', `bad credit ${credit}`, '--credit', credit], {
        DATABASE_URL: db.url,
      });
      expect(await run.exited).toBe(1);
      expect(run.output()).toContain('--credit <dollars>');
      const found = await db.pool.anyFirst(
        sql.type(z.object({ id: z.string() }))`SELECT id FROM accounts WHERE name = ${`bad credit ${credit}`}`,
      );
      expect(found).toEqual([]);
    },
  );
});
