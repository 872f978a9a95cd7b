/** Keyset pagination shared by the account-facing lists: opaque cursors over (created_at, id), newest first. */
import { sql } from '../sql';

/** Opaque page cursor over (created_at, id), newest first. */
export function encodeCursor(createdAt: string, id: string): string {
  return Buffer.from(`${createdAt}|${id}`).toString('base64url');
}
export function decodePageCursor(cursor: string): { createdAt: string; id: string } | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\|([a-z]+_[A-Za-z0-9]{1,64})$/.exec(
    Buffer.from(cursor, 'base64url').toString('utf8'),
  );
  if (!m || Number.isNaN(Date.parse(m[1]!)) || encodeCursor(m[1]!, m[2]!) !== cursor) return null;
  return { createdAt: m[1]!, id: m[2]! };
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export function page<T extends { id: string; created_at: string }>(rows: readonly T[], limit: number): Page<T> {
  const data = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  const last = data[data.length - 1];
  return { data, has_more: hasMore, next_cursor: hasMore && last ? encodeCursor(last.created_at, last.id) : null };
}

export function afterCursor(cursor: string | undefined) {
  if (cursor === undefined) return sql.fragment`true`;
  const c = decodePageCursor(cursor);
  if (!c) throw new RangeError('malformed cursor');
  return sql.fragment`(created_at, id) < (${c.createdAt}::timestamptz, ${c.id})`;
}

/** What a list request asks for: a page size and, after the first page, the previous page's `next_cursor`. */
export interface PageRequest {
  limit: number;
  cursor?: string;
}

/**
 * `WHERE` condition for the rows after the cursor (all rows without one), comparing `created_at` truncated to
 * the millisecond: the precision the cursor (and every record) carries, so a row whose microseconds differ
 * from the cursor's never falls between two pages. Use with {@link newestFirst}.
 */
export function afterListCursor(cursor: string | undefined) {
  if (cursor === undefined) return sql.fragment`true`;
  const c = decodePageCursor(cursor);
  if (!c) throw new RangeError('malformed list cursor');
  return sql.fragment`(date_trunc('milliseconds', created_at), id) < (${c.createdAt}::timestamptz, ${c.id})`;
}

/** The `ORDER BY` matching {@link afterListCursor}. */
export const newestFirst = sql.fragment`date_trunc('milliseconds', created_at) DESC, id DESC`;
