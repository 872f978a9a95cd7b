/** The `webhook_endpoints` table: an account's endpoints. Every query filters by account_id. */
import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { newId } from '../../domain/ids';
import type { KeyVault } from '../../domain/key-vault';
import { sealText } from '../../domain/sealed-text';
import { afterListCursor, newestFirst, page as toPage, type Page, type PageRequest } from './paging';
import type { Pool } from '../pool';
import { sql } from '../sql';

export const EndpointRow = z.object({
  id: z.string(),
  account_id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  active: z.boolean(),
  failing_since: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type EndpointRow = z.infer<typeof EndpointRow>;
// No secret: endpoint rows travel to routes and lists; only delivery work carries the (opened) secret.
const ENDPOINT_COLUMNS = sql.fragment`id, account_id, url, events, active, failing_since, created_at, updated_at`;

/**
 * Associated data of every sealed webhook secret (sealed-text.ts): the `secret` column holds
 * `sealed:v1:…`, never the `whsec_` value; rows written before sealing existed are sealed by
 * sealWebhookSecrets (webhook-secrets.ts) and read as they are until then.
 */
export const WEBHOOK_SECRET_AAD = 'webhook-endpoint-secret';

export function createWebhookEndpointQueries(pool: Pool, vault: Pick<KeyVault, 'seal'>) {
  const seal = (secret: string) => sealText(vault, secret, WEBHOOK_SECRET_AAD);
  return {
    async insertEndpoint(
      accountId: string,
      input: { url: string; events: string[]; secret: string },
      conn: CommonQueryMethods = pool,
    ): Promise<EndpointRow> {
      return conn.one(sql.type(EndpointRow)`
        INSERT INTO webhook_endpoints (id, account_id, url, events, secret)
        VALUES (${newId('wh')}, ${accountId}, ${input.url}, ${sql.array(input.events, 'text')}, ${seal(input.secret)})
        RETURNING ${ENDPOINT_COLUMNS}`);
    },

    /** A page of the account's endpoints, newest first. */
    async listEndpoints(accountId: string, request: PageRequest): Promise<Page<EndpointRow>> {
      const rows = await pool.any(sql.type(EndpointRow)`
        SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = ${accountId}
          AND ${afterListCursor(request.cursor)}
        ORDER BY ${newestFirst} LIMIT ${request.limit + 1}`);
      return toPage(rows, request.limit);
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
      conn: CommonQueryMethods = pool,
    ): Promise<EndpointRow | null> {
      return conn.maybeOne(sql.type(EndpointRow)`
        UPDATE webhook_endpoints SET
          url = coalesce(${patch.url ?? null}, url),
          events = coalesce(${patch.events ? sql.array(patch.events, 'text') : null}::text[], events),
          secret = coalesce(${patch.secret === undefined ? null : seal(patch.secret)}, secret),
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
