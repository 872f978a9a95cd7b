/**
 * The rate limits shared across API processes (src/http/shared-rate-limit.ts) on real Postgres: two limiter
 * instances stand for two processes (each process has exactly one), with a clock the test holds so a
 * minute's window never ends mid-test. The whole-process version is test/process/shared-rate-limit.test.ts.
 */
import request from 'supertest';
import { createApp } from '../../src/http/app';
import { createRateLimitQueries, type RateLimitStore } from '../../src/db/queries/rate-limits';
import { createAccountQueries } from '../../src/db/queries/accounts';
import { SharedWindowLimits } from '../../src/http/shared-rate-limit';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { testAppDeps } from '../helpers/context';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

let now = Date.UTC(2026, 0, 1, 12, 0, 10);
const clock = () => now;

/** The real store, counting its round trips. */
function countingStore(): RateLimitStore & { calls: number } {
  const store = createRateLimitQueries(db.pool);
  const counted = {
    calls: 0,
    reserve: (...args: Parameters<RateLimitStore['reserve']>) => {
      counted.calls++;
      return store.reserve(...args);
    },
    forgetWindowsBefore: (before: number) => store.forgetWindowsBefore(before),
  };
  return counted;
}

describe('SharedWindowLimits on Postgres', () => {
  it(
    'two processes together accept at most the limit, ' + 'with one store round trip per block, not per request',
    async () => {
      const store = countingStore();
      const a = new SharedWindowLimits(store, { now: clock });
      const b = new SharedWindowLimits(store, { now: clock });
      const key = `ip:${Math.random()}`;
      let accepted = 0;
      // 300 requests, interleaved across the two processes, half of them concurrent.
      for (let i = 0; i < 150; i++) {
        const answers = await Promise.all([a.take(key, 100), b.take(key, 100)]);
        accepted += answers.filter(Boolean).length;
      }
      expect(accepted).toBeLessThanOrEqual(100);
      // Under-acceptance is bounded by the blocks still unspent when the window filled.
      expect(accepted).toBeGreaterThanOrEqual(100 - 2 * Math.ceil(100 / 8));
      expect(store.calls).toBeLessThan(60);
      // Once a process knows the window is spent, refusing costs nothing.
      const calls = store.calls;
      for (let i = 0; i < 50; i++) expect(a.take(key, 100)).toBe(false);
      expect(store.calls).toBe(calls);
    },
  );

  it('a new window accepts again', async () => {
    const limits = new SharedWindowLimits(countingStore(), { now: clock });
    const key = `ip:${Math.random()}`;
    for (let i = 0; i < 3; i++) expect(await limits.take(key, 3)).toBe(true);
    expect(await limits.take(key, 3)).toBe(false);
    expect(limits.retryAfterSeconds()).toBeGreaterThan(0);
    now += 60_000;
    expect(await limits.take(key, 3)).toBe(true);
  });

  it('while the store is unreachable, each process still holds the limit for itself', async () => {
    const failures: unknown[] = [];
    const broken: RateLimitStore = {
      reserve: () => Promise.reject(new Error('connection refused')),
      forgetWindowsBefore: () => Promise.resolve(),
    };
    const limits = new SharedWindowLimits(broken, { now: clock, onStoreError: (err) => failures.push(err) });
    const key = `ip:${Math.random()}`;
    let accepted = 0;
    for (let i = 0; i < 30; i++) if (await limits.take(key, 20)) accepted++;
    expect(accepted).toBe(20);
    expect(failures.length).toBeGreaterThan(0);
  });
});

describe('through the API (two apps on one database)', () => {
  // Behind one proxy (TRUST_PROXY=1): the tests name each client's address in X-Forwarded-For.
  const apps = (rateLimit: object, trustProxyHops = 1) =>
    [0, 1].map(() =>
      request(
        createApp(
          testAppDeps(db.pool, {
            trustProxyHops,
            rateLimit: { burst: 1_000, perMinute: 1_000, now: clock, ...rateLimit },
          }),
        ).callback(),
      ),
    );

  it(
    'unauthenticated requests per client address: the sum over both apps stays within the limit, ' +
      'other addresses unaffected',
    async () => {
      const [one, two] = apps({ unauthenticatedPerMinute: 40 });
      const address = `198.51.100.${Math.floor(Math.random() * 250)}`;
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) => (i % 2 ? one! : two!).get('/v1/pricing').set('X-Forwarded-For', address)),
      );
      // Accepted = not refused by the limiter (this database has no pricing snapshot: 503 is the route's own answer).
      const ok = answers.filter((r) => r.status !== 429).length;
      expect(ok).toBeLessThanOrEqual(40);
      expect(ok).toBeGreaterThanOrEqual(30);
      const limited = answers.find((r) => r.status === 429)!;
      expect(limited.body.error).toMatchObject({
        code: 'rate_limited',
        message: expect.stringContaining('40 a minute'),
      });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect((await one!.get('/v1/pricing').set('X-Forwarded-For', '203.0.113.7')).status).not.toBe(429);
    },
  );

  it(
    'failed authentications per address: past the limit, ' + '429 for every key from that address, also a valid one',
    async () => {
      const [one, two] = apps({ authFailuresPerMinute: 6 });
      const { apiKey } = await createAccountQueries(db.pool).insertAccountWithKey('victim');
      const address = `192.0.2.${Math.floor(Math.random() * 250)}`;
      const unknownKey = `${apiKey.slice(0, -4)}XXXX`;
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) {
        statuses.push(
          (
            await (i % 2 ? one! : two!)
              .get('/v1/alerts')
              .set('Authorization', `Bearer ${unknownKey}`)
              .set('X-Forwarded-For', address)
          ).status,
        );
      }
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(6);
      expect(statuses.slice(-10)).toEqual(Array(10).fill(429));
      expect(
        (await one!.get('/v1/alerts').set('Authorization', `Bearer ${apiKey}`).set('X-Forwarded-For', address)).status,
      ).toBe(429);
      expect(
        (await one!.get('/v1/alerts').set('Authorization', `Bearer ${apiKey}`).set('X-Forwarded-For', '203.0.113.9'))
          .status,
      ).toBe(200);
    },
  );

  it(
    'without TRUST_PROXY a rotated X-Forwarded-For is ignored: 100 bad-key requests from one socket address meet ' +
      'the failed-auth limit',
    async () => {
      const [one, two] = apps({ authFailuresPerMinute: 6 }, 0);
      const { apiKey } = await createAccountQueries(db.pool).insertAccountWithKey('rotator');
      const unknownKey = `${apiKey.slice(0, -4)}YYYY`;
      const statuses: number[] = [];
      for (let i = 0; i < 100; i++) {
        const forwarded = `198.18.${Math.floor(i / 250)}.${i % 250}`;
        statuses.push(
          (
            await (i % 2 ? one! : two!)
              .get('/v1/alerts')
              .set('Authorization', `Bearer ${unknownKey}`)
              .set('X-Forwarded-For', forwarded)
          ).status,
        );
      }
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(6);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(94);
      expect(statuses.at(-1)).toBe(429);
    },
  );

  it('with TRUST_PROXY=1 the address the proxy appended counts, not what the client put before it', async () => {
    const [one] = apps({ authFailuresPerMinute: 6 });
    const { apiKey } = await createAccountQueries(db.pool).insertAccountWithKey('behind-proxy');
    const unknownKey = `${apiKey.slice(0, -4)}ZZZZ`;
    const client = `192.0.2.${Math.floor(Math.random() * 250)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      statuses.push(
        (
          await one!
            .get('/v1/alerts')
            .set('Authorization', `Bearer ${unknownKey}`)
            .set('X-Forwarded-For', `10.9.${i}.1, ${client}`)
        ).status,
      );
    }
    expect(statuses.slice(-10)).toEqual(Array(10).fill(429));
  });

  it('the per-account limit is shared: two apps together answer at most perMinute for one key', async () => {
    const [one, two] = apps({ perMinute: 30 });
    const { apiKey } = await createAccountQueries(db.pool).insertAccountWithKey('busy');
    const answers = await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        (i % 2 ? one! : two!).get('/v1/templates').set('Authorization', `Bearer ${apiKey}`),
      ),
    );
    const ok = answers.filter((r) => r.status === 200).length;
    expect(ok).toBeLessThanOrEqual(30);
    expect(ok).toBeGreaterThanOrEqual(22);
    expect(answers.filter((r) => r.status === 429).length).toBe(80 - ok);
  });
});
