import { createHash, randomUUID } from 'node:crypto';
import type Stripe from 'stripe';
import { z } from 'zod';
import type { CreditTopup, CreditTopupQueries } from '../../db/queries/credit-topups';
import type { SpendSummary } from '../../db/queries/spend-summary';
import type { CreditReversalQueries, EarlyReversal, ReversalOutcome } from '../../db/queries/credit-reversals';
import {
  decodeLedgerCursor,
  toTransactionRecord,
  TransactionRecord,
  TRANSACTION_TYPES,
  type LedgerQueries,
} from '../../db/queries/ledger';
import { microsToDollars } from '../../domain/money';
import { ConflictError, ServiceUnavailableError, ValidationError } from '../../errors';
import type { Logger } from '../../logger';
import { createCreditCheckoutSession, verifyStripeEvent, type StripeSettings } from '../../billing/stripe';
import type { BillingClient } from '../../workflow-clients/billing';
import type { ApiRouter } from '../route';
import { text } from '../text';

const Balance = z.object({ balance: z.number().describe('dollars'), currency: z.literal('usd') });

const SpendSummaryRecord = z.object({
  balance: z.number().describe("dollars: exactly GET /v1/billing/balance (the last transaction's balance_after)"),
  uncharged: z
    .number()
    .describe(
      "dollars live instances (and stopped pods' storage) have run up since their last charge (charged at the next " +
        'meter or end)',
    ),
  available: z.number().describe('balance − uncharged: what launches are admitted against'),
  burn_rate_per_hour: z
    .number()
    .describe("dollars per hour of every live managed instance and of stopped pods' storage"),
  runway_hours: z.number().nullable().describe('available / burn_rate_per_hour; null when nothing burns'),
  depletes_at: z
    .string()
    .nullable()
    .describe('ISO 8601 UTC moment available reaches zero at this burn; null when nothing burns'),
  month_to_date_spend: z
    .number()
    .describe('dollars of instance_charge and instance_storage_charge transactions since the start of this UTC month'),
  forecast_month_spend: z.number().describe('month to date + uncharged + the burn rate until the end of the month'),
  live_instances: z
    .number()
    .int()
    .describe('managed instances that cost money by the hour (provisioning, running, stopping, terminating)'),
  currency: z.literal('usd'),
});

const TransactionList = z.object({
  data: z.array(TransactionRecord),
  has_more: z.boolean(),
  next_cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
});

const ListTransactionsQuery = z
  .object({
    type: z.enum(TRANSACTION_TYPES).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: text({ max: 512 })
      .refine(
        (c) => decodeLedgerCursor(c) !== null,
        'is not a cursor from this list; pass next_cursor from the previous page',
      )
      .optional(),
  })
  .strict();

/** Spec limit: the minimum credit amount is 5 dollars. Stripe's own ceiling for one USD payment is 999,999.99. */
export const MINIMUM_CREDIT_DOLLARS = 5;
const MAXIMUM_CREDIT_DOLLARS = 999_999.99;

const CreditBody = z
  .object({
    amount: z
      .number({ invalid_type_error: 'must be a number of dollars', required_error: 'required' })
      .min(MINIMUM_CREDIT_DOLLARS, `must be at least ${MINIMUM_CREDIT_DOLLARS} (dollars): the minimum credit amount`)
      .max(MAXIMUM_CREDIT_DOLLARS, `must be at most ${MAXIMUM_CREDIT_DOLLARS} (dollars)`)
      .refine((a) => Math.abs(a * 100 - Math.round(a * 100)) < 1e-6, 'must have at most two decimals (whole cents)')
      .describe(`dollars, at least ${MINIMUM_CREDIT_DOLLARS}, at most two decimals`),
  })
  .strict();

const CheckoutSession = z.object({
  checkout_url: z.string().describe("Stripe's hosted checkout page; the balance grows once Stripe reports the payment"),
  session_id: z.string().describe('the Stripe Checkout Session id (cs_…)'),
});

/** Stripe's events we act on; every other type is acknowledged and ignored. */
const PAID_SESSION_EVENTS = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);
const REVERSAL_EVENTS = new Set(['charge.refunded', 'charge.dispute.created', 'charge.dispute.closed']);

/** Stripe sends an expandable field as its id or as the object. */
const idOf = (field: string | { id: string } | null | undefined): string | null =>
  typeof field === 'string' ? field : (field?.id ?? null);

export interface BillingDeps {
  ledger: LedgerQueries;
  /** Refunds and disputes of top-ups (Stripe `charge.refunded`, `charge.dispute.created` / `.closed`). */
  reversals: CreditReversalQueries;
  /** The spend summary of an account (balance, uncharged usage, burn, runway, month). */
  summary: (accountId: string) => Promise<SpendSummary>;
  topups: CreditTopupQueries;
  /** Null when STRIPE_SECRET_KEY is not set: POST /v1/billing/credit answers 503. */
  stripe: Stripe | null;
  stripeSettings: StripeSettings;
  /** Signals a running balance-depletion grace period that credit arrived. */
  workflows: BillingClient;
  logger: Logger;
}

const creditRecord = (t: CreditTopup) => ({ checkout_url: t.checkout_url, session_id: t.session_id });

export function registerBillingRoutes(api: ApiRouter, deps: BillingDeps): void {
  /** A refund or dispute of a top-up: its reversal on the ledger, once (see credit-reversals.ts). */
  async function applyReversal(event: Stripe.Event): Promise<void> {
    let outcome: ReversalOutcome | null = null;
    let reversal: EarlyReversal | null = null;
    if (event.type === 'charge.refunded') {
      const charge = event.data.object as Stripe.Charge;
      const pi = idOf(charge.payment_intent);
      if (pi && charge.currency === 'usd') {
        reversal = {
          kind: 'refund',
          paymentIntentId: pi,
          amountRefundedCents: charge.amount_refunded,
          chargeId: charge.id,
        };
        outcome = await deps.reversals.applyRefund(reversal);
      }
    } else {
      const dispute = event.data.object as Stripe.Dispute;
      const pi = idOf(dispute.payment_intent);
      const phase = event.type === 'charge.dispute.created' ? 'opened' : dispute.status === 'won' ? 'won' : null;
      if (pi && phase && dispute.currency === 'usd') {
        reversal = { kind: 'dispute', paymentIntentId: pi, disputeId: dispute.id, amountCents: dispute.amount, phase };
        outcome = await deps.reversals.applyDispute(reversal);
      }
    }
    if (outcome && !outcome.applied && outcome.reason !== 'nothing_new' && reversal) {
      // Before its top-up credited (Stripe does not order events): kept, and applied when the top-up credits.
      // Kept first, then looked at again: a credit that committed meanwhile has already looked for it, or
      // this finds the top-up credited; applying is idempotent either way.
      deps.logger.info('Stripe reversal kept until its top-up credits', {
        reason: outcome.reason,
        event_id: event.id,
        type: event.type,
      });
      await deps.reversals.keepEarlyReversal(reversal);
      await applyEarly(reversal.paymentIntentId);
      return;
    }
    if (outcome?.applied)
      await tellSpendWorkflow(outcome.accountId, outcome.entry.amount_micros > 0 ? 'credit' : 'reversal');
  }

  /** Applies the reversals kept for a payment whose top-up is now credited, and tells the spend workflow. */
  async function applyEarly(paymentIntentId: string): Promise<void> {
    for (const applied of await deps.reversals.applyEarlyReversals(paymentIntentId)) {
      await tellSpendWorkflow(applied.accountId, applied.entry.amount_micros > 0 ? 'credit' : 'reversal');
    }
  }

  /**
   * Moves the account's spend workflow (a credit cancels a grace period, a reversal brings the depletion moment
   * closer). Best effort: the workflow reads the account again at its next timer anyway, so an engine outage
   * here must not make Stripe redeliver a payment already credited.
   */
  async function tellSpendWorkflow(accountId: string, cause: 'credit' | 'reversal'): Promise<void> {
    try {
      await deps.workflows.notifyBalanceMoved(accountId, { cause });
    } catch (err) {
      deps.logger.warn('could not signal the spend workflow after a balance change', { account_id: accountId, err });
    }
  }

  api.add({
    method: 'get',
    path: '/v1/billing/balance',
    tag: 'Billing',
    summary: "The account's prepaid balance",
    auth: true,
    responses: { 200: { description: 'The balance (0 for a new account)', schema: Balance } },
    handler: async ({ accountId }) => ({
      body: { balance: microsToDollars(await deps.ledger.getBalance(accountId)), currency: 'usd' },
    }),
  });

  api.add({
    method: 'get',
    path: '/v1/billing/summary',
    tag: 'Billing',
    summary:
      'Where the balance stands and where it goes: uncharged usage, burn rate, runway, month to date and forecast',
    description:
      'Beyond the spec. Read in one snapshot: balance and month_to_date_spend agree with the ledger to the ' +
      'micro-dollar.',
    auth: true,
    responses: { 200: { description: 'The spend summary', schema: SpendSummaryRecord } },
    handler: async ({ accountId }) => {
      const s = await deps.summary(accountId);
      return {
        body: {
          balance: microsToDollars(s.balanceMicros),
          uncharged: microsToDollars(s.unchargedMicros),
          available: microsToDollars(s.availableMicros),
          burn_rate_per_hour: microsToDollars(s.burnPerHourMicros),
          runway_hours: s.runwayHours,
          depletes_at: s.depletesAt,
          month_to_date_spend: microsToDollars(s.monthToDateSpendMicros),
          forecast_month_spend: microsToDollars(s.forecastMonthSpendMicros),
          live_instances: s.liveInstances,
          currency: 'usd' as const,
        },
      };
    },
  });

  api.add({
    method: 'get',
    path: '/v1/billing/transactions',
    tag: 'Billing',
    summary: 'Ledger transactions, newest first',
    description:
      'Instance charges and credit top-ups. `type` filters; `limit` (default 50, max 200) and `cursor` page.',
    auth: true,
    query: ListTransactionsQuery,
    responses: { 200: { description: 'A page of transactions', schema: TransactionList } },
    handler: async ({ query, accountId }) => {
      const page = await deps.ledger.listEntries(accountId, {
        type: query.type,
        limit: query.limit,
        cursor: query.cursor,
      });
      return {
        body: { data: page.entries.map(toTransactionRecord), has_more: page.has_more, next_cursor: page.next_cursor },
      };
    },
  });

  api.add({
    method: 'post',
    path: '/v1/billing/credit',
    tag: 'Billing',
    summary: 'Add credit: creates a Stripe Checkout Session',
    description:
      'Creates a hosted Stripe checkout (payment mode, USD) for `amount` dollars and records a pending top-up. ' +
      'The balance grows by exactly that amount when Stripe reports the payment (POST /v1/billing/stripe/webhook). ' +
      'Send an Idempotency-Key header to make retries safe (24 h): the same key and body replay the first answer, ' +
      'another body is 409.',
    auth: true,
    body: CreditBody,
    responses: { 201: { description: 'The checkout to send the payer to', schema: CheckoutSession } },
    errors: [409, 502, 503],
    handler: async ({ body, accountId, ctx }) => {
      const idempotencyKey = ctx.get('idempotency-key') || null;
      if (idempotencyKey !== null && !/^[A-Za-z0-9_.:-]{1,100}$/.test(idempotencyKey)) {
        throw new ValidationError('Idempotency-Key must be 1-100 characters of letters, digits, _ . : -');
      }
      const amountCents = Math.round(body.amount * 100);
      const requestHash = createHash('sha256')
        .update(JSON.stringify({ amount_cents: amountCents }))
        .digest('hex');
      const replay = (t: CreditTopup) => {
        if (t.request_hash !== requestHash)
          throw new ConflictError('This Idempotency-Key was used with a different request body.');
        return { status: 201, body: creditRecord(t) };
      };
      if (idempotencyKey !== null) {
        const earlier = await deps.topups.findByIdempotencyKey(accountId, idempotencyKey);
        if (earlier) return replay(earlier);
      }
      if (!deps.stripe)
        throw new ServiceUnavailableError(
          'Credit top-ups are not configured on this server (STRIPE_SECRET_KEY is not set).',
          60,
        );
      const session = await createCreditCheckoutSession(deps.stripe, deps.stripeSettings, {
        accountId,
        amountCents,
        // Stripe replays the same session for the same key (real Stripe; stripe-mock does not keep state).
        idempotencyKey:
          idempotencyKey !== null
            ? `credit-${accountId}-${idempotencyKey}-${requestHash.slice(0, 16)}`
            : `credit-${randomUUID()}`,
      });
      const { topup, inserted } = await deps.topups.insertPending({
        accountId,
        sessionId: session.sessionId,
        amountMicros: amountCents * 10_000,
        checkoutUrl: session.checkoutUrl,
        idempotencyKey,
        requestHash,
      });
      return inserted ? { status: 201, body: creditRecord(topup) } : replay(topup);
    },
  });

  api.add({
    method: 'post',
    path: '/v1/billing/stripe/webhook',
    tag: 'Billing',
    summary: 'Stripe webhook endpoint (called by Stripe, not by clients)',
    description:
      'No service key: the `Stripe-Signature` header is verified on the raw body with STRIPE_WEBHOOK_SECRET (400 ' +
      'when it is missing, ' +
      'wrong or older than 5 minutes; nothing changes). `checkout.session.completed` with `payment_status: paid` and ' +
      "`checkout.session.async_payment_succeeded` credit the pending top-up of that session once, only when Stripe's " +
      '`amount_total` (USD) and `client_reference_id` match what was recorded. `charge.refunded` (full or partial) ' +
      'posts a negative ' +
      '`credit_refund`, `charge.dispute.created` a negative `credit_dispute` and `charge.dispute.closed` with `won` ' +
      'reinstates it, ' +
      'each once however often Stripe redelivers, with `billing.credit_reversed`; one that arrives before its top-up ' +
      'is credited is kept ' +
      'and applied when it credits. Every other event type is acknowledged and ignored.',
    auth: false,
    body: z.unknown().describe('a Stripe Event object, verified byte for byte'),
    responses: { 200: { description: 'Received', schema: z.object({ received: z.literal(true) }) } },
    errors: [503],
    handler: async ({ ctx }) => {
      if (!deps.stripeSettings.webhookSecret) {
        throw new ServiceUnavailableError(
          'Stripe webhooks are not configured on this server (STRIPE_WEBHOOK_SECRET is not set).',
          60,
        );
      }
      const event = verifyStripeEvent(
        ctx.state.rawBody as Buffer | undefined,
        ctx.get('stripe-signature'),
        deps.stripeSettings.webhookSecret,
      );
      if (REVERSAL_EVENTS.has(event.type)) {
        await applyReversal(event);
        return { body: { received: true } };
      }
      if (!PAID_SESSION_EVENTS.has(event.type)) return { body: { received: true } };
      const session = event.data.object as Stripe.Checkout.Session;
      if (session.payment_status !== 'paid' || typeof session.id !== 'string') return { body: { received: true } };
      const paymentIntent = idOf(session.payment_intent);
      if (paymentIntent) await deps.reversals.recordPaymentIntent(session.id, paymentIntent);
      const outcome = await deps.topups.creditPaidSession({
        sessionId: session.id,
        accountId: session.client_reference_id ?? null,
        amountTotalCents:
          session.currency === 'usd' && typeof session.amount_total === 'number' ? session.amount_total : null,
      });
      if (!outcome.credited) {
        // Acknowledged (a retry would not change the answer) but never credited; operators see why.
        deps.logger.warn('paid Stripe checkout not credited', {
          reason: outcome.reason,
          session_id: session.id,
          event_id: event.id,
        });
        return { body: { received: true } };
      }
      await tellSpendWorkflow(outcome.topup.account_id, 'credit');
      if (paymentIntent) await applyEarly(paymentIntent);
      return { body: { received: true } };
    },
  });
}
