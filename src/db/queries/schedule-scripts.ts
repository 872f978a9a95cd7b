/**
 * The data migration of schedules' startup scripts (migration 042): every `schedules.startup_script` not sealed
 * with the vault's current key is sealed with it (src/domain/startup-script.ts), in batches, each row under its
 * own lock: the scripts written in plaintext before sealing and, after a master-key rotation, those sealed with
 * an older key. Idempotent; safe to run from several processes at once. Run by the API and the worker at
 * start-up and by `npm run db:migrate` when a master key is set.
 */
import { z } from 'zod';
import type { KeyVault } from '../../domain/key-vault';
import { openStartupScript, sealStartupScript } from '../../domain/startup-script';
import type { Pool } from '../pool';
import { sql } from '../sql';

const BATCH = 500;

/** Seals (or re-seals under the current key) every startup script that needs it; returns how many. */
export async function sealStartupScripts(pool: Pool, vault: KeyVault): Promise<number> {
  const current = `sealed:v1:${vault.keyId}:%`;
  let total = 0;
  for (;;) {
    const done = await pool.transaction(async (tx) => {
      const rows = await tx.any(sql.type(z.object({ id: z.string(), account_id: z.string(), script: z.string() }))`
        SELECT id, account_id, startup_script AS script FROM schedules
        WHERE startup_script IS NOT NULL AND startup_script NOT LIKE ${current}
        ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`);
      for (const row of rows) {
        const sealed = sealStartupScript(vault, row.account_id, openStartupScript(vault, row.account_id, row.script));
        await tx.query(sql.typeAlias('void')`UPDATE schedules SET startup_script = ${sealed} WHERE id = ${row.id}`);
      }
      return rows.length;
    });
    total += done;
    if (done < BATCH) return total;
  }
}
