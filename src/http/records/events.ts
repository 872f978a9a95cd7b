/** The event record of the API (GET /v1/events, webhook deliveries), and the mapping from its row. */
import { z } from 'zod';
import type { EventRow } from '../../db/queries/webhooks';
import { isoTimestamp } from '../schemas';

export const EventRecord = z.object({
  id: z.string(),
  type: z.string(),
  created_at: isoTimestamp,
  data: z.record(z.unknown()),
});

export function toEventRecord(e: EventRow): z.infer<typeof EventRecord> {
  return { id: e.id, type: e.type, created_at: e.created_at, data: e.data };
}
