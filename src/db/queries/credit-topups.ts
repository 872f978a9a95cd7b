import { z } from 'zod';
import { randomToken } from '../../domain/ids';
import { microsToDollars } from '../../domain/money';
import type { Pool } from '../pool';
import { sql } from '../sql';
import { insertEvent } from './events';
import { createLedgerQueries, type LedgerEntry } from './ledger';

export const CreditTopupRow = z.object({
  id: z.string(),
  account_id: z.string(),
  session_id: z.string(),
  amount_micros: z.number(),
  checkout_url: z.string(),
  status: z.enum(['pending', 'credited']),
  idempotency_key: z.string().nullable(),
  request_hash: z.string(),
  credited_entry_id: z.string().nullable(),
  created_at: z.string(),
  credited_at: z.string().nullable(),
});
export type CreditTopup = z.infer<typeof CreditTopupRow>;

const COLUMNS = sql.fragment`id, account_id, session_id, amount_micros, checkout_url, status, idempotency_key,
  request_hash,
  credited_entry_id, created_at, credited_at`;

/** How long an Idempotency-Key of POST /v1/billing/credit replays its first answer (decisions.md: 24 h). */
export const CREDIT_IDEMPOTENCY_WINDOW_HOURS = 24;

/** Why a paid checkout was not credited; the webhook answers 200 either way (Stripe must not retry these). */
export type CreditOutcome =
  | { credited: true; entry: LedgerEntry; firstTime: boolean; topup: CreditTopup }
  | { credited: false; reason: 'unknown_session' | 'account_mismatch' | 'amount_mismatch'; topup: CreditTopup | null };

/**
 * Pending top-ups (one per Stripe Checkout Session we created) and their exactly-once crediting.
 * Every lookup a client can drive filters by account; the webhook's lookup is by Stripe's session id and then
 * checks the account Stripe reports against the one we recorded.
 */
export function createCreditTopupQueries(pool: Pool) {
  const ledger = createLedgerQueries(pool);
  return {
    /** The account's top-up created under this Idempotency-Key within the replay window, if any. */
    async findByIdempotencyKey(accountId: string, idempotencyKey: string): Promise<CreditTopup | null> {
      return pool.maybeOne(sql.type(CreditTopupRow)`
        SELECT ${COLUMNS} FROM credit_topups
        WHERE account_id = ${accountId} AND idempotency_key = ${idempotencyKey}
          AND created_at > now() - make_interval(hours => ${CREDIT_IDEMPOTENCY_WINDOW_HOURS})`);
    },

    /**
     * Records a session we created. With an Idempotency-Key, a concurrent request that recorded its own
     * session first wins: this returns that one (`inserted: false`), and the caller replays it. A key older
     * than the window is released first, so it may be used again.
     */
    async insertPending(input: {
      accountId: string;
      sessionId: string;
      amountMicros: number;
      checkoutUrl: string;
      idempotencyKey: string | null;
      requestHash: string;
    }): Promise<{ topup: CreditTopup; inserted: boolean }> {
      return pool.transaction(async (tx) => {
        if (input.idempotencyKey !== null) {
          await tx.query(sql.typeAlias('void')`
            UPDATE credit_topups SET idempotency_key = NULL
            WHERE account_id = ${input.accountId} AND idempotency_key = ${input.idempotencyKey}
              AND created_at <= now() - make_interval(hours => ${CREDIT_IDEMPOTENCY_WINDOW_HOURS})`);
        }
        const inserted = await tx.maybeOne(sql.type(CreditTopupRow)`
          INSERT INTO credit_topups (id, account_id, session_id, amount_micros, checkout_url, idempotency_key,
            request_hash)
          VALUES (${`topup_${randomToken(128)}`}, ${input.accountId}, ${input.sessionId}, ${input.amountMicros},
            ${input.checkoutUrl},
                  ${input.idempotencyKey}, ${input.requestHash})
          ON CONFLICT (account_id, idempotency_key) DO NOTHING
          RETURNING ${COLUMNS}`);
        if (inserted) return { topup: inserted, inserted: true };
        const winner = await tx.one(sql.type(CreditTopupRow)`
          SELECT ${COLUMNS} FROM credit_topups WHERE account_id = ${input.accountId}
            AND idempotency_key = ${input.idempotencyKey}`);
        return { topup: winner, inserted: false };
      });
    },

    /** A pending or credited top-up by Stripe's session id (operators' tools; not for client input). */
    async findBySessionId(sessionId: string): Promise<CreditTopup | null> {
      return pool.maybeOne(
        sql.type(CreditTopupRow)`SELECT ${COLUMNS} FROM credit_topups WHERE session_id = ${sessionId}`,
      );
    },

    /**
     * Credits a paid session exactly once: the amount we recorded, only when Stripe's paid amount and account
     * match it. The `credit_topup` entry (idempotency key = the session id), the top-up's status and
     * `billing.credit_added` are one transaction under the top-up's row lock, so any number of concurrent
     * deliveries of the same event make one entry.
     */
    async creditPaidSession(paid: {
      sessionId: string;
      accountId: string | null;
      amountTotalCents: number | null;
    }): Promise<CreditOutcome> {
      return pool.transaction(async (tx) => {
        const topup = await tx.maybeOne(sql.type(CreditTopupRow)`
          SELECT ${COLUMNS} FROM credit_topups WHERE session_id = ${paid.sessionId} FOR UPDATE`);
        if (!topup) return { credited: false, reason: 'unknown_session', topup: null };
        if (paid.accountId !== topup.account_id) return { credited: false, reason: 'account_mismatch', topup };
        if (paid.amountTotalCents === null || paid.amountTotalCents * 10_000 !== topup.amount_micros) {
          return { credited: false, reason: 'amount_mismatch', topup };
        }
        const { entry, created } = await ledger.postEntry(
          {
            accountId: topup.account_id,
            type: 'credit_topup',
            amountMicros: topup.amount_micros,
            description: `Credit top-up (Stripe Checkout ${topup.session_id})`,
            idempotencyKey: `stripe:${topup.session_id}`,
          },
          tx,
        );
        if (!created) return { credited: true, entry, firstTime: false, topup };
        const updated = await tx.one(sql.type(CreditTopupRow)`
          UPDATE credit_topups SET status = 'credited', credited_entry_id = ${entry.id}, credited_at = now()
          WHERE id = ${topup.id} RETURNING ${COLUMNS}`);
        await insertEvent(tx, {
          accountId: topup.account_id,
          type: 'billing.credit_added',
          data: {
            transaction_id: entry.id,
            amount: microsToDollars(entry.amount_micros),
            balance: microsToDollars(entry.balance_after_micros),
            session_id: topup.session_id,
          },
          dedupeKey: `billing.credit_added:${topup.session_id}`,
        });
        return { credited: true, entry, firstTime: true, topup: updated };
      });
    },
  };
}
export type CreditTopupQueries = ReturnType<typeof createCreditTopupQueries>;
