/**
 * Stripe refunds and disputes of a top-up, on the ledger: each effect exactly once however often (and in
 * whatever order) Stripe delivers its events. Every reversal locks the top-up's row first, so concurrent
 * redeliveries of one event serialize, and the ledger entry's idempotency key names the effect.
 */
import { z } from 'zod';
import { microsToDollars } from '../../domain/money';
import type { Pool } from '../pool';
import { sql } from '../sql';
import { insertEvent } from './events';
import { createLedgerQueries, type LedgerEntry } from './ledger';

const Topup = z.object({
  id: z.string(),
  account_id: z.string(),
  session_id: z.string(),
  amount_micros: z.number(),
  refunded_micros: z.number(),
  status: z.string(),
});

export type ReversalOutcome =
  | { applied: true; entry: LedgerEntry; accountId: string }
  | { applied: false; reason: 'unknown_payment' | 'nothing_new' | 'not_credited' };

/** A refund or dispute as Stripe reported it, kept while its top-up is not credited yet. */
export type EarlyReversal =
  | { kind: 'refund'; paymentIntentId: string; amountRefundedCents: number; chargeId: string }
  | { kind: 'dispute'; paymentIntentId: string; disputeId: string; amountCents: number; phase: 'opened' | 'won' };

const EarlyRow = z.object({
  kind: z.enum(['refund', 'dispute']),
  amount_cents: z.number(),
  charge_id: z.string().nullable(),
  dispute_id: z.string().nullable(),
  phase: z.enum(['opened', 'won']).nullable(),
});

export function createCreditReversalQueries(pool: Pool) {
  const ledger = createLedgerQueries(pool);

  /** Runs `fn` holding the lock of the credited top-up paid by `paymentIntentId`. */
  async function withTopup<T>(
    paymentIntentId: string,
    fn: (topup: z.infer<typeof Topup>, tx: Parameters<Parameters<Pool['transaction']>[0]>[0]) => Promise<T>,
  ) {
    return pool.transaction(async (tx) => {
      const topup = await tx.maybeOne(sql.type(Topup)`
        SELECT id, account_id, session_id, amount_micros, refunded_micros, status FROM credit_topups
        WHERE payment_intent_id = ${paymentIntentId} FOR UPDATE`);
      return fn(topup as z.infer<typeof Topup>, tx);
    });
  }

  const reversals = {
    /**
     * Remembers which PaymentIntent paid a session (from `checkout.session.completed`): refunds and disputes name it.
     */
    async recordPaymentIntent(sessionId: string, paymentIntentId: string): Promise<void> {
      await pool.query(sql.typeAlias('void')`
        UPDATE credit_topups SET payment_intent_id = ${paymentIntentId} WHERE session_id = ${sessionId}
          AND payment_intent_id IS NULL`);
    },

    /**
     * `charge.refunded`: Stripe reports the total refunded so far (`amount_refunded`); what is new beyond what
     * was already reversed is posted as one negative `credit_refund`. A redelivery, or an older event arriving
     * late, finds nothing new. Never more than the top-up itself.
     */
    async applyRefund(input: {
      paymentIntentId: string;
      amountRefundedCents: number;
      chargeId: string;
    }): Promise<ReversalOutcome> {
      return withTopup(input.paymentIntentId, async (topup, tx) => {
        if (!topup) return { applied: false, reason: 'unknown_payment' } as const;
        if (topup.status !== 'credited') return { applied: false, reason: 'not_credited' } as const;
        const total = Math.min(input.amountRefundedCents * 10_000, topup.amount_micros);
        const fresh = total - topup.refunded_micros;
        if (fresh <= 0) return { applied: false, reason: 'nothing_new' } as const;
        const { entry } = await ledger.postEntry(
          {
            accountId: topup.account_id,
            type: 'credit_refund',
            amountMicros: -fresh,
            description: `Refund of top-up ${topup.id} (Stripe Checkout ${topup.session_id}, charge ${input.chargeId})`,
            idempotencyKey: `stripe:refund:${input.paymentIntentId}:${total}`,
          },
          tx,
        );
        await tx.query(
          sql.typeAlias('void')`UPDATE credit_topups SET refunded_micros = ${total} WHERE id = ${topup.id}`,
        );
        await reversed(tx, entry, { reason: 'refund', topup_id: topup.id, session_id: topup.session_id });
        return { applied: true, entry, accountId: topup.account_id } as const;
      });
    },

    /**
     * `charge.dispute.created` (`phase: 'opened'`): the disputed amount leaves the balance (negative
     * `credit_dispute`); `charge.dispute.closed` with `won` (`phase: 'won'`): it comes back (positive). Each
     * once per dispute; a win is reinstated only for a dispute whose reversal was posted.
     */
    async applyDispute(input: {
      paymentIntentId: string;
      disputeId: string;
      amountCents: number;
      phase: 'opened' | 'won';
    }): Promise<ReversalOutcome> {
      return withTopup(input.paymentIntentId, async (topup, tx) => {
        if (!topup) return { applied: false, reason: 'unknown_payment' } as const;
        if (topup.status !== 'credited') return { applied: false, reason: 'not_credited' } as const;
        const opened = await tx.maybeOne(sql.type(z.object({ amount_micros: z.number() }))`
          SELECT amount_micros FROM ledger_entries WHERE account_id = ${topup.account_id}
            AND idempotency_key = ${`stripe:dispute:${input.disputeId}`}`);
        if (input.phase === 'won' && !opened) return { applied: false, reason: 'nothing_new' } as const;
        const amount =
          input.phase === 'opened'
            ? -Math.min(input.amountCents * 10_000, topup.amount_micros)
            : -opened!.amount_micros;
        const { entry, created } = await ledger.postEntry(
          {
            accountId: topup.account_id,
            type: 'credit_dispute',
            amountMicros: amount,
            description:
              input.phase === 'opened'
                ? `Dispute ${input.disputeId} opened on top-up ${topup.id} (Stripe Checkout ${topup.session_id})`
                : `Dispute ${input.disputeId} won: top-up ${topup.id} reinstated`,
            idempotencyKey:
              input.phase === 'opened' ? `stripe:dispute:${input.disputeId}` : `stripe:dispute-won:${input.disputeId}`,
          },
          tx,
        );
        if (!created) return { applied: false, reason: 'nothing_new' } as const;
        if (input.phase === 'opened')
          await reversed(tx, entry, {
            reason: 'dispute',
            topup_id: topup.id,
            session_id: topup.session_id,
            dispute_id: input.disputeId,
          });
        else {
          await insertEvent(tx, {
            accountId: topup.account_id,
            type: 'billing.credit_added',
            data: {
              transaction_id: entry.id,
              amount: microsToDollars(entry.amount_micros),
              balance: microsToDollars(entry.balance_after_micros),
              reason: 'dispute_won',
              dispute_id: input.disputeId,
            },
            dedupeKey: `billing.credit_added:dispute-won:${input.disputeId}`,
          });
        }
        return { applied: true, entry, accountId: topup.account_id } as const;
      });
    },

    /**
     * Keeps a reversal whose top-up is unknown or not credited yet (Stripe may deliver a refund before the
     * payment's `checkout.session.completed`), to be applied by {@link applyEarlyReversals} when it credits.
     */
    async keepEarlyReversal(r: EarlyReversal): Promise<void> {
      const effect = r.kind === 'refund' ? 'refund' : `dispute:${r.disputeId}:${r.phase}`;
      const amount = r.kind === 'refund' ? r.amountRefundedCents : r.amountCents;
      await pool.query(sql.typeAlias('void')`
        INSERT INTO early_credit_reversals AS e (payment_intent_id, effect, kind, amount_cents, charge_id, dispute_id,
          phase)
        VALUES (${r.paymentIntentId}, ${effect}, ${r.kind}, ${amount}, ${r.kind === 'refund' ? r.chargeId : null},
          ${r.kind === 'dispute' ? r.disputeId : null}, ${r.kind === 'dispute' ? r.phase : null})
        ON CONFLICT (payment_intent_id, effect) DO UPDATE SET
          amount_cents = greatest(e.amount_cents, excluded.amount_cents), charge_id = coalesce(excluded.charge_id,
            e.charge_id)`);
    },

    /**
     * Applies the kept reversals of a payment once its top-up is credited (refunds, then dispute openings, then
     * wins), each exactly once as if it had arrived now, and forgets them. Those still not applicable stay.
     */
    async applyEarlyReversals(paymentIntentId: string): Promise<Extract<ReversalOutcome, { applied: true }>[]> {
      const rows = await pool.any(sql.type(EarlyRow)`
        SELECT kind, amount_cents, charge_id, dispute_id, phase FROM early_credit_reversals
        WHERE payment_intent_id = ${paymentIntentId}
        ORDER BY kind DESC, phase NULLS FIRST, received_at`);
      const applied: Extract<ReversalOutcome, { applied: true }>[] = [];
      for (const row of rows) {
        const outcome =
          row.kind === 'refund'
            ? await reversals.applyRefund({
                paymentIntentId,
                amountRefundedCents: row.amount_cents,
                chargeId: row.charge_id ?? 'unknown',
              })
            : await reversals.applyDispute({
                paymentIntentId,
                disputeId: row.dispute_id!,
                amountCents: row.amount_cents,
                phase: row.phase!,
              });
        if (outcome.applied) applied.push(outcome);
        if (outcome.applied || outcome.reason === 'nothing_new') {
          const effect = row.kind === 'refund' ? 'refund' : `dispute:${row.dispute_id}:${row.phase}`;
          await pool.query(sql.typeAlias('void')`
            DELETE FROM early_credit_reversals WHERE payment_intent_id = ${paymentIntentId} AND effect = ${effect}`);
        }
      }
      return applied;
    },
  };
  return reversals;
}
export type CreditReversalQueries = ReturnType<typeof createCreditReversalQueries>;

async function reversed(
  tx: Parameters<Parameters<Pool['transaction']>[0]>[0],
  entry: LedgerEntry,
  data: Record<string, unknown>,
): Promise<void> {
  await insertEvent(tx, {
    accountId: entry.account_id,
    type: 'billing.credit_reversed',
    data: {
      transaction_id: entry.id,
      type: entry.type,
      amount: microsToDollars(entry.amount_micros),
      balance: microsToDollars(entry.balance_after_micros),
      ...data,
    },
    dedupeKey: `billing.credit_reversed:${entry.id}`,
  });
}
