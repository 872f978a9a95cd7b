/** Rendering: money, cursor-paged lists and the answer to a delete. */
import { type Page } from '../api';
import { table } from '../output';
import type { Context, OptionSpec } from '../spec';
import { flag, num, str } from './input';

/**
 * Dollars with two to four decimals, rounded half away from zero on the decimal the API sent (as the console
 * shows money): `toFixed` rounds the binary double, so 0.00015 would print as $0.0001. `v + 0` prints -0 as $0.00.
 */
const dollars = new Intl.NumberFormat('en-US', {
  minimumFractionDigits: 2,
  maximumFractionDigits: 4,
  useGrouping: false,
});
export const money = (v: unknown) => (typeof v === 'number' ? `$${dollars.format(v + 0)}` : '-');

export const PAGE_OPTIONS: Record<string, OptionSpec> = {
  limit: { type: 'string', value: '<n>', description: 'items per page, 1-200 (the API’s default is 50)' },
  cursor: { type: 'string', value: '<cursor>', description: 'the next_cursor a previous page named' },
  all: { type: 'boolean', description: 'every page, one after another' },
};

export type Row = Record<string, unknown>;
type Paged = Page<Row> & { has_more?: boolean; next_cursor?: string | null };

/** One page (or `--all` pages) of a cursor-paged list, as a table or as the API's JSON. */
export async function printPaged(
  ctx: Context,
  fetchPage: (query: { limit?: number; cursor?: string }) => Promise<unknown>,
  columns: string[],
  row: (r: Row) => Row = (r) => r,
) {
  const limit = num(ctx, 'limit', { integer: true });
  if (flag(ctx, 'all')) {
    const data: Row[] = [];
    let cursor = str(ctx, 'cursor');
    for (;;) {
      const page = (await fetchPage({ limit, cursor })) as Paged;
      data.push(...page.data);
      if (!page.has_more || !page.next_cursor) break;
      cursor = page.next_cursor;
    }
    ctx.out.print({ data }, () => table(data.map(row), columns));
    return;
  }
  const page = (await fetchPage({ limit, cursor: str(ctx, 'cursor') })) as Paged;
  ctx.out.print(page, () => table(page.data.map(row), columns));
  if (page.has_more && page.next_cursor) ctx.out.progress(`more: --cursor ${page.next_cursor} (or --all)\n`);
}

export const deleted = (ctx: Context, what: string, answer: Row) =>
  ctx.out.print(answer, () => `deleted ${what} ${String(answer.id)}\n`);
