/** The paging query (`limit`, `cursor`) and page shape shared by the list endpoints (decisions.md: Lists). */
import { z, type ZodTypeAny } from 'zod';
import { decodePageCursor } from '../db/queries/paging';

export const listLimit = z.coerce.number().int().min(1).max(200).default(50).describe('page size, 1-200 (default 50)');

/** `limit` and `cursor` over (created_at, id) lists; a cursor this API did not issue is a 400. */
export const ListQuery = z
  .object({
    limit: listLimit,
    cursor: z
      .string()
      .refine(
        (c) => decodePageCursor(c) !== null,
        'is not a cursor from this list; pass next_cursor from the previous page',
      )
      .optional()
      .describe('next_cursor of the previous page'),
  })
  .strict();

/** `{data, has_more, next_cursor}` of the given record. */
export function pageOf<T extends ZodTypeAny>(record: T) {
  return z.object({
    data: z.array(record),
    has_more: z.boolean(),
    next_cursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
  });
}
