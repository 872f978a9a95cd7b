import { createTestContext, type TestContext } from '../helpers/context';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

function expectErrorBody(res: { body: unknown; headers: Record<string, string> }, code: string) {
  expect(res.body).toEqual({
    error: expect.objectContaining({ code, message: expect.any(String), request_id: res.headers['x-request-id'] }),
  });
}

describe('authentication', () => {
  it('answers 401 with WWW-Authenticate when the key is missing', async () => {
    const res = await t.http.get('/v1/ssh-keys');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expectErrorBody(res, 'unauthenticated');
  });

  it.each([
    ['a non-Bearer scheme', 'Basic dXNlcjpwYXNz'],
    ['Bearer without a key', 'Bearer '],
    ['a key that is not a service key', 'Bearer not-a-key'],
    ['two tokens', 'Bearer gpuo_sk_aaaaaaaaaaaaaaaaaaaaaaaaa extra'],
  ])('answers 401 for a malformed header (%s)', async (_label, header) => {
    const res = await t.http.get('/v1/ssh-keys').set('Authorization', header);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expectErrorBody(res, 'unauthenticated');
  });

  it('answers 401 for a well-formed but unknown key', async () => {
    const res = await t.http
      .get('/v1/ssh-keys')
      .set('Authorization', 'Bearer gpuo_sk_2222222222222222222222222222222222');
    expect(res.status).toBe(401);
    expectErrorBody(res, 'unauthenticated');
  });

  it('lets a real key in and keeps the public routes public', async () => {
    const { auth } = await t.newAccount();
    expect((await t.http.get('/v1/ssh-keys').set(auth)).status).toBe(200);
    expect((await t.http.get('/healthz')).status).toBe(200);
    expect((await t.http.get('/v1/openapi.json')).status).toBe(200);
  });

  it('stores only a hash of the service key', async () => {
    const { apiKey } = await t.newAccount();
    const { rows } = await rawQuery(`SELECT key_hash, key_prefix FROM service_keys`);
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(apiKey);
    expect(apiKey).toMatch(/^gpuo_sk_[1-9A-HJ-NP-Za-km-z]{33}$/);
  });
});

describe('request errors', () => {
  let auth: { Authorization: string };
  beforeAll(async () => {
    ({ auth } = await t.newAccount());
  });

  it('rejects a body that is not JSON with 400 invalid_json', async () => {
    const res = await t.http.post('/v1/ssh-keys').set(auth).set('Content-Type', 'application/json').send('{"name": ');
    expect(res.status).toBe(400);
    expectErrorBody(res, 'invalid_json');
  });

  it('rejects unknown fields with 400 validation_error naming the field', async () => {
    const res = await t.http
      .post('/v1/ssh-keys')
      .set(auth)
      .send({ name: 'a', public_key: 'ssh-ed25519 AAAA', is_default: true });
    expect(res.status).toBe(400);
    expectErrorBody(res, 'validation_error');
    expect(res.body.error.details).toContainEqual({ path: 'is_default', message: 'unknown field' });
  });

  it('rejects wrong types with 400 validation_error and a detail per field', async () => {
    const res = await t.http
      .post('/v1/ssh-keys')
      .set(auth)
      .send({ name: 42, public_key: ['x'] });
    expect(res.status).toBe(400);
    expectErrorBody(res, 'validation_error');
    const paths = res.body.error.details.map((d: { path: string }) => d.path).sort();
    expect(paths).toEqual(['name', 'public_key']);
  });

  it('rejects a missing body with 400', async () => {
    const res = await t.http.post('/v1/ssh-keys').set(auth);
    expect(res.status).toBe(400);
    expectErrorBody(res, 'validation_error');
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await t.http.get('/v1/nothing-here').set(auth);
    expect(res.status).toBe(404);
    expectErrorBody(res, 'not_found');
  });

  it('answers a wrong method with a JSON 405', async () => {
    const res = await t.http.patch('/v1/ssh-keys').set(auth).send({});
    expect(res.status).toBe(405);
    expectErrorBody(res, 'method_not_allowed');
  });

  it('rejects bodies over 64 KiB with 413 and stores nothing', async () => {
    const res = await t.http
      .post('/v1/ssh-keys')
      .set(auth)
      .send({ name: 'big', public_key: 'x'.repeat(70 * 1024) });
    expect(res.status).toBe(413);
    expectErrorBody(res, 'payload_too_large');
    expect((await t.http.get('/v1/ssh-keys').set(auth)).body.data).toEqual([]);
  });

  it('rejects a body sent with another content type with 415', async () => {
    const res = await t.http.post('/v1/ssh-keys').set(auth).set('Content-Type', 'text/plain').send('hello');
    expect(res.status).toBe(415);
    expectErrorBody(res, 'unsupported_media_type');
  });

  it('echoes a sane X-Request-Id and replaces an insane one', async () => {
    const echoed = await t.http.get('/v1/templates').set(auth).set('X-Request-Id', 'client-abc.123');
    expect(echoed.headers['x-request-id']).toBe('client-abc.123');
    const replaced = await t.http.get('/v1/templates').set(auth).set('X-Request-Id', 'bad id with spaces');
    expect(replaced.headers['x-request-id']).toMatch(/^req_/);
  });
});

describe('health', () => {
  it('reports ready when Postgres and Temporal answer, and nothing about its internals', async () => {
    const res = await t.http.get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready' });
  });
});

describe('OpenAPI', () => {
  it('documents every API route with its schemas, generated from the route declarations', async () => {
    const res = await t.http.get('/v1/openapi.json');
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining(['/v1/ssh-keys', '/v1/ssh-keys/{id}', '/v1/ssh-keys/{id}/default', '/v1/templates']),
    );
    const create = res.body.paths['/v1/ssh-keys'].post;
    expect(create.requestBody.content['application/json'].schema).toMatchObject({
      type: 'object',
      required: ['name', 'public_key'],
      additionalProperties: false,
    });
    // The one scope the operation needs (OpenAPI 3.1 role names on a bearer scheme).
    expect(create.security).toEqual([{ bearerAuth: ['settings:write'] }]);
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403', '409']));
  });

  it(
    'serves a browsable reference page over the same document ' + '(test/docs/reference.browser.test.ts renders it)',
    async () => {
      const res = await t.http.get('/docs');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.text).toContain('<rapi-doc spec-url="/docs/openapi.json"');
      const doc = await t.http.get('/docs/openapi.json');
      expect(Object.keys(doc.body.paths)).toContain('/v1/ssh-keys/{id}/default');
    },
  );
});

async function rawQuery(text: string) {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: t.db.url });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}
