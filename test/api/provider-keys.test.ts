import { Client } from 'pg';
import { PROVIDERS } from '../../src/providers/types';
import { createTestContext, type TestContext } from '../helpers/context';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ simulators: true, providerTimeoutMs: 500 });
});
afterAll(() => t.close());

/** Every response body the tests saw; none may contain a provider key. */
const seenBodies: string[] = [];
const issuedKeys: string[] = [];
afterAll(() => {
  for (const key of issuedKeys) for (const body of seenBodies) expect(body).not.toContain(key);
});

function track<T extends { text: string }>(res: T): T {
  seenBodies.push(res.text);
  return res;
}

type Auth = { Authorization: string };
const connect = async (auth: Auth, body: Record<string, unknown>) =>
  track(await t.http.post('/v1/settings/providers').set(auth).send(body));
const verify = async (auth: Auth, provider: string) =>
  track(await t.http.post(`/v1/settings/providers/${provider}/verify`).set(auth));
const list = async (auth: Auth) => track(await t.http.get('/v1/settings/providers').set(auth));

function simKey(provider: (typeof PROVIDERS)[number]): string {
  const key = t.sims[provider].createKey();
  issuedKeys.push(key);
  return key;
}

describe.each(PROVIDERS)('%s keys', (provider) => {
  it('connects with 201, replaces with 200, and never returns the key', async () => {
    const { auth } = await t.newAccount();
    const first = simKey(provider);
    const created = await connect(auth, { provider, api_key: first, display_label: 'team key' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      provider,
      display_label: 'team key',
      key_hint: `…${first.slice(-4)}`,
      // Verified with the provider as it was connected.
      status: 'valid',
      last_verified_at: expect.any(String),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });

    const second = simKey(provider);
    const replaced = await connect(auth, { provider, api_key: second });
    expect(replaced.status).toBe(200);
    expect(replaced.body.key_hint).toBe(`…${second.slice(-4)}`);
    expect(replaced.body.created_at).toBe(created.body.created_at);
    const listed = await list(auth);
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0].display_label).toBe({ runpod: 'RunPod', vastai: 'Vast.ai', lambda: 'Lambda' }[provider]);
  });

  it('verifies a valid key against the provider and records it', async () => {
    const { auth } = await t.newAccount();
    await connect(auth, { provider, api_key: simKey(provider) });
    const res = await verify(auth, provider);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      provider,
      valid: true,
      status: 'valid',
      message: expect.any(String),
      checked_at: expect.any(String),
    });
    const [record] = (await list(auth)).body.data;
    expect(record).toMatchObject({ status: 'valid', last_verified_at: res.body.checked_at });
  });

  it(
    'saves a key unverified when the provider cannot be reached at connect; verify answers 200 with valid:false ' +
      'once it rejects it',
    async () => {
      const { auth } = await t.newAccount();
      const bogus = `not-a-real-${provider}-key-1234567890`;
      issuedKeys.push(bogus);
      t.sims[provider].control.serverErrors(10, { status: 503 });
      try {
        const connected = await connect(auth, { provider, api_key: bogus });
        expect(connected.status).toBe(201);
        expect(connected.body).toMatchObject({ status: 'unverified', last_verified_at: null });
      } finally {
        t.sims[provider].control.resetFaults();
      }
      const res = await verify(auth, provider);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ provider, valid: false, status: 'invalid' });
      expect((await list(auth)).body.data[0].status).toBe('invalid');
    },
  );

  it('answers 503 when the provider cannot be reached, and leaves the status alone', async () => {
    const { auth } = await t.newAccount();
    await connect(auth, { provider, api_key: simKey(provider) });
    t.sims[provider].control.serverErrors(10, { status: 503 });
    try {
      const res = await verify(auth, provider);
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('provider_unavailable');
    } finally {
      t.sims[provider].control.resetFaults();
    }
    expect((await list(auth)).body.data[0].status).toBe('valid');
  });

  it('answers 503 when the provider is too slow', async () => {
    const { auth } = await t.newAccount();
    await connect(auth, { provider, api_key: simKey(provider) });
    t.sims[provider].control.setLatency(1500);
    try {
      const res = await verify(auth, provider);
      expect(res.status).toBe(503);
    } finally {
      t.sims[provider].control.setLatency(0);
    }
  });
});

describe('storage', () => {
  it('keeps only ciphertext at rest: the key text appears nowhere in the row', async () => {
    const { auth, accountId } = await t.newAccount();
    const key = simKey('vastai');
    await connect(auth, { provider: 'vastai', api_key: key });
    const client = new Client({ connectionString: t.db.url });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT * FROM provider_keys WHERE account_id = $1', [accountId]);
      expect(rows).toHaveLength(1);
      const row = rows[0];
      for (const value of Object.values(row)) {
        const text = Buffer.isBuffer(value)
          ? value.toString('latin1') + value.toString('hex') + value.toString('base64')
          : String(value);
        expect(text).not.toContain(key);
      }
      expect(row.encryption_key_id).toBe('test');
      expect(row.iv).toHaveLength(12);
      expect(row.auth_tag).toHaveLength(16);
    } finally {
      await client.end();
    }
  });
});

describe('validation and isolation', () => {
  it('rejects an unknown provider with 400 naming the allowed values, in the body and in the path', async () => {
    const { auth } = await t.newAccount();
    const body = await connect(auth, { provider: 'aws', api_key: 'x' });
    expect(body.status).toBe(400);
    expect(body.body.error.code).toBe('validation_error');
    expect(body.body.error.message).toContain('runpod, vastai, lambda');
    const path = track(await t.http.post('/v1/settings/providers/aws/verify').set(auth));
    expect(path.status).toBe(400);
    expect(path.body.error.details[0]).toEqual({
      path: 'path.provider',
      message: expect.stringContaining('runpod, vastai, lambda'),
    });
    expect((await list(auth)).body.data).toEqual([]);
  });

  it('rejects an empty or oversized key and unknown fields', async () => {
    const { auth } = await t.newAccount();
    expect((await connect(auth, { provider: 'lambda', api_key: '' })).status).toBe(400);
    expect((await connect(auth, { provider: 'lambda', api_key: 'k'.repeat(513) })).status).toBe(400);
    expect((await connect(auth, { provider: 'lambda', api_key: 'abc', status: 'valid' })).status).toBe(400);
    expect((await connect(auth, { provider: 'lambda', api_key: 'abc', display_label: 'l'.repeat(101) })).status).toBe(
      400,
    );
    expect((await list(auth)).body.data).toEqual([]);
  });

  it('answers 404 for verify and delete of a provider that is not connected, also across accounts', async () => {
    const a = await t.newAccount();
    const b = await t.newAccount();
    await connect(a.auth, { provider: 'runpod', api_key: simKey('runpod') });
    expect((await verify(b.auth, 'runpod')).status).toBe(404);
    expect(track(await t.http.delete('/v1/settings/providers/runpod').set(b.auth)).status).toBe(404);
    expect((await list(b.auth)).body.data).toEqual([]);
    expect((await list(a.auth)).body.data).toHaveLength(1);
  });

  it('disconnects a key', async () => {
    const { auth } = await t.newAccount();
    await connect(auth, { provider: 'runpod', api_key: simKey('runpod') });
    const res = track(await t.http.delete('/v1/settings/providers/runpod').set(auth));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 'runpod', deleted: true });
    expect((await list(auth)).body.data).toEqual([]);
    expect((await verify(auth, 'runpod')).status).toBe(404);
  });
});
