/**
 * `npm run billing:complete-checkout -- <session_id>`: completes a top-up locally. Sends the signed
 * `checkout.session.completed` webhook Stripe would send once the payer paid that Checkout Session (amount,
 * currency and account from the pending top-up we recorded), to the running API's
 * POST /v1/billing/stripe/webhook. Together with POST /v1/billing/credit this is the whole top-up flow
 * against stripe-mock, which never calls back by itself.
 *
 * Finds everything the way `npm start` left it: DATABASE_URL or the embedded Postgres, the webhook secret
 * from STRIPE_WEBHOOK_SECRET or `.data/local.json`, the API from local.json's `api_url` (or API_URL).
 */
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { loadConfigOrExit } from '../config';
import { createDatabasePool } from '../db/pool';
import { createCreditTopupQueries } from '../db/queries/credit-topups';
import { readLocalState, resolveDatabaseUrl } from '../local/local-state';

const USAGE =
  'usage: npm run billing:complete-checkout -- <session_id>   (the session_id POST /v1/billing/credit answered)\n';

function fail(message: string): never {
  process.stderr.write(message.endsWith('\n') ? message : `${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  const sessionId = process.argv[2];
  if (!sessionId || process.argv.length > 3 || !/^cs_[A-Za-z0-9_]{1,200}$/.test(sessionId)) fail(USAGE);
  const config = loadConfigOrExit();
  const local = (await readLocalState(config)) ?? {};
  const secret = config.STRIPE_WEBHOOK_SECRET ?? local.stripe_webhook_secret;
  if (!secret)
    fail(
      'No webhook secret: set STRIPE_WEBHOOK_SECRET, ' +
        'or start the service with `npm start` (it writes .data/local.json).',
    );
  const apiUrl = (process.env.API_URL || local.api_url || `http://127.0.0.1:${config.PORT}`).replace(/\/+$/, '');
  const databaseUrl = await resolveDatabaseUrl(config);

  const pool = await createDatabasePool(databaseUrl, { maximumPoolSize: 1 });
  let topup;
  try {
    topup = await createCreditTopupQueries(pool).findBySessionId(sessionId);
  } finally {
    await pool.end();
  }
  if (!topup) fail(`No top-up with session ${sessionId}: create one with POST /v1/billing/credit first.`);

  const amountCents = topup.amount_micros / 10_000;
  const event = {
    id: `evt_local_${randomBytes(12).toString('hex')}`,
    object: 'event',
    api_version: null,
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type: 'checkout.session.completed',
    data: {
      object: {
        id: topup.session_id,
        object: 'checkout.session',
        mode: 'payment',
        status: 'complete',
        payment_status: 'paid',
        currency: 'usd',
        amount_subtotal: amountCents,
        amount_total: amountCents,
        client_reference_id: topup.account_id,
        metadata: { account_id: topup.account_id },
      },
    },
  };
  const body = JSON.stringify(event);
  const signature = Stripe.webhooks.generateTestHeaderString({ payload: body, secret });
  const res = await fetch(`${apiUrl}/v1/billing/stripe/webhook`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature },
    body,
  });
  const answer = await res.text();
  if (!res.ok) fail(`The API answered ${res.status}: ${answer}`);
  process.stdout.write(
    JSON.stringify({
      session_id: topup.session_id,
      account_id: topup.account_id,
      amount: amountCents / 100,
      webhook_status: res.status,
      already_credited_before: topup.status === 'credited',
    }) + '\n',
  );
}

main().catch((err) => fail(`billing:complete-checkout failed: ${(err as Error).message}`));
