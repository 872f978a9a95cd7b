/**
 * Webhook signing secrets are sealed at rest (issue 18, item 2). Endpoints written in plaintext before
 * sealing existed deliver and verify with `standardwebhooks`; the sealing migration (sealWebhookSecrets)
 * seals them; afterwards no secret appears in any column of any table (the whole database read as text, as
 * a dump shows it), and deliveries to old and new endpoints still verify with the same secrets. A master-key
 * rotation re-seals under the new key id, the secret unchanged.
 */
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { WEBHOOK_SECRET_AAD } from '../../src/db/queries/webhooks';
import { sealWebhookSecrets } from '../../src/db/queries/webhook-secrets';
import { KeyVault } from '../../src/domain/key-vault';
import { openText } from '../../src/domain/sealed-text';
import { generateWebhookSecret } from '../../src/domain/webhook-signing';
import { createApp } from '../../src/http/app';
import { createTestContext, TEST_MASTER_KEY, testVault, type TestContext } from '../helpers/context';
import { queryRows } from '../helpers/db';
import { eventually } from '../helpers/process';
import { createTemporalTestEnv, type TemporalTestEnv } from '../helpers/temporal';
import { startReceiver, startWebhookDispatcher, type Receiver } from '../helpers/webhooks';

jest.setTimeout(120_000);

let t: TestContext;
let temporal: TemporalTestEnv;
let receiver: Receiver;
let http: ReturnType<typeof request>;
let dispatcher: Awaited<ReturnType<typeof startWebhookDispatcher>>;

beforeAll(async () => {
  t = await createTestContext();
  http = request(createApp({ ...t.deps, webhooks: { allowedHosts: ['127.0.0.1'] } }).callback());
  temporal = await createTemporalTestEnv();
  receiver = await startReceiver();
  await temporal.startWorker(
    t.workerDeps({ webhooks: { databaseUrl: t.db.url, settings: { allowedHosts: ['127.0.0.1'], timeoutMs: 2_000 } } }),
    t.deps.temporal.taskQueue,
  );
  dispatcher = await startWebhookDispatcher({
    client: t.temporal,
    taskQueue: t.deps.temporal.taskQueue,
    databaseUrl: t.db.url,
    tickMs: 500,
  });
});
afterAll(async () => {
  await dispatcher?.stop();
  await temporal?.close();
  await receiver?.close();
  await t?.close();
});

/** Every row of every table in the schema as text (bytea as hex): what a dump of the database shows. */
async function databaseAsText(): Promise<string> {
  const tables = await queryRows<{ table_name: string }>(
    t.db.url,
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
  );
  const parts: string[] = [];
  for (const { table_name } of tables) {
    const rows = await queryRows<{ row: string }>(t.db.url, `SELECT to_jsonb(t)::text AS row FROM "${table_name}" t`);
    parts.push(...rows.map((r) => r.row));
  }
  return parts.join('\n');
}

/** The secret in every form a dump could show it: as written, its key bytes in base64 and in hex. */
function formsOf(secret: string): string[] {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return [secret, secret.slice('whsec_'.length), key.toString('hex')];
}

async function deliverAndVerify(auth: { Authorization: string }, webhookId: string, path: string): Promise<void> {
  const before = receiver.on(path).length;
  await http.post(`/v1/webhooks/${webhookId}/test`).set(auth).expect(202);
  const got = await eventually('the test delivery', async () => receiver.on(path)[before], 30_000, 100);
  expect({ path, verified: got.verified }).toEqual({ path, verified: true });
}

it('delivers verifiably before and after sealing, after which no secret is readable in the database', async () => {
  const a = await t.newAccount();
  // Two endpoints as they were before sealing existed: plaintext in the secret column.
  const legacy: { id: string; path: string; secret: string }[] = [];
  for (let i = 0; i < 2; i++) {
    const secret = generateWebhookSecret();
    const path = `/legacy-${i}-${randomBytes(4).toString('hex')}`;
    const id = `wh_legacy${i}${randomBytes(6).toString('hex')}`;
    await queryRows(
      t.db.url,
      'INSERT INTO webhook_endpoints (id, account_id, url, events, secret) VALUES ($1, $2, $3, $4, $5)',
      [id, a.accountId, receiver.url(path), ['webhook.test'], secret],
    );
    receiver.secret(path, secret);
    legacy.push({ id, path, secret });
  }
  // Endpoints created through the API now: one with a secret of its own choosing, one generated.
  const created: { id: string; path: string; secret: string }[] = [];
  for (const chosen of [generateWebhookSecret(), undefined]) {
    const path = `/new-${randomBytes(4).toString('hex')}`;
    const res = await http
      .post('/v1/webhooks')
      .set(a.auth)
      .send({ url: receiver.url(path), events: ['webhook.test'], ...(chosen ? { secret: chosen } : {}) });
    expect(res.status).toBe(201);
    receiver.secret(path, res.body.secret);
    created.push({ id: res.body.id, path, secret: res.body.secret });
  }
  // A secret changed by PUT is sealed too, and answered once.
  const rotated = generateWebhookSecret();
  const put = await http.put(`/v1/webhooks/${created[1]!.id}`).set(a.auth).send({ secret: rotated });
  expect(put.body.secret).toBe(rotated);
  receiver.secret(created[1]!.path, rotated);
  created[1]!.secret = rotated;

  for (const e of [...legacy, ...created]) await deliverAndVerify(a.auth, e.id, e.path);
  const beforeSealing = await databaseAsText();
  // The test sees plaintext when there is some.
  expect(legacy.every((e) => beforeSealing.includes(e.secret))).toBe(true);
  expect(created.some((e) => beforeSealing.includes(e.secret))).toBe(false);

  expect(await sealWebhookSecrets(t.db.pool, t.deps.vault)).toBe(2);
  expect(await sealWebhookSecrets(t.db.pool, t.deps.vault)).toBe(0);

  const dump = await databaseAsText();
  for (const e of [...legacy, ...created]) {
    for (const form of formsOf(e.secret))
      expect({ id: e.id, leaked: dump.includes(form) }).toEqual({ id: e.id, leaked: false });
  }
  expect((await http.get('/v1/webhooks').set(a.auth)).text).not.toMatch(/whsec_|sealed:/);
  for (const e of [...legacy, ...created]) await deliverAndVerify(a.auth, e.id, e.path);
});

it('re-seals under a rotated master key without changing any secret', async () => {
  const a = await t.newAccount();
  const res = await http
    .post('/v1/webhooks')
    .set(a.auth)
    .send({ url: receiver.url('/rotation'), events: ['webhook.test'] });
  const secret = res.body.secret as string;
  // MASTER_ENCRYPTION_KEY_ID=k2 with the old key listed in MASTER_ENCRYPTION_PREVIOUS_KEYS.
  const old = testVault();
  const rotated = KeyVault.fromConfig(
    'k2',
    randomBytes(32).toString('base64'),
    `test:${TEST_MASTER_KEY.toString('base64')}`,
  );
  expect(await sealWebhookSecrets(t.db.pool, rotated)).toBeGreaterThanOrEqual(1);
  const [row] = await queryRows<{ secret: string }>(t.db.url, 'SELECT secret FROM webhook_endpoints WHERE id = $1', [
    res.body.id,
  ]);
  expect(row!.secret).toMatch(/^sealed:v1:k2:/);
  // The rotated vault opens it to the very same secret (what a worker with the new key signs with).
  expect(openText(rotated, row!.secret, WEBHOOK_SECRET_AAD)).toBe(secret);
  expect(() => openText(old, row!.secret, WEBHOOK_SECRET_AAD)).toThrow(/no master key with id k2/);
});
