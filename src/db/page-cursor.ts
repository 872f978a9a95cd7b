/**
 * Keyset paging over (created_at, id), newest first, for the account lists without a sequence column (SSH
 * keys, schedules, webhook endpoints). The cursor is opaque to clients: base64url of "created_at|id" of the
 * last row of a page. Rows are ordered by created_at truncated to the millisecond, the precision the cursor
 * (and every record) carries, so a row never falls between two pages.
 */
import { sql } from './sql';

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface PageRequest {
  limit: number;
  cursor?: string;
}

function encode(createdAt: string, id: string): string {
  return Buffer.from(`${createdAt}|${id}`).toString('base64url');
}

/** The position a cursor points below, or null when the text is not a cursor this API issued. */
export function decodeListCursor(cursor: string): { createdAt: string; id: string } | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\|([a-z]+_[A-Za-z0-9]{1,64})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m || Number.isNaN(Date.parse(m[1]!)) || encode(m[1]!, m[2]!) !== cursor) return null;
  return { createdAt: m[1]!, id: m[2]! };
}

/** `WHERE` condition for the rows after the cursor (all rows without one). */
export function afterListCursor(cursor: string | undefined) {
  if (cursor === undefined) return sql.fragment`true`;
  const c = decodeListCursor(cursor);
  if (!c) throw new RangeError('malformed list cursor');
  return sql.fragment`(date_trunc('milliseconds', created_at), id) < (${c.createdAt}::timestamptz, ${c.id})`;
}

/** The `ORDER BY` matching {@link afterListCursor}. */
export const newestFirst = sql.fragment`date_trunc('milliseconds', created_at) DESC, id DESC`;

/** Cuts the `limit + 1` rows a query fetched into a page. */
export function toPage<T extends { id: string; created_at: string }>(rows: readonly T[], limit: number): Page<T> {
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  const hasMore = rows.length > limit;
  return { data, has_more: hasMore, next_cursor: hasMore && last ? encode(last.created_at, last.id) : null };
}
