import { createTestContext, type TestContext } from '../helpers/context';
import { ecdsaKey, ed25519Key, rsaKey, skEcdsaKey, skEd25519Key, withTypeWord } from '../fixtures/ssh-keys';
import sshpk from 'sshpk';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

type Auth = { Authorization: string };
const add = (auth: Auth, name: string, public_key: string) =>
  t.http.post('/v1/ssh-keys').set(auth).send({ name, public_key });
const list = async (auth: Auth) =>
  (await t.http.get('/v1/ssh-keys').set(auth)).body.data as { id: string; name: string; is_default: boolean }[];

describe('adding keys', () => {
  it.each([
    ['ssh-ed25519', () => ed25519Key()],
    ['ssh-rsa', () => rsaKey(2048)],
    ['ecdsa-sha2-nistp256', () => ecdsaKey('P-256')],
    ['ecdsa-sha2-nistp384', () => ecdsaKey('P-384')],
    ['ecdsa-sha2-nistp521', () => ecdsaKey('P-521')],
    ['sk-ssh-ed25519@openssh.com', () => skEd25519Key()],
    ['sk-ecdsa-sha2-nistp256@openssh.com', () => skEcdsaKey()],
  ])('accepts %s and answers 201 with the record and its SHA256 fingerprint', async (type, make) => {
    const { auth } = await t.newAccount();
    const key = make();
    const res = await add(auth, `key ${type}`, key);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^sshkey_/),
      name: `key ${type}`,
      public_key: key,
      fingerprint: expect.stringMatching(/^SHA256:[A-Za-z0-9+/]{43}$/),
      key_type: type,
      is_default: true,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    if (!type.startsWith('sk-')) {
      // Same fingerprint as OpenSSH computes (sshpk implements ssh-keygen -l).
      expect(res.body.fingerprint).toBe(sshpk.parseKey(key, 'ssh').fingerprint('sha256').toString());
    }
  });

  it.each([
    ['an unsupported type', withTypeWord(ed25519Key(), 'ssh-dss')],
    ['a type word that disagrees with the blob', withTypeWord(ed25519Key(), 'ssh-rsa')],
    ['an ECDSA curve that disagrees with the blob', withTypeWord(ecdsaKey('P-256'), 'ecdsa-sha2-nistp384')],
    ['a blob that is not base64', 'ssh-ed25519 !!!notbase64!!! me'],
    [
      'a truncated blob',
      (() => {
        const [ty, b] = ed25519Key().split(' ');
        return `${ty} ${b!.slice(0, 40)}`;
      })(),
    ],
    ['RSA under 2048 bits', rsaKey(1024)],
    ['a missing blob', 'ssh-ed25519'],
    ['two lines', `${ed25519Key()}\n${ed25519Key()}`],
    [
      'a security key blob with trailing bytes',
      (() => {
        const [ty, b, c] = skEd25519Key().split(' ');
        return `${ty} ${Buffer.concat([Buffer.from(b!, 'base64'), Buffer.from([0])]).toString('base64')} ${c}`;
      })(),
    ],
  ])('rejects %s with 400 on public_key and stores nothing', async (_label, key) => {
    const { auth } = await t.newAccount();
    const res = await add(auth, 'bad', key);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details[0].path).toBe('public_key');
    expect(await list(auth)).toEqual([]);
  });

  it('rejects an empty or too long name', async () => {
    const { auth } = await t.newAccount();
    expect((await add(auth, '', ed25519Key())).status).toBe(400);
    expect((await add(auth, 'x'.repeat(101), ed25519Key())).status).toBe(400);
    expect(await list(auth)).toEqual([]);
  });

  it('answers 409 for a duplicate name or fingerprint in the same account, and allows both in another', async () => {
    const a = await t.newAccount();
    const b = await t.newAccount();
    const key = ed25519Key();
    expect((await add(a.auth, 'laptop', key)).status).toBe(201);
    const sameName = await add(a.auth, 'laptop', ed25519Key());
    expect(sameName.status).toBe(409);
    expect(sameName.body.error.code).toBe('conflict');
    expect(sameName.body.error.message).toMatch(/name/);
    // Same key with another comment is the same fingerprint.
    const sameKey = await add(a.auth, 'desktop', key.replace(/ [^ ]+$/, ' other-comment'));
    expect(sameKey.status).toBe(409);
    expect(sameKey.body.error.message).toMatch(/already registered/);
    expect(await list(a.auth)).toHaveLength(1);
    expect((await add(b.auth, 'laptop', key)).status).toBe(201);
  });
});

describe('the default key', () => {
  it('makes the first key the default and later ones not', async () => {
    const { auth } = await t.newAccount();
    const first = await add(auth, 'first', ed25519Key());
    const second = await add(auth, 'second', ed25519Key());
    expect(first.body.is_default).toBe(true);
    expect(second.body.is_default).toBe(false);
  });

  it('lists newest first', async () => {
    const { auth } = await t.newAccount();
    await add(auth, 'one', ed25519Key());
    await add(auth, 'two', ed25519Key());
    await add(auth, 'three', ed25519Key());
    expect((await list(auth)).map((k) => k.name)).toEqual(['three', 'two', 'one']);
  });

  it('switches the default with PUT …/default', async () => {
    const { auth } = await t.newAccount();
    await add(auth, 'first', ed25519Key());
    const second = (await add(auth, 'second', ed25519Key())).body;
    const res = await t.http.put(`/v1/ssh-keys/${second.id}/default`).set(auth);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: second.id, is_default: true });
    const keys = await list(auth);
    expect(keys.filter((k) => k.is_default).map((k) => k.id)).toEqual([second.id]);
  });

  it('leaves exactly one default after many concurrent switches', async () => {
    const { auth } = await t.newAccount();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await add(auth, `k${i}`, ed25519Key())).body.id);
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => t.http.put(`/v1/ssh-keys/${ids[i % ids.length]}/default`).set(auth)),
    );
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(200));
    const defaults = (await list(auth)).filter((k) => k.is_default);
    expect(defaults).toHaveLength(1);
  });

  it('gives concurrent first keys exactly one default', async () => {
    const { auth } = await t.newAccount();
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => add(auth, `k${i}`, ed25519Key())));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect((await list(auth)).filter((k) => k.is_default)).toHaveLength(1);
  });

  it('promotes the newest remaining key when the default is deleted', async () => {
    const { auth } = await t.newAccount();
    const first = (await add(auth, 'first', ed25519Key())).body;
    await add(auth, 'second', ed25519Key());
    const third = (await add(auth, 'third', ed25519Key())).body;
    const res = await t.http.delete(`/v1/ssh-keys/${first.id}`).set(auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: first.id, deleted: true });
    const keys = await list(auth);
    expect(keys.map((k) => k.name)).toEqual(['third', 'second']);
    expect(keys.filter((k) => k.is_default).map((k) => k.id)).toEqual([third.id]);
  });
});

describe('isolation between accounts', () => {
  it('gives account B a 404 for every key of account A and never lists them', async () => {
    const a = await t.newAccount();
    const b = await t.newAccount();
    const aKey = (await add(a.auth, 'a-key', ed25519Key())).body;
    await add(b.auth, 'b-key', ed25519Key());

    expect((await list(b.auth)).map((k) => k.name)).toEqual(['b-key']);
    const put = await t.http.put(`/v1/ssh-keys/${aKey.id}/default`).set(b.auth);
    expect(put.status).toBe(404);
    expect(put.body.error.code).toBe('not_found');
    const del = await t.http.delete(`/v1/ssh-keys/${aKey.id}`).set(b.auth);
    expect(del.status).toBe(404);
    // A's key is untouched.
    expect(await list(a.auth)).toEqual([expect.objectContaining({ id: aKey.id, is_default: true })]);
  });

  it('answers 404 for ids that do not exist', async () => {
    const { auth } = await t.newAccount();
    expect((await t.http.delete('/v1/ssh-keys/sshkey_nope').set(auth)).status).toBe(404);
    expect((await t.http.put('/v1/ssh-keys/sshkey_nope/default').set(auth)).status).toBe(404);
  });
});
