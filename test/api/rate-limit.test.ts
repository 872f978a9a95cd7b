import request from 'supertest';
import { createAccountQueries } from '../../src/db/queries/accounts';
import { createApiKeyQueries } from '../../src/db/queries/api-keys';
import { createApp } from '../../src/http/app';
import { RateLimiter } from '../../src/http/rate-limit';
import { RateLimitedError } from '../../src/errors';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { testAppDeps } from '../helpers/context';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

describe('per-account rate limit', () => {
  it(
    'answers 429 rate_limited with Retry-After once an account spends its burst, ' +
      'and leaves other accounts and public routes alone',
    async () => {
      const http = request(createApp(testAppDeps(db.pool, { rateLimit: { burst: 3, perMinute: 60 } })).callback());
      const accounts = createAccountQueries(db.pool);
      const a = `Bearer ${(await accounts.insertAccountWithKey('a')).apiKey}`;
      const b = `Bearer ${(await accounts.insertAccountWithKey('b')).apiKey}`;
      for (let i = 0; i < 3; i++) expect((await http.get('/v1/templates').set('Authorization', a)).status).toBe(200);
      const limited = await http.get('/v1/templates').set('Authorization', a);
      expect(limited.status).toBe(429);
      expect(limited.headers['retry-after']).toBe('1');
      expect(limited.body.error).toMatchObject({ code: 'rate_limited', request_id: limited.headers['x-request-id'] });
      expect((await http.get('/v1/templates').set('Authorization', b)).status).toBe(200);
      expect((await http.get('/healthz')).status).toBe(200);
    },
  );

  it(
    'one budget per account: a second key of the same account is refused ' + "once the first spent the account's burst",
    async () => {
      const http = request(createApp(testAppDeps(db.pool, { rateLimit: { burst: 3, perMinute: 60 } })).callback());
      const { account, apiKey } = await createAccountQueries(db.pool).insertAccountWithKey('two-keys');
      const second = await createApiKeyQueries(db.pool).insertApiKey(account.id, { name: 'second', scopes: ['read'] });
      for (let i = 0; i < 3; i++) {
        expect((await http.get('/v1/templates').set('Authorization', `Bearer ${apiKey}`)).status).toBe(200);
      }
      const limited = await http.get('/v1/templates').set('Authorization', `Bearer ${second.apiKey}`);
      expect(limited.status).toBe(429);
      expect(limited.body.error.message).toMatch(/this account \(all its keys together\)/);
    },
  );

  it('refills at the steady rate', () => {
    let now = 0;
    const limiter = new RateLimiter({ burst: 2, perMinute: 60 }, () => now);
    limiter.take('k');
    limiter.take('k');
    expect(() => limiter.take('k')).toThrow(RateLimitedError);
    now += 999;
    expect(() => limiter.take('k')).toThrow(RateLimitedError);
    now += 1;
    expect(() => limiter.take('k')).not.toThrow();
  });
});
