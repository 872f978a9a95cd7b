/** The `webhook_endpoints` table: an account's endpoints. Every query filters by account_id. */
import { z } from 'zod';
import { newId } from '../../domain/ids';
import type { Pool } from '../pool';
import { sql } from '../sql';

export const EndpointRow = z.object({
  id: z.string(),
  account_id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  secret: z.string(),
  active: z.boolean(),
  failing_since: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type EndpointRow = z.infer<typeof EndpointRow>;
const ENDPOINT_COLUMNS = sql.fragment`id, account_id, url, events, secret, active, failing_since, created_at, updated_at`;

export function createWebhookEndpointQueries(pool: Pool) {
  return {
    async insertEndpoint(accountId: string, input: { url: string; events: string[]; secret: string }): Promise<EndpointRow> {
      return pool.one(sql.type(EndpointRow)`
        INSERT INTO webhook_endpoints (id, account_id, url, events, secret)
        VALUES (${newId('wh')}, ${accountId}, ${input.url}, ${sql.array(input.events, 'text')}, ${input.secret})
        RETURNING ${ENDPOINT_COLUMNS}`);
    },

    async listEndpoints(accountId: string): Promise<readonly EndpointRow[]> {
      return pool.any(sql.type(EndpointRow)`
        SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = ${accountId} ORDER BY created_at DESC, id DESC`);
    },

    async findEndpoint(accountId: string, id: string): Promise<EndpointRow | null> {
      return pool.maybeOne(sql.type(EndpointRow)`
        SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = ${accountId} AND id = ${id}`);
    },

    /** Applies the given fields; turning an endpoint back on clears its failure streak. Null when not found. */
    async updateEndpoint(
      accountId: string,
      id: string,
      patch: { url?: string; events?: string[]; secret?: string; active?: boolean },
    ): Promise<EndpointRow | null> {
      return pool.maybeOne(sql.type(EndpointRow)`
        UPDATE webhook_endpoints SET
          url = coalesce(${patch.url ?? null}, url),
          events = coalesce(${patch.events ? sql.array(patch.events, 'text') : null}::text[], events),
          secret = coalesce(${patch.secret ?? null}, secret),
          active = coalesce(${patch.active ?? null}::boolean, active),
          failing_since = CASE WHEN ${patch.active ?? null}::boolean THEN NULL ELSE failing_since END,
          updated_at = now()
        WHERE account_id = ${accountId} AND id = ${id}
        RETURNING ${ENDPOINT_COLUMNS}`);
    },

    async deleteEndpoint(accountId: string, id: string): Promise<boolean> {
      const row = await pool.maybeOne(sql.type(z.object({ id: z.string() }))`
        DELETE FROM webhook_endpoints WHERE account_id = ${accountId} AND id = ${id} RETURNING id`);
      return row !== null;
    },
  };
}
export type WebhookEndpointQueries = ReturnType<typeof createWebhookEndpointQueries>;
