/**
 * The data migration of webhook signing secrets: every `webhook_endpoints.secret` not sealed with
 * the vault's current key is sealed with it, in batches, each row under its own lock. That covers the rows
 * written in plaintext before sealing existed and, after a master-key rotation (MASTER_ENCRYPTION_KEY_ID
 * changed, the old key in _PREVIOUS_KEYS), the rows sealed with an older key. The secret itself never
 * changes, so receivers verify exactly as before. Idempotent; safe to run from several processes at once.
 * Run by the worker at start-up (so also under the local default) and by `npm run db:migrate` when a master
 * key is set.
 */
import { z } from 'zod';
import type { KeyVault } from '../../domain/key-vault';
import { openText, sealText } from '../../domain/sealed-text';
import type { Pool } from '../pool';
import { sql } from '../sql';
import { WEBHOOK_SECRET_AAD } from './webhook-endpoints';

const BATCH = 500;

/** Seals (or re-seals under the current key) every webhook secret that needs it; returns how many. */
export async function sealWebhookSecrets(pool: Pool, vault: KeyVault): Promise<number> {
  const current = `sealed:v1:${vault.keyId}:%`;
  let total = 0;
  for (;;) {
    const done = await pool.transaction(async (tx) => {
      const rows = await tx.any(sql.type(z.object({ id: z.string(), secret: z.string() }))`
        SELECT id, secret FROM webhook_endpoints WHERE secret NOT LIKE ${current}
        ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`);
      for (const row of rows) {
        const sealed = sealText(vault, openText(vault, row.secret, WEBHOOK_SECRET_AAD), WEBHOOK_SECRET_AAD);
        await tx.query(sql.typeAlias('void')`UPDATE webhook_endpoints SET secret = ${sealed} WHERE id = ${row.id}`);
      }
      return rows.length;
    });
    total += done;
    if (done < BATCH) return total;
  }
}
