/**
 * `npm run billing:complete-checkout -- <session_id>` as a developer runs it against a running API: it finds
 * the pending top-up in the database, signs the webhook with the secret from local.json and the API credits
 * the balance, once.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createTestContext, type TestContext } from '../helpers/context';
import { runEntry } from '../helpers/process';
import { startTestStripe } from '../helpers/stripe';

let t: TestContext;
let stripe: Awaited<ReturnType<typeof startTestStripe>>;
let server: Server;
let dataDir: string;
beforeAll(async () => {
  stripe = await startTestStripe();
  t = await createTestContext({ stripe: stripe.settings });
  server = t.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'gpuo-checkout-'));
  await writeFile(
    path.join(dataDir, 'local.json'),
    JSON.stringify({
      api_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      stripe_webhook_secret: stripe.settings.webhookSecret,
    }),
  );
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await t.close();
  await stripe.mock.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const completeCheckout = (...args: string[]) =>
  runEntry('src/cli/complete-checkout.ts', args, { DATABASE_URL: t.db.url, DATA_DIR: dataDir });

it('tops up in two steps: POST /v1/billing/credit, then the script; a second run credits nothing more', async () => {
  const { auth } = await t.newAccount('local dev', { credit: 0 });
  const session = await t.http.post('/v1/billing/credit').set(auth).send({ amount: 20 });
  expect(session.status).toBe(201);

  const run = completeCheckout(session.body.session_id);
  expect(await run.exited).toBe(0);
  expect(JSON.parse(run.output().trim().split('\n').pop()!)).toMatchObject({
    session_id: session.body.session_id,
    amount: 20,
    webhook_status: 200,
  });
  expect((await t.http.get('/v1/billing/balance').set(auth)).body).toEqual({ balance: 20, currency: 'usd' });

  const again = completeCheckout(session.body.session_id);
  expect(await again.exited).toBe(0);
  expect(JSON.parse(again.output().trim().split('\n').pop()!)).toMatchObject({ already_credited_before: true });
  expect((await t.http.get('/v1/billing/balance').set(auth)).body.balance).toBe(20);
});

it('exits 1 with a clear message for an unknown session or a malformed argument', async () => {
  const unknown = completeCheckout('cs_test_unknown123');
  expect(await unknown.exited).toBe(1);
  expect(unknown.output()).toContain('No top-up with session cs_test_unknown123');
  const malformed = completeCheckout('not-a-session');
  expect(await malformed.exited).toBe(1);
  expect(malformed.output()).toContain('usage: npm run billing:complete-checkout');
});
