/** Billing: the balance, spend, the ledger and adding credit. */
import { call, type GpuoClient } from '../api';
import { record, UsageError } from '../output';
import type { CommandSpec } from '../spec';
import { str } from './input';
import { money, PAGE_OPTIONS, printPaged } from './render';

/** This UTC month's instance charges (walked page by page) and the balance. */
export async function spendSummary(sdk: GpuoClient) {
  const now = new Date();
  const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  let total = 0;
  let charges = 0;
  for await (const t of sdk.transactions({ type: 'instance_charge', limit: 200 })) {
    if (Date.parse(t.created_at as string) < monthStart) break; // newest first
    total += -(t.amount as number);
    charges++;
  }
  const { balance } = await sdk.balance();
  return { month_to_date: Math.round(total * 1e6) / 1e6, charges, balance };
}

export const BILLING_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['balance'],
    summary: 'the prepaid balance',
    examples: ['balance'],
    async run(ctx) {
      const balance = await (await ctx.api()).balance();
      ctx.out.print(balance, () => `${money(balance.balance)} ${balance.currency}\n`);
    },
  },
  {
    path: ['spend'],
    summary: 'this UTC month’s instance charges and the balance',
    examples: ['spend'],
    async run(ctx) {
      const summary = await spendSummary(await ctx.api());
      ctx.out.print(
        summary,
        () =>
          `spent this month (UTC): ${money(summary.month_to_date)} in ${summary.charges} charges; balance ` +
          `${money(summary.balance)}\n`,
      );
    },
  },
  {
    path: ['billing', 'summary'],
    summary: 'balance, uncharged usage, burn rate, runway, month to date and forecast',
    examples: ['billing summary'],
    async run(ctx) {
      const s = await call((await ctx.api()).raw.GET('/v1/billing/summary'));
      ctx.out.print(s, () => record(s));
    },
  },
  {
    path: ['billing', 'transactions'],
    summary: 'ledger transactions, newest first',
    options: {
      type: {
        type: 'string',
        choices: [
          'instance_charge',
          'instance_storage_charge',
          'credit_topup',
          'credit_grant',
          'credit_refund',
          'credit_dispute',
        ],
        description: 'only this type',
      },
      ...PAGE_OPTIONS,
    },
    examples: ['billing transactions --type credit_grant --all'],
    async run(ctx) {
      const sdk = await ctx.api();
      const type = str(ctx, 'type');
      await printPaged(
        ctx,
        (query) =>
          call(
            sdk.raw.GET('/v1/billing/transactions', {
              params: { query: { ...query, ...(type ? { type: type as never } : {}) } },
            }),
          ),
        ['id', 'type', 'amount', 'balance_after', 'description', 'created_at'],
        (t) => ({ ...t, amount: money(t.amount), balance_after: money(t.balance_after) }),
      );
    },
  },
  {
    path: ['billing', 'credit'],
    summary: 'add credit: prints the Stripe Checkout page to pay on',
    args: [{ name: 'dollars', required: true }],
    examples: ['billing credit 25'],
    async run(ctx) {
      const amount = Number(ctx.args.dollars);
      if (!Number.isFinite(amount))
        throw new UsageError(`<dollars> must be a number (got ${JSON.stringify(ctx.args.dollars)})`);
      const session = await call((await ctx.api()).raw.POST('/v1/billing/credit', { body: { amount } }));
      ctx.out.print(
        session,
        () =>
          `pay at ${session.checkout_url}\n(session ${session.session_id}; the balance grows once Stripe confirms ` +
          `it)\n`,
      );
    },
  },
];
