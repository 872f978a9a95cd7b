/**
 * Stripe through the official SDK: Checkout Sessions for credit top-ups and webhook signature checks.
 * `STRIPE_API_BASE_URL` points the SDK at stripe-mock (local default, tests); unset, it talks to Stripe.
 * The secret key never appears in a log line or an error message (see {@link toStripeApiError}).
 */
import type Stripe from 'stripe';
import { ApiError, ProviderApiError, redactSecrets, ServiceUnavailableError, ValidationError } from '../errors';

export interface StripeSettings {
  secretKey?: string;
  /** e.g. `http://127.0.0.1:12111` for stripe-mock; unset: api.stripe.com. */
  apiBaseUrl?: string;
  /** `whsec_…`: verifies `Stripe-Signature` on POST /v1/billing/stripe/webhook. */
  webhookSecret?: string;
  /** Where the payer returns after the hosted checkout (PUBLIC_BASE_URL, else the local API address). */
  returnBaseUrl?: string;
}

/**
 * The SDK, loaded on first use: a process that never talks to Stripe (an API without a key, a worker, most test
 * files) does not spend the 0.1 CPU-s its modules take to load.
 */
let loaded: typeof Stripe | undefined;
const stripeSdk = (): typeof Stripe => (loaded ??= require('stripe') as typeof Stripe);

/** How old a signed webhook may be (Stripe's own default), against replays of captured deliveries. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

export function createStripeClient(settings: StripeSettings): Stripe | null {
  if (!settings.secretKey) return null;
  const base = settings.apiBaseUrl ? new URL(settings.apiBaseUrl) : null;
  return new (stripeSdk())(settings.secretKey, {
    maxNetworkRetries: 2,
    timeout: 10_000,
    ...(base
      ? {
          host: base.hostname,
          port: base.port ? Number(base.port) : base.protocol === 'https:' ? 443 : 80,
          protocol: base.protocol === 'https:' ? 'https' : 'http',
        }
      : {}),
  });
}

/** Maps an SDK failure to our error table; never carries the secret key. */
export function toStripeApiError(err: unknown, secretKey: string | undefined): ApiError {
  if (err instanceof ApiError) return err;
  const message = redactSecrets(err instanceof Error ? err.message : String(err), [secretKey]);
  const { errors } = stripeSdk();
  if (err instanceof errors.StripeError) {
    if (
      err instanceof errors.StripeConnectionError ||
      err instanceof errors.StripeRateLimitError ||
      err instanceof errors.StripeAPIError ||
      (err.statusCode ?? 0) >= 500
    ) {
      return new ServiceUnavailableError(
        `The payment processor (Stripe) cannot be reached right now; retrying is safe. (${message})`,
        10,
      );
    }
    return new ProviderApiError('stripe', err.statusCode ?? 0, message);
  }
  return new ServiceUnavailableError(
    `The payment processor (Stripe) cannot be reached right now; retrying is safe. (${message})`,
    10,
  );
}

/** The hosted checkout for one top-up: payment mode, USD, one line of `amountCents`, the account as reference. */
export async function createCreditCheckoutSession(
  stripe: Stripe,
  settings: StripeSettings,
  input: { accountId: string; amountCents: number; idempotencyKey: string },
): Promise<{ sessionId: string; checkoutUrl: string }> {
  const returnBase = (settings.returnBaseUrl ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
  let session: Stripe.Checkout.Session;
  try {
    session = await stripe.checkout.sessions.create(
      {
        mode: 'payment',
        client_reference_id: input.accountId,
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: 'usd',
              unit_amount: input.amountCents,
              product_data: { name: 'GPU orchestrator prepaid credit' },
            },
          },
        ],
        metadata: { account_id: input.accountId },
        success_url: `${returnBase}/console/checkout/success?session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${returnBase}/console/checkout/cancel`,
      },
      { idempotencyKey: input.idempotencyKey },
    );
  } catch (err) {
    throw toStripeApiError(err, settings.secretKey);
  }
  if (!session.url) throw new ProviderApiError('stripe', 200, 'Stripe created a Checkout Session without a URL.');
  return { sessionId: session.id, checkoutUrl: session.url };
}

/**
 * Verifies `Stripe-Signature` over the exact raw bytes (HMAC-SHA256, constant-time compare and timestamp
 * tolerance inside the SDK) and returns the event. A missing, wrong, stale or mismatched signature is a 400
 * and nothing else happens.
 */
export function verifyStripeEvent(
  rawBody: Buffer | undefined,
  signature: string,
  webhookSecret: string,
  nowSeconds?: number,
): Stripe.Event {
  if (!rawBody || rawBody.length === 0) throw new ValidationError('The webhook has no body to verify.');
  if (!signature) {
    throw new ValidationError('The Stripe-Signature header is missing.', [
      { path: 'Stripe-Signature', message: 'required' },
    ]);
  }
  try {
    // A fresh instance without a key: verification needs only the webhook secret.
    return stripeSdk().webhooks.constructEvent(
      rawBody,
      signature,
      webhookSecret,
      WEBHOOK_TOLERANCE_SECONDS,
      undefined,
      nowSeconds,
    );
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : 'invalid';
    throw new ValidationError('The Stripe-Signature header does not verify for this body.', [
      { path: 'Stripe-Signature', message: reason! },
    ]);
  }
}
