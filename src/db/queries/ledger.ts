import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { newId } from '../../domain/ids';
import { microsToDollars } from '../../domain/money';
import type { Pool } from '../pool';
import { sql } from '../sql';
import { recordLedgerEntry } from '../../metrics';
import { readSpendFigures } from './admission';
import { insertEvent } from './events';

/**
 * `credit_grant` is starting credit (account:create --credit, the local demo account); `credit_refund` and
 * `credit_dispute` reverse a Stripe top-up (a refund; a dispute opened, or reinstated when won). Beyond the
 * spec's two.
 */
export const TRANSACTION_TYPES = [
  'instance_charge',
  'instance_storage_charge',
  'credit_topup',
  'credit_grant',
  'credit_refund',
  'credit_dispute',
] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

/** What an instance costs: its running time (`instance_charge`) and a stopped RunPod pod's storage. */
export const INSTANCE_CHARGE_TYPES = ['instance_charge', 'instance_storage_charge'] as const;
const isInstanceCharge = (type: TransactionType): boolean =>
  (INSTANCE_CHARGE_TYPES as readonly string[]).includes(type);

/** Idempotency key of an account's starting credit: granted at most once per account. */
export const STARTING_CREDIT_KEY = 'grant:starting-credit';

export const LedgerEntryRow = z.object({
  id: z.string(),
  seq: z.number(),
  account_id: z.string(),
  type: z.enum(TRANSACTION_TYPES),
  amount_micros: z.number(),
  balance_after_micros: z.number(),
  description: z.string(),
  instance_id: z.string().nullable(),
  idempotency_key: z.string(),
  created_at: z.string(),
});
export type LedgerEntry = z.infer<typeof LedgerEntryRow>;

export interface PostEntryInput {
  accountId: string;
  type: TransactionType;
  /** Micro-dollars: negative (or zero) for `instance_charge`, positive for `credit_topup` and `credit_grant`. */
  amountMicros: number;
  description: string;
  /** Required on `instance_charge` (the id users address the instance by), absent on credits. */
  instanceId?: string;
  /** Unique per account; the same key posted again returns the first entry and changes nothing. */
  idempotencyKey: string;
}

/** A page of entries, newest first; `next_cursor` is null on the last page. */
export interface LedgerPage {
  entries: LedgerEntry[];
  has_more: boolean;
  next_cursor: string | null;
}

/** The Transaction record of the API: dollars at the edge, `instance_id` only on instance charges. */
export const TransactionRecord = z.object({
  id: z.string(),
  type: z.enum(TRANSACTION_TYPES),
  amount: z
    .number()
    .describe(
      'dollars; negative for charges, refunds and opened disputes, positive for top-ups, grants and won disputes',
    ),
  balance_after: z.number().describe('the balance right after this transaction, dollars'),
  description: z.string(),
  instance_id: z
    .string()
    .optional()
    .describe('present on instance_charge and instance_storage_charge, absent on credits'),
  created_at: z.string().describe('ISO 8601 UTC timestamp'),
});
export type TransactionRecord = z.infer<typeof TransactionRecord>;

export function toTransactionRecord(entry: LedgerEntry): TransactionRecord {
  return {
    id: entry.id,
    type: entry.type,
    amount: microsToDollars(entry.amount_micros),
    balance_after: microsToDollars(entry.balance_after_micros),
    description: entry.description,
    ...(isInstanceCharge(entry.type) && entry.instance_id !== null ? { instance_id: entry.instance_id } : {}),
    created_at: entry.created_at,
  };
}

const CURSOR_PREFIX = 'seq:';

function encodeCursor(seq: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${seq}`).toString('base64url');
}

/** The entry sequence number a cursor points below, or null when the text is not a cursor we issued. */
export function decodeLedgerCursor(cursor: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(cursor)) return null;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^seq:([1-9]\d{0,15})$/.exec(text);
  if (!match) return null;
  const seq = Number(match[1]);
  // Only the canonical spelling is accepted, so one position has one cursor.
  return Number.isSafeInteger(seq) && encodeCursor(seq) === cursor ? seq : null;
}

const COLUMNS = sql.fragment`id, seq, account_id, type, amount_micros, balance_after_micros, description, instance_id,
  idempotency_key, created_at`;

function checkEntry(input: PostEntryInput): void {
  if (!Number.isSafeInteger(input.amountMicros))
    throw new RangeError(`amountMicros must be an integer: ${input.amountMicros}`);
  if (isInstanceCharge(input.type)) {
    if (input.amountMicros > 0) throw new RangeError(`an ${input.type} amount is negative (or zero)`);
    if (!input.instanceId) throw new RangeError(`an ${input.type} needs instanceId`);
  } else if (input.type === 'credit_refund' || input.type === 'credit_dispute') {
    if (input.type === 'credit_refund' ? input.amountMicros >= 0 : input.amountMicros === 0) {
      throw new RangeError(`a ${input.type} amount is ${input.type === 'credit_refund' ? 'negative' : 'not zero'}`);
    }
    if (input.instanceId !== undefined) throw new RangeError(`a ${input.type} has no instanceId`);
  } else {
    if (input.amountMicros <= 0) throw new RangeError(`a ${input.type} amount is positive`);
    if (input.instanceId !== undefined) throw new RangeError(`a ${input.type} has no instanceId`);
  }
  if (!input.idempotencyKey) throw new RangeError('idempotencyKey is required');
}

/**
 * The balance event an entry causes, written in the entry's own transaction (so exactly once, and never for an
 * entry that rolls back): `billing.balance_depleted` when the entry takes the balance from above zero to zero or
 * below and no depletion episode is open yet. Usually the spend workflow has opened the episode earlier, at the
 * moment the available balance (balance − uncharged usage) reached zero (`depletion.ts`); this is the fallback
 * for what it cannot foresee (a refund or dispute, an account it does not watch). A credit that lifts the
 * available balance above zero closes the episode. `billing.balance_low` is the spend workflow's alone.
 */
async function emitBalanceEvents(
  tx: CommonQueryMethods,
  entry: LedgerEntry,
  balanceBefore: number,
  depletionOpen: boolean,
): Promise<void> {
  const accountId = entry.account_id;
  // Charges, and reversals of credit (refunds, disputes), can take the balance down.
  if (isInstanceCharge(entry.type) || entry.amount_micros < 0) {
    if (!depletionOpen && balanceBefore > 0 && entry.balance_after_micros <= 0) {
      await tx.query(
        sql.typeAlias('void')`UPDATE account_balances SET depleted_at = now() WHERE account_id = ${accountId}`,
      );
      await insertEvent(tx, {
        accountId,
        type: 'billing.balance_depleted',
        data: { balance: microsToDollars(entry.balance_after_micros), transaction_id: entry.id },
        dedupeKey: `billing.balance_depleted:${entry.id}`,
      });
    }
  } else if (depletionOpen) {
    const spend = await readSpendFigures(tx, accountId);
    if (spend.balanceMicros - spend.unchargedMicros > 0) {
      await tx.query(
        sql.typeAlias('void')`UPDATE account_balances SET depleted_at = NULL WHERE account_id = ${accountId}`,
      );
    }
  }
}

/**
 * The billing ledger. Every statement filters by account. Writes to one account serialize on its
 * `account_balances` row lock, and the entry is inserted while that lock is held, so the balance chain is
 * exact under any concurrency and the entries always sum to the balance.
 */

export function createLedgerQueries(pool: Pool) {
  return {
    /**
     * Appends one entry and moves the balance by its amount, atomically. Pass `conn` (a transaction
     * connection) to make the entry part of the caller's transaction, e.g. together with an instance's
     * `metered_through`; it then commits or rolls back with the caller's work. A key already posted for the
     * account returns its first entry with `created: false` and changes nothing, whatever the other fields.
     */
    async postEntry(
      input: PostEntryInput,
      conn?: CommonQueryMethods,
    ): Promise<{ entry: LedgerEntry; created: boolean }> {
      checkEntry(input);
      const { accountId } = input;
      // On a transaction connection this is a savepoint inside the caller's transaction.
      return (conn ?? pool)
        .transaction(async (tx) => {
          await tx.query(sql.typeAlias('void')`
          INSERT INTO account_balances (account_id) VALUES (${accountId}) ON CONFLICT (account_id) DO NOTHING`);
          // Take the lock before looking for the key: a concurrent post of the same key has then either committed
          // (and this statement's fresh snapshot sees its entry) or not started its own check yet.
          await tx.query(sql.typeAlias('void')`
          SELECT FROM account_balances WHERE account_id = ${accountId} FOR UPDATE`);
          const existing = await tx.maybeOne(sql.type(LedgerEntryRow)`
          SELECT ${COLUMNS} FROM ledger_entries WHERE account_id = ${accountId}
            AND idempotency_key = ${input.idempotencyKey}`);
          if (existing) return { entry: existing, created: false };
          const moved = await tx.one(sql.type(z.object({ balance_micros: z.number(), depletion_open: z.boolean() }))`
          UPDATE account_balances SET balance_micros = balance_micros + ${input.amountMicros}, updated_at = now()
          WHERE account_id = ${accountId}
          RETURNING balance_micros, depleted_at IS NOT NULL AS depletion_open`);
          const balanceAfter = moved.balance_micros;
          const entry = await tx.one(sql.type(LedgerEntryRow)`
          INSERT INTO ledger_entries (id, account_id, type, amount_micros, balance_after_micros, description,
            instance_id, idempotency_key, created_at)
          VALUES (${newId('txn')}, ${accountId}, ${input.type}, ${input.amountMicros}, ${balanceAfter},
            ${input.description},
                  ${input.instanceId ?? null}, ${input.idempotencyKey}, clock_timestamp())
          RETURNING ${COLUMNS}`);
          await emitBalanceEvents(tx, entry, balanceAfter - input.amountMicros, moved.depletion_open);
          return { entry, created: true };
        })
        .then((result) => {
          if (result.created) recordLedgerEntry(result.entry.type, result.entry.amount_micros);
          return result;
        });
    },

    /** The account's balance in micro-dollars; 0 for an account that has no entries yet. */
    async getBalance(accountId: string): Promise<number> {
      const balance = await pool.maybeOneFirst(sql.type(z.object({ balance_micros: z.number() }))`
        SELECT balance_micros FROM account_balances WHERE account_id = ${accountId}`);
      return balance ?? 0;
    },

    /**
     * Entries newest first (by `seq`), optionally of one type. `cursor` is a `next_cursor` from an earlier
     * page; a cursor that does not decode throws RangeError (routes validate it first).
     */
    async listEntries(
      accountId: string,
      options: { type?: TransactionType; limit: number; cursor?: string },
    ): Promise<LedgerPage> {
      const before = options.cursor === undefined ? null : decodeLedgerCursor(options.cursor);
      if (options.cursor !== undefined && before === null) throw new RangeError('malformed ledger cursor');
      const rows = await pool.any(sql.type(LedgerEntryRow)`
        SELECT ${COLUMNS} FROM ledger_entries
        WHERE account_id = ${accountId}
          ${options.type ? sql.fragment`AND type = ${options.type}` : sql.fragment``}
          ${before !== null ? sql.fragment`AND seq < ${before}` : sql.fragment``}
        ORDER BY seq DESC
        LIMIT ${options.limit + 1}`);
      const entries = rows.slice(0, options.limit);
      const hasMore = rows.length > options.limit;
      return {
        entries,
        has_more: hasMore,
        next_cursor: hasMore ? encodeCursor(entries[entries.length - 1]!.seq) : null,
      };
    },
  };
}
export type LedgerQueries = ReturnType<typeof createLedgerQueries>;
