/**
 * Stripe at the boundary: a stripe-mock process per test file (on a free port) for the SDK calls, and
 * builders of the signed webhook deliveries Stripe would send (`stripe.webhooks.generateTestHeaderString`).
 */
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { startStripeMock, STRIPE_MOCK_SECRET_KEY, type RunningStripeMock } from '../../src/local/stripe-mock';
import type { StripeSettings } from '../../src/billing/stripe';
import { freePort } from './ports';

export async function startTestStripe(): Promise<{
  mock: RunningStripeMock;
  settings: Required<Pick<StripeSettings, 'secretKey' | 'apiBaseUrl' | 'webhookSecret'>>;
}> {
  const mock = await startStripeMock({ port: await freePort() });
  return {
    mock,
    settings: {
      secretKey: STRIPE_MOCK_SECRET_KEY,
      apiBaseUrl: mock.baseUrl,
      webhookSecret: `whsec_${randomBytes(24).toString('base64')}`,
    },
  };
}

/** A `checkout.session.completed` event the way Stripe sends it for a paid session. */
export function checkoutCompletedEvent(session: {
  id: string;
  accountId: string | null;
  amountTotalCents: number;
  currency?: string;
  paymentStatus?: 'paid' | 'unpaid' | 'no_payment_required';
  type?: string;
  /** The PaymentIntent that paid it (`pi_…`): refunds and disputes name it. */
  paymentIntent?: string;
}): Record<string, unknown> {
  return {
    id: `evt_${randomBytes(12).toString('hex')}`,
    object: 'event',
    api_version: '2025-01-27.acacia',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type: session.type ?? 'checkout.session.completed',
    data: {
      object: {
        id: session.id,
        object: 'checkout.session',
        mode: 'payment',
        amount_total: session.amountTotalCents,
        amount_subtotal: session.amountTotalCents,
        currency: session.currency ?? 'usd',
        client_reference_id: session.accountId,
        payment_status: session.paymentStatus ?? 'paid',
        payment_intent: session.paymentIntent ?? null,
        status: 'complete',
      },
    },
  };
}

/** The raw body and its `Stripe-Signature` header (timestamp in seconds; default now). */
export function signedDelivery(
  event: Record<string, unknown>,
  secret: string,
  timestamp?: number,
): { body: string; signature: string } {
  const body = JSON.stringify(event);
  return {
    body,
    signature: Stripe.webhooks.generateTestHeaderString({ payload: body, secret, ...(timestamp ? { timestamp } : {}) }),
  };
}

/** A Stripe event of `type` about `object` (a Charge for `charge.refunded`, a Dispute for `charge.dispute.*`). */
export function stripeEvent(type: string, object: Record<string, unknown>): Record<string, unknown> {
  return {
    id: `evt_${randomBytes(12).toString('hex')}`,
    object: 'event',
    api_version: '2025-01-27.acacia',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object },
  };
}
