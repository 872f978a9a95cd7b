/**
 * A provider key is verified when it is connected, against the provider simulators: a key the provider accepts
 * is saved `valid` with the time it was checked; one it rejects is refused 422 with the provider's reason and
 * nothing is stored (nor is a working key already saved replaced).
 */
import { PROVIDERS } from '../../src/providers/types';
import { createTestContext, type TestContext } from '../helpers/context';

let t: TestContext;

beforeAll(async () => {
  t = await createTestContext({ simulators: true });
});
afterAll(async () => {
  await t.close();
});

it.each(PROVIDERS)('%s: a key the provider accepts is saved valid with the time it was checked', async (provider) => {
  const a = await t.newAccount();
  const before = Date.now();
  const res = await t.http
    .post('/v1/settings/providers')
    .set(a.auth)
    .send({ provider, api_key: t.sims[provider].createKey() });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ provider, status: 'valid', last_verified_at: expect.any(String) });
  expect(Date.parse(res.body.last_verified_at)).toBeGreaterThanOrEqual(before - 1_000);
  const listed = (await t.http.get('/v1/settings/providers').set(a.auth).expect(200)).body.data;
  expect(listed).toEqual([
    expect.objectContaining({ provider, status: 'valid', last_verified_at: res.body.last_verified_at }),
  ]);
});

it.each(PROVIDERS)(
  "%s: a key the provider rejects is refused 422 with the provider's reason and nothing is stored",
  async (provider) => {
    const a = await t.newAccount();
    const res = await t.http
      .post('/v1/settings/providers')
      .set(a.auth)
      .send({ provider, api_key: 'not-a-key-the-provider-knows' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('provider_error');
    expect(res.body.error.message).toMatch(/rejected the API key: .+ Nothing was saved\.$/);
    expect((await t.http.get('/v1/settings/providers').set(a.auth).expect(200)).body.data).toEqual([]);

    // A saved working key stays when a rejected one is sent to replace it.
    const good = await t.http
      .post('/v1/settings/providers')
      .set(a.auth)
      .send({ provider, api_key: t.sims[provider].createKey() })
      .expect(201);
    await t.http
      .post('/v1/settings/providers')
      .set(a.auth)
      .send({ provider, api_key: 'not-a-key-the-provider-knows' })
      .expect(422);
    expect((await t.http.get('/v1/settings/providers').set(a.auth).expect(200)).body.data).toEqual([
      expect.objectContaining({ provider, key_hint: good.body.key_hint, status: 'valid' }),
    ]);
  },
);
