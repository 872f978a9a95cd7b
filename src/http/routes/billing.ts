import { z } from 'zod';
import { decodeLedgerCursor, toTransactionRecord, TransactionRecord, TRANSACTION_TYPES, type LedgerQueries } from '../../db/queries/ledger';
import { microsToDollars } from '../../domain/money';
import type { ApiRouter } from '../route';
import { text } from '../text';

const Balance = z.object({ balance: z.number().describe('dollars'), currency: z.literal('usd') });

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
      .refine((c) => decodeLedgerCursor(c) !== null, 'is not a cursor from this list; pass next_cursor from the previous page')
      .optional(),
  })
  .strict();

export function registerBillingRoutes(api: ApiRouter, deps: { ledger: LedgerQueries }): void {
  api.add({
    method: 'get',
    path: '/v1/billing/balance',
    tag: 'Billing',
    summary: 'The account\'s prepaid balance',
    auth: true,
    responses: { 200: { description: 'The balance (0 for a new account)', schema: Balance } },
    handler: async ({ accountId }) => ({
      body: { balance: microsToDollars(await deps.ledger.getBalance(accountId)), currency: 'usd' },
    }),
  });

  api.add({
    method: 'get',
    path: '/v1/billing/transactions',
    tag: 'Billing',
    summary: 'Ledger transactions, newest first',
    description: 'Instance charges and credit top-ups. `type` filters; `limit` (default 50, max 200) and `cursor` page.',
    auth: true,
    query: ListTransactionsQuery,
    responses: { 200: { description: 'A page of transactions', schema: TransactionList } },
    handler: async ({ query, accountId }) => {
      const page = await deps.ledger.listEntries(accountId, { type: query.type, limit: query.limit, cursor: query.cursor });
      return { body: { data: page.entries.map(toTransactionRecord), has_more: page.has_more, next_cursor: page.next_cursor } };
    },
  });
}
