import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { runEntry } from '../helpers/process';
import { createApp } from '../../src/http/app';
import { testAppDeps } from '../helpers/context';
import request from 'supertest';
import { parseConfig, ConfigError } from '../../src/config';

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
    expect(error!.problems.map((p) => p.split(':')[0]).sort()).toEqual(['DATABASE_URL', 'MASTER_ENCRYPTION_KEY', 'PORT']);
  });

  it('stops a process with exit code 1 and a clear message on a bad value', async () => {
    const run = runEntry('src/main-api.ts', [], { PORT: '99999', DATABASE_URL: db.url, TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(/Invalid configuration:\n\s+- PORT: /);
  });

  it('stops the API with exit code 1 when DATABASE_URL is missing', async () => {
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
  it('prints the account id and a key that authenticates', async () => {
    const run = runEntry('src/cli/account-create.ts', ['--name', 'Ada'], { DATABASE_URL: db.url });
    expect(await run.exited).toBe(0);
    const printed = JSON.parse(run.output().trim());
    expect(Object.keys(printed).sort()).toEqual(['account_id', 'api_key']);
    expect(printed.account_id).toMatch(/^acct_/);
    const app = createApp(testAppDeps(db.pool));
    const res = await request(app.callback()).get('/v1/ssh-keys').set('Authorization', `Bearer ${printed.api_key}`);
    expect(res.status).toBe(200);
  });

  it('refuses a missing name with exit code 1', async () => {
    const run = runEntry('src/cli/account-create.ts', [], { DATABASE_URL: db.url });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain('usage: npm run account:create -- --name <name>');
  });
});
