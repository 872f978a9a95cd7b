/**
 * API keys as a resource: scopes enforced on every operation of the OpenAPI document, a key never grants more
 * than it holds, revocation and expiry at once (also through a second app instance: no per-process cache),
 * events, last_used_at.
 */
import request from 'supertest';
import { createApp } from '../../src/http/app';
import { createTestContext, testAppDeps, type TestContext } from '../helpers/context';
import { queryRows } from '../helpers/db';

jest.setTimeout(60_000);

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

type Auth = { Authorization: string };
const bearer = (key: string): Auth => ({ Authorization: `Bearer ${key}` });

async function makeKey(auth: Auth, body: Record<string, unknown>) {
  const res = await t.http.post('/v1/api-keys').set(auth).send(body);
  expect(res.status).toBe(201);
  return { id: res.body.id as string, auth: bearer(res.body.api_key as string), body: res.body };
}

interface Operation {
  method: string;
  path: string;
  security?: Record<string, string[]>[];
}

async function operations(): Promise<Operation[]> {
  const doc = (await t.http.get('/v1/openapi.json')).body as {
    paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>>;
  };
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method, path, ...op })),
  );
}

describe('scopes, table-driven over the OpenAPI document', () => {
  it(
    'a read-only key gets no 403 on any GET (200 without path parameters) ' + 'and 403 naming the scope on every write',
    async () => {
      const owner = await t.newAccount();
      const readOnly = await makeKey(owner.auth, { name: 'dashboard', scopes: ['read'] });
      const ops = (await operations()).filter((o) => o.security?.length);
      expect(ops.length).toBeGreaterThanOrEqual(30);
      const writes = ops.filter((o) => o.method !== 'get' && o.security![0]!.bearerAuth![0] !== 'read');
      expect(writes.length).toBeGreaterThanOrEqual(15);
      // The only non-GET read is the plan.
      expect(ops.filter((o) => o.method !== 'get' && !writes.includes(o)).map((o) => o.path)).toEqual([
        '/v1/compute/plan',
      ]);
      for (const op of ops) {
        const scope = op.security![0]!.bearerAuth![0]!;
        const url = op.path.replace(/\{[^}]+\}/g, 'doesnotexist');
        const res = await (t.http as unknown as Record<string, (u: string) => request.Test>)[op.method]!(url)
          .set(readOnly.auth)
          .send(op.method === 'get' ? undefined : {});
        const label = `${op.method.toUpperCase()} ${op.path} (${scope})`;
        if (op.method === 'get') {
          expect([label, scope]).toEqual([label, 'read']);
          expect([label, res.status]).toEqual([label, op.path.includes('{') ? 404 : 200]);
        } else if (scope === 'read') {
          // A POST that creates nothing (the plan) is a read; the empty body is a 400, never a 403.
          expect([label, res.status]).toEqual([label, 400]);
        } else {
          expect([label, res.status, res.body.error?.code]).toEqual([label, 403, 'forbidden']);
          expect(res.body.error.message).toContain(`"${scope}"`);
        }
      }
    },
  );

  it('a compute key cannot manage keys, and the full key can', async () => {
    const owner = await t.newAccount();
    const compute = await makeKey(owner.auth, { name: 'ci', scopes: ['read', 'compute:write'] });
    const create = await t.http
      .post('/v1/api-keys')
      .set(compute.auth)
      .send({ name: 'x', scopes: ['read'] });
    expect(create.status).toBe(403);
    expect(create.body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('"keys:admin"') });
    const revoke = await t.http.delete(`/v1/api-keys/${compute.id}`).set(compute.auth);
    expect(revoke.status).toBe(403);
    // It still reads, and the key list shows it without any secret.
    const list = await t.http.get('/v1/api-keys').set(compute.auth);
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).not.toContain(compute.auth.Authorization.slice(7));
    expect(list.body.data.find((k: { id: string }) => k.id === compute.id)).toMatchObject({
      name: 'ci',
      scopes: ['read', 'compute:write'],
      spend_limit: null,
    });
  });

  it('a key never grants more than it holds: scopes, spend cap, expiry', async () => {
    const owner = await t.newAccount();
    const admin = await makeKey(owner.auth, {
      name: 'delegator',
      scopes: ['read', 'keys:admin'],
      spend_limit: { amount: 5, period: 'day' },
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const wider = await t.http
      .post('/v1/api-keys')
      .set(admin.auth)
      .send({ name: 'w', scopes: ['read', 'compute:write'], spend_limit: { amount: 5, period: 'day' } });
    expect(wider.status).toBe(403);
    expect(wider.body.error.message).toContain('"compute:write"');
    const uncapped = await t.http
      .post('/v1/api-keys')
      .set(admin.auth)
      .send({ name: 'u', scopes: ['read'] });
    expect(uncapped.status).toBe(403);
    const richer = await t.http
      .post('/v1/api-keys')
      .set(admin.auth)
      .send({ name: 'r', scopes: ['read'], spend_limit: { amount: 6, period: 'day' } });
    expect(richer.status).toBe(403);
    const longer = await t.http
      .post('/v1/api-keys')
      .set(admin.auth)
      .send({
        name: 'l',
        scopes: ['read'],
        spend_limit: { amount: 1, period: 'day' },
        expires_at: new Date(Date.now() + 7_200_000).toISOString(),
      });
    expect(longer.status).toBe(403);
    const ok = await makeKey(admin.auth, {
      name: 'narrow',
      scopes: ['read'],
      spend_limit: { amount: 1, period: 'day' },
    });
    // Without an expiry of its own, it inherits the creator's.
    expect(ok.body.expires_at).toBe(admin.body.expires_at);
    expect(ok.body).toMatchObject({ scopes: ['read'], spend_limit: { amount: 1, period: 'day' }, spend_in_period: 0 });
  });

  it(
    "a schedule's startup script is sealed at rest and shown only to keys that may write schedules, " +
      'and a trigger needs compute:write too',
    async () => {
      const owner = await t.newAccount();
      const script = 'export HF_TOKEN=hf_secret\npython train.py\n';
      const created = await t.http
        .post('/v1/schedules')
        .set(owner.auth)
        .send({ name: 'nightly', gpu: 'rtx-4090', template: 'pytorch', cron: '0 3 * * *', startup_script: script });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      const reader = await makeKey(owner.auth, { name: 'dashboard', scopes: ['read'] });
      const editor = await makeKey(owner.auth, { name: 'cron-editor', scopes: ['read', 'schedules:write'] });

      expect((await t.http.get(`/v1/schedules/${id}`).set(reader.auth)).body.startup_script).toBeNull();
      const listed = (await t.http.get('/v1/schedules').set(reader.auth)).body.data as {
        id: string;
        startup_script: string | null;
      }[];
      expect(listed.find((s) => s.id === id)!.startup_script).toBeNull();
      expect((await t.http.get(`/v1/schedules/${id}`).set(editor.auth)).body.startup_script).toBe(script);
      // At rest it is sealed: the row holds neither the script nor its token.
      const [stored] = await t.sql<{ startup_script: string }>('SELECT startup_script FROM schedules WHERE id = $1', [
        id,
      ]);
      expect(stored!.startup_script).toMatch(/^sealed:v1:/);
      expect(stored!.startup_script).not.toContain('hf_secret');
      expect(stored!.startup_script).not.toContain('train.py');

      const trigger = await t.http.post(`/v1/schedules/${id}/trigger`).set(editor.auth);
      expect(trigger.status).toBe(403);
      expect(trigger.body.error.message).toContain('compute:write');
      expect((await t.http.get(`/v1/schedules/${id}/runs`).set(owner.auth)).body.data).toEqual([]);
      await t.http.delete(`/v1/schedules/${id}`).set(owner.auth).expect(200);
    },
  );

  it('refuses bad input with 400 and creates nothing', async () => {
    const owner = await t.newAccount();
    for (const body of [
      { name: 'x', scopes: ['root'] },
      { name: 'x', scopes: [] },
      { name: 'x', scopes: ['read', 'read'] },
      { name: 'x', scopes: ['read'], spend_limit: { amount: 0, period: 'day' } },
      { name: 'x', scopes: ['read'], spend_limit: { amount: 1, period: 'week' } },
      { name: 'x', scopes: ['read'], expires_at: '2001-01-01T00:00:00Z' },
      { name: '', scopes: ['read'] },
    ]) {
      const res = await t.http.post('/v1/api-keys').set(owner.auth).send(body);
      expect([JSON.stringify(body), res.status, res.body.error?.code]).toEqual([
        JSON.stringify(body),
        400,
        'validation_error',
      ]);
    }
    expect((await t.http.get('/v1/api-keys').set(owner.auth)).body.data).toHaveLength(1);
  });
});

describe('revocation, expiry, events, last use', () => {
  it('a revoked key is 401 at once, also through a second app instance, and both changes are events', async () => {
    const owner = await t.newAccount();
    const other = request(createApp(testAppDeps(t.db.pool, { temporal: t.deps.temporal })).callback());
    const key = await makeKey(owner.auth, { name: 'temp', scopes: ['read'] });
    expect((await t.http.get('/v1/ssh-keys').set(key.auth)).status).toBe(200);
    expect((await other.get('/v1/ssh-keys').set(key.auth)).status).toBe(200);
    const revoked = await t.http.delete(`/v1/api-keys/${key.id}`).set(owner.auth);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: key.id, revoked: true });
    for (const app of [t.http, other]) {
      const res = await app.get('/v1/ssh-keys').set(key.auth);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthenticated');
    }
    expect((await t.http.delete(`/v1/api-keys/${key.id}`).set(owner.auth)).status).toBe(404);
    const events = (await t.http.get('/v1/events').set(owner.auth)).body.data as {
      type: string;
      data: { id: string };
    }[];
    expect(
      events
        .filter((e) => e.data.id === key.id)
        .map((e) => e.type)
        .sort(),
    ).toEqual(['api_key.created', 'api_key.revoked']);
    expect(JSON.stringify(events)).not.toContain(key.auth.Authorization.slice(7));
  });

  it('another account cannot revoke or see the key', async () => {
    const owner = await t.newAccount();
    const stranger = await t.newAccount();
    const key = await makeKey(owner.auth, { name: 'mine', scopes: ['read'] });
    expect((await t.http.delete(`/v1/api-keys/${key.id}`).set(stranger.auth)).status).toBe(404);
    expect(
      (await t.http.get('/v1/api-keys').set(stranger.auth)).body.data.map((k: { id: string }) => k.id),
    ).not.toContain(key.id);
    expect((await t.http.get('/v1/ssh-keys').set(key.auth)).status).toBe(200);
  });

  it('an expired key is 401 saying so', async () => {
    const owner = await t.newAccount();
    const key = await makeKey(owner.auth, {
      name: 'short',
      scopes: ['read'],
      expires_at: new Date(Date.now() + 60_000).toISOString(),
    });
    expect((await t.http.get('/v1/ssh-keys').set(key.auth)).status).toBe(200);
    await queryRows(t.db.url, "UPDATE service_keys SET expires_at = now() - interval '1 second' WHERE id = $1", [
      key.id,
    ]);
    const res = await t.http.get('/v1/ssh-keys').set(key.auth);
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/expired at/);
  });

  it('last_used_at shows use, written once a minute rather than per request', async () => {
    const owner = await t.newAccount();
    const key = await makeKey(owner.auth, { name: 'used', scopes: ['read'] });
    expect(key.body.last_used_at).toBeNull();
    await t.http.get('/v1/ssh-keys').set(key.auth).expect(200);
    const first = await (async () => {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const rows = await queryRows<{ last_used_at: Date | null }>(
          t.db.url,
          'SELECT last_used_at FROM service_keys WHERE id = $1',
          [key.id],
        );
        if (rows[0]!.last_used_at) return rows[0]!.last_used_at;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('last_used_at never written');
    })();
    for (let i = 0; i < 5; i++) await t.http.get('/v1/ssh-keys').set(key.auth).expect(200);
    const listed = (await t.http.get('/v1/api-keys').set(owner.auth)).body.data.find(
      (k: { id: string }) => k.id === key.id,
    );
    expect(listed.last_used_at).toBe(first.toISOString());
  });
});
