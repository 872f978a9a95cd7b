/**
 * The `events` table (the outbox webhooks deliver from, and the account's event list): the one event writer
 * every domain uses, typed by the one list of event kinds, and the account's listing beside it.
 */
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { EventKind } from '../../domain/event-kinds';
import { newId } from '../../domain/ids';
import type { Pool } from '../pool';
import { sql } from '../sql';
import { afterCursor, page, type Page } from './paging';

/** The kind of an event written to the outbox (decisions.md, "Webhooks"). */
export type EventType = EventKind;

export const EventRow = z.object({
  id: z.string(),
  account_id: z.string(),
  type: z.string(),
  data: z.record(z.unknown()),
  created_at: z.string(),
});
export type EventRow = z.infer<typeof EventRow>;

/** Writes an event to the outbox; the dedupe key makes a retried step write it once. */
export async function insertEvent(
  conn: CommonQueryMethods,
  event: { accountId: string; type: EventKind; data: Record<string, unknown>; dedupeKey: string },
): Promise<void> {
  await conn.query(sql.typeAlias('void')`
    INSERT INTO events (id, account_id, type, data, dedupe_key)
    VALUES (${newId('evt')}, ${event.accountId}, ${event.type}, ${sql.jsonb(event.data as never)}, ${event.dedupeKey})
    ON CONFLICT (account_id, dedupe_key) DO NOTHING`);
}

export function createEventQueries(pool: Pool) {
  return {
    /** A `webhook.test` event for one endpoint, through the outbox like every other event. */
    async insertTestEvent(accountId: string, endpointId: string): Promise<EventRow> {
      const id = newId('evt');
      return pool.one(sql.type(EventRow)`
        INSERT INTO events (id, account_id, type, data, dedupe_key, endpoint_id)
        VALUES (${id}, ${accountId}, 'webhook.test',
                ${sql.jsonb({ webhook_id: endpointId, message: 'This is a test event sent from the API.' })},
                ${`webhook.test:${id}`}, ${endpointId})
        RETURNING id, account_id, type, data, created_at`);
    },

    async listEvents(
      accountId: string,
      options: { type?: string; limit: number; cursor?: string },
    ): Promise<Page<EventRow>> {
      const rows = await pool.any(sql.type(EventRow)`
        SELECT id, account_id, type, data, created_at FROM events
        WHERE account_id = ${accountId} AND ${options.type ? sql.fragment`type = ${options.type}` : sql.fragment`true`}
          AND ${afterCursor(options.cursor)}
        ORDER BY created_at DESC, id DESC LIMIT ${options.limit + 1}`);
      return page(rows, options.limit);
    },

    /** One instance's events (those naming its provider id), oldest first: the record's timeline. */
    async listForInstance(accountId: string, providerInstanceId: string): Promise<readonly EventRow[]> {
      return pool.any(sql.type(EventRow)`
        SELECT id, account_id, type, data, created_at FROM events
        WHERE account_id = ${accountId} AND data->>'instance_id' = ${providerInstanceId}
          AND type LIKE ANY (ARRAY['instance.%', 'spot.%'])
        ORDER BY created_at, id LIMIT 500`);
    },
  };
}
export type EventQueries = ReturnType<typeof createEventQueries>;
