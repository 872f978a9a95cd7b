/**
 * Hostile input never reaches a 5xx: NUL, control and bidi characters, lone surrogates, deep nesting, huge
 * values, non-ASCII provider keys, odd path ids; provider rules the catalog knows are refused before any
 * provider is called; local and database failures are classed as ours, never as the provider's.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { Client as PgClient } from 'pg';
import { createDatabasePool } from '../../src/db/pool';
import { sql } from '../../src/db/sql';
import { ProviderRequestError } from '../../src/errors';
import { createApp } from '../../src/http/app';
import { silentLogger } from '../../src/logger';
import { createProviderAdapters } from '../../src/providers';
import { createProviderHttp } from '../../src/providers/http';
import { VastSimulator } from '../../simulators';
import { ed25519Key } from '../fixtures/ssh-keys';
import { createTestContext, testAppDeps, type TestContext } from '../helpers/context';

jest.setTimeout(60_000);

let t: TestContext;
let auth: { Authorization: string };
beforeAll(async () => {
  t = await createTestContext();
  ({ auth } = await t.newAccount());
});
afterAll(() => t.close());

function expectValidationError(res: request.Response, path?: string) {
  expect(res.status).toBe(400);
  expect(res.body.error).toEqual(
    expect.objectContaining({ code: 'validation_error', request_id: res.headers['x-request-id'] }),
  );
  if (path) expect(res.body.error.details).toContainEqual(expect.objectContaining({ path }));
}

const HOSTILE: [string, string][] = [
  ['NUL', 'a\u0000b'],
  ['a newline', 'a\nb'],
  ['ESC', 'a\u001b[31mb'],
  ['a C1 control', 'a\u0085b'],
  ['DEL', 'a\u007fb'],
  ['a lone high surrogate', 'a\ud800b'],
  ['a lone low surrogate', 'a\udc00b'],
  ['a bidi override', 'a\u202eb'],
];

describe('text fields refuse NUL, control, bidi characters and lone surrogates with 400', () => {
  it.each(HOSTILE)('SSH key name with %s', async (_label, value) => {
    const res = await t.http.post('/v1/ssh-keys').set(auth).send({ name: value, public_key: ed25519Key() });
    expectValidationError(res, 'name');
  });

  it.each(HOSTILE)('SSH key comment with %s', async (_label, value) => {
    const res = await t.http
      .post('/v1/ssh-keys')
      .set(auth)
      .send({ name: 'k', public_key: `${ed25519Key()} me@${value}` });
    expectValidationError(res, 'public_key');
  });

  it.each(HOSTILE)('provider display_label with %s', async (_label, value) => {
    const res = await t.http
      .post('/v1/settings/providers')
      .set(auth)
      .send({ provider: 'runpod', api_key: 'rpa_ok', display_label: value });
    expectValidationError(res, 'display_label');
  });

  it.each(['docker_image', 'region', 'ssh_key_name', 'gpu_type'])('launch field %s with NUL', async (field) => {
    const body = {
      provider: 'lambda',
      gpu_type: 'h100-80gb-sxm',
      region: 'us-east-1',
      docker_image: 'img',
      ssh_key_name: 'k',
      [field]: 'a\u0000b',
    };
    expectValidationError(await t.http.post('/v1/compute/launch').set(auth).send(body), field);
  });

  it('onstart_cmd takes newlines and tabs (it is a script) but not NUL', async () => {
    const script = 'apt-get update\n\tpip install torch\r\n';
    const ok = await t.http
      .post('/v1/compute/launch')
      .set(auth)
      .send({ provider: 'vastai', gpu_type: 'rtx-a6000', onstart_cmd: script });
    // Past validation: refused only because no vastai key is connected.
    expect(ok.status).toBe(422);
    expect(ok.body.error.code).toBe('provider_not_connected');
    const bad = await t.http
      .post('/v1/compute/launch')
      .set(auth)
      .send({ provider: 'vastai', gpu_type: 'rtx-a6000', onstart_cmd: 'echo\u0000hi' });
    expectValidationError(bad, 'onstart_cmd');
  });

  it('query strings: ?gpu= with NUL or a lone surrogate is 400, not 500', async () => {
    expectValidationError(await t.http.get('/v1/pricing/history?gpu=a%00b&period=24h'), 'query.gpu');
    expectValidationError(await t.http.get('/v1/pricing/compare?gpu=%00'), 'query.gpu');
    expectValidationError(await t.http.get('/v1/billing/transactions?cursor=%00').set(auth), 'query.cursor');
  });

  it('names are stored in NFC, so the same name typed two ways is one name', async () => {
    const decomposed = 'caf\u0065\u0301';
    const res = await t.http.post('/v1/ssh-keys').set(auth).send({ name: decomposed, public_key: ed25519Key() });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('caf\u00e9');
    const again = await t.http.post('/v1/ssh-keys').set(auth).send({ name: 'caf\u00e9', public_key: ed25519Key() });
    expect(again.status).toBe(409);
  });

  it('sanity: ordinary Unicode text is welcome', async () => {
    const res = await t.http.post('/v1/ssh-keys').set(auth).send({ name: 'Ноутбук 💻 東京', public_key: ed25519Key() });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('Ноутбук 💻 東京');
  });
});

describe('path ids', () => {
  it.each([
    ['DELETE', '/v1/ssh-keys/%00'],
    ['DELETE', '/v1/ssh-keys/a%0Ab'],
    ['DELETE', '/v1/ssh-keys/%ED%A0%80'],
    ['PUT', '/v1/ssh-keys/%00/default'],
    ['POST', '/v1/compute/%00/terminate'],
    ['POST', '/v1/compute/a%20b/stop'],
  ])('%s %s → 400, never 500', async (method, path) => {
    const res = await t.http[method.toLowerCase() as 'delete' | 'put' | 'post'](path).set(auth);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
  });

  it('an unknown but well-formed id is still 404', async () => {
    expect((await t.http.delete('/v1/ssh-keys/sshkey_nope').set(auth)).status).toBe(404);
  });
});

describe('provider keys are printable ASCII', () => {
  it.each([
    ['a non-Latin-1 character', 'rpa_ключ_secret'],
    ['a Latin-1 letter', 'rpa_clé_secret'],
    ['a space', 'rpa_with space'],
    ['a newline', 'rpa_line\nbreak'],
    ['NUL', 'rpa_\u0000'],
  ])('a key with %s is 400 at POST and the message quotes none of it', async (_label, key) => {
    const res = await t.http.post('/v1/settings/providers').set(auth).send({ provider: 'runpod', api_key: key });
    expectValidationError(res, 'api_key');
    expect(JSON.stringify(res.body)).not.toContain('secret');
    const list = await t.http.get('/v1/settings/providers').set(auth);
    expect(list.body.data.find((k: { provider: string }) => k.provider === 'runpod')).toBeUndefined();
  });
});

describe('size and depth of bad input', () => {
  it('a provider value nested 6,000 arrays deep is 400 with a short message', async () => {
    const deep = `${'['.repeat(6000)}${']'.repeat(6000)}`;
    const res = await t.http
      .post('/v1/settings/providers')
      .set(auth)
      .set('Content-Type', 'application/json')
      .send(`{"provider":${deep},"api_key":"k"}`);
    expectValidationError(res, 'body');
    expect(JSON.stringify(res.body).length).toBeLessThan(1000);
  });

  it('nesting deep inside a string does not count', async () => {
    const res = await t.http
      .post('/v1/ssh-keys')
      .set(auth)
      .send({ name: '['.repeat(90), public_key: ed25519Key() });
    expect(res.status).toBe(201);
  });

  it('a 30,000-character provider value is echoed at most a few dozen characters', async () => {
    const res = await t.http
      .post('/v1/settings/providers')
      .set(auth)
      .send({ provider: 'x'.repeat(30_000), api_key: 'k' });
    expectValidationError(res, 'provider');
    expect(JSON.stringify(res.body).length).toBeLessThan(1000);
  });

  it('hundreds of unknown fields with huge control-character names give a bounded answer', async () => {
    const body: Record<string, unknown> = { name: 'n', public_key: ed25519Key() };
    for (let i = 0; i < 300; i++) body[`${'\u0000'.repeat(20)}${'x'.repeat(60)}${i}`] = i;
    const res = await t.http.post('/v1/ssh-keys').set(auth).send(body);
    expectValidationError(res);
    expect(res.body.error.details.length).toBeLessThanOrEqual(20);
    expect(JSON.stringify(res.body)).not.toContain('\\u0000');
    expect(JSON.stringify(res.body).length).toBeLessThan(5000);
  });
});

describe('provider rules the catalog knows are checked before any provider is called', () => {
  beforeAll(async () => {
    // Connected keys: without the pre-check these launches would go to the provider (here: nowhere).
    for (const provider of ['runpod', 'vastai', 'lambda']) {
      await t.http
        .post('/v1/settings/providers')
        .set(auth)
        .send({ provider, api_key: `${provider}_key_123` })
        .expect(201);
    }
    await t.http.post('/v1/ssh-keys').set(auth).send({ name: 'default', public_key: ed25519Key() });
  });

  it.each([
    ['a GPU RunPod does not offer', { provider: 'runpod', gpu_type: 'a10-24gb' }, 'gpu_type'],
    ['a GPU RunPod no longer sells', { provider: 'runpod', gpu_type: 'a100-40gb' }, 'gpu_type'],
    ['a GPU Lambda does not offer', { provider: 'lambda', gpu_type: 'rtx-4090', region: 'us-east-1' }, 'gpu_type'],
    [
      'a GPU count Lambda does not sell',
      { provider: 'lambda', gpu_type: 'h100-80gb-pcie', gpu_count: 2, region: 'us-east-1' },
      'gpu_count',
    ],
    [
      '8x A6000 on Lambda',
      { provider: 'lambda', gpu_type: 'rtx-a6000', gpu_count: 8, region: 'us-east-1' },
      'gpu_count',
    ],
    [
      'a region Lambda does not have',
      { provider: 'lambda', gpu_type: 'h100-80gb-sxm', region: 'mars-north-1' },
      'region',
    ],
    [
      'a data center RunPod does not have',
      { provider: 'runpod', gpu_type: 'rtx-a6000', region: 'us-east-1' },
      'region',
    ],
  ])('%s → 422 unsupported_operation naming the field', async (_label, body, field) => {
    const res = await t.http.post('/v1/compute/launch').set(auth).send(body);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('unsupported_operation');
    expect(res.body.error.message).toContain(field);
    expect(res.body.error.details).toContainEqual(expect.objectContaining({ path: field }));
  });
});

describe('failures that are ours are never "unreachable" or the provider\'s', () => {
  const http = (baseUrl: string, authHeaders = (key: string) => ({ authorization: `Bearer ${key}` })) =>
    createProviderHttp({
      provider: 'runpod',
      providerName: 'RunPod',
      baseUrl,
      timeoutMs: 2000,
      logger: silentLogger,
      authHeaders,
      errorMessage: () => undefined,
    });

  it(
    'a stored key Node cannot put in a header is an invalid key, ' + 'not an unreachable provider, and is not quoted',
    async () => {
      const server = net.createServer((s) => s.destroy());
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        const err = await http(url)
          .request({ method: 'GET', path: '/x', apiKey: 'rpa_\u0100\u0101secret' })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ProviderRequestError);
        expect((err as ProviderRequestError).kind).toBe('invalid_key');
        expect((err as Error).message).not.toMatch(/secret|\u0100|could not be reached/);
      } finally {
        server.close();
      }
    },
  );

  it('a local bug in building the request is thrown as it is (a 500 of ours), not as "unreachable"', async () => {
    const err = await http('http://127.0.0.1:9', () => {
      throw new RangeError('bug');
    })
      .request({ method: 'GET', path: '/x', apiKey: 'k' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RangeError);
  });

  it('a provider that refuses connections is still "unreachable" (transient)', async () => {
    const err = await http('http://127.0.0.1:9')
      .request({ method: 'GET', path: '/x', apiKey: 'k' })
      .catch((e: unknown) => e);
    expect((err as ProviderRequestError).kind).toBe('transient');
  });

  it('Postgres unreachable → 503 service_unavailable with Retry-After; back → 200', async () => {
    // A TCP proxy in front of the test database that we can cut.
    const target = new URL(t.db.url);
    const sockets = new Set<net.Socket>();
    let open = true;
    const proxy = net.createServer((client) => {
      if (!open) return client.destroy();
      const upstream = net.connect(Number(target.port), target.hostname);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s)).on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const proxied = new URL(t.db.url);
    proxied.port = String((proxy.address() as AddressInfo).port);
    const pool = await createDatabasePool(proxied.toString(), { maximumPoolSize: 2 });
    try {
      const app = request(createApp(testAppDeps(pool, { temporal: t.deps.temporal })).callback());
      expect((await app.get('/v1/ssh-keys').set(auth)).status).toBe(200);

      open = false;
      for (const s of sockets) s.destroy();
      for (let i = 0; i < 3; i++) {
        const res = await app.get('/v1/ssh-keys').set(auth);
        expect(res.status).toBe(503);
        expect(res.body.error.code).toBe('service_unavailable');
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }

      open = true;
      const back = await app.get('/v1/ssh-keys').set(auth);
      expect(back.status).toBe(200);
    } finally {
      open = false;
      for (const s of sockets) s.destroy();
      await pool.end().catch(() => undefined);
      proxy.close();
    }
  });

  it('a statement past its timeout (a table held locked) → 503 service_unavailable with Retry-After', async () => {
    const pool = await createDatabasePool(t.db.url, { maximumPoolSize: 1, statementTimeoutMs: 300 });
    const holder = new PgClient({ connectionString: t.db.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE ssh_keys IN ACCESS EXCLUSIVE MODE');
      const app = request(createApp(testAppDeps(pool, { temporal: t.deps.temporal })).callback());
      const res = await app.get('/v1/ssh-keys').set(auth);
      expect([res.status, res.body.error.code]).toEqual([503, 'service_unavailable']);
      expect(res.body.error.message).toMatch(/did not answer in time; retrying this request is safe/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      await holder.query('ROLLBACK');
      expect((await app.get('/v1/ssh-keys').set(auth)).status).toBe(200);
    } finally {
      await holder.end();
      await pool.end();
    }
  });

  it('any other database error is 500 internal_error with the fixed message', async () => {
    const pool = await createDatabasePool(t.db.url, { maximumPoolSize: 1 });
    try {
      // A schema the query modules do not expect: the row parser refuses the rows.
      await pool.query(sql.typeAlias('void')`ALTER TABLE ssh_keys RENAME COLUMN name TO name_renamed`);
      const app = request(createApp(testAppDeps(pool, { temporal: t.deps.temporal })).callback());
      const res = await app.get('/v1/ssh-keys').set(auth);
      expect(res.status).toBe(500);
      expect(res.body.error.code).toBe('internal_error');
      expect(res.body.error.message).not.toMatch(/name_renamed|column|relation/);
    } finally {
      await pool.query(sql.typeAlias('void')`ALTER TABLE ssh_keys RENAME COLUMN name_renamed TO name`);
      await pool.end();
    }
  });
});

describe('simulators', () => {
  it('a restarted Vast.ai simulator never hands out an instance id of an earlier run', async () => {
    const ids: string[] = [];
    for (let run = 0; run < 2; run++) {
      const sim = await new VastSimulator({ keys: ['vast-key-1'], bootDelayMs: 0 }).start('127.0.0.1', 0);
      try {
        const adapters = createProviderAdapters({
          runpodBaseUrl: 'http://127.0.0.1:9',
          vastaiBaseUrl: sim.baseUrl,
          lambdaBaseUrl: 'http://127.0.0.1:9',
          timeoutMs: 2000,
          logger: silentLogger,
        });
        const instance = await adapters.vastai.launch('vast-key-1', {
          gpuType: 'rtx-a6000',
          gpuCount: 1,
          name: `run-${run}`,
          spot: false,
        });
        ids.push(instance.id);
      } finally {
        await sim.close();
      }
    }
    expect(ids[0]).not.toBe(ids[1]);
  });
});
