import { z } from 'zod';
import { decodePageCursor, type WebhookQueries } from '../../db/queries/webhooks';
import { EVENT_KINDS } from '../../domain/event-kinds';
import type { ApiRouter } from '../route';
import { EventRecord, toEventRecord } from '../records/events';

const EventsQuery = z
  .object({
    type: z.enum(EVENT_KINDS, { errorMap: () => ({ message: `must be one of ${EVENT_KINDS.join(', ')}` }) }).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: z
      .string()
      .refine(
        (c) => decodePageCursor(c) !== null,
        'is not a cursor from this list; pass next_cursor from the previous page',
      )
      .optional(),
  })
  .strict();

export function registerEventRoutes(api: ApiRouter, deps: { queries: WebhookQueries }): void {
  api.add({
    method: 'get',
    path: '/v1/events',
    tag: 'Webhooks',
    summary: "The account's events (what webhooks deliver), newest first",
    auth: true,
    query: EventsQuery,
    responses: {
      200: {
        description: 'A page of events',
        schema: z.object({ data: z.array(EventRecord), has_more: z.boolean(), next_cursor: z.string().nullable() }),
      },
    },
    handler: async ({ query, accountId }) => {
      const p = await deps.queries.listEvents(accountId, query);
      return { body: { data: p.data.map(toEventRecord), has_more: p.has_more, next_cursor: p.next_cursor } };
    },
  });
}
