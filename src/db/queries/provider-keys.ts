import { z } from 'zod';
import type { SealedSecret } from '../../domain/key-vault';
import { type ProviderId, PROVIDERS } from '../../providers/types';
import type { Pool } from '../pool';
import { sql } from '../sql';

export const PROVIDER_KEY_STATUSES = ['unverified', 'valid', 'invalid'] as const;

const ProviderKeyRow = z.object({
  provider: z.enum(PROVIDERS),
  display_label: z.string(),
  key_hint: z.string(),
  status: z.enum(PROVIDER_KEY_STATUSES),
  last_verified_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ProviderKeyRecord = z.infer<typeof ProviderKeyRow>;

const SealedRow = z.object({
  ciphertext: z.instanceof(Buffer),
  iv: z.instanceof(Buffer),
  auth_tag: z.instanceof(Buffer),
  encryption_key_id: z.string(),
});

const PUBLIC_COLUMNS = sql.fragment`provider, display_label, key_hint, status, last_verified_at, created_at,
  updated_at`;

export function createProviderKeyQueries(pool: Pool) {
  return {
    /** Inserts or replaces the account's key for a provider; a replaced key is unverified again. */
    async upsertProviderKey(
      accountId: string,
      input: { provider: ProviderId; displayLabel: string; keyHint: string; sealed: SealedSecret },
    ): Promise<{ record: ProviderKeyRecord; created: boolean }> {
      const row = await pool.one(sql.type(ProviderKeyRow.extend({ created: z.boolean() }))`
        INSERT INTO provider_keys (account_id, provider, display_label, key_hint, ciphertext, iv, auth_tag,
          encryption_key_id)
        VALUES (${accountId}, ${input.provider}, ${input.displayLabel}, ${input.keyHint},
                ${sql.binary(input.sealed.ciphertext)}, ${sql.binary(input.sealed.iv)},
                  ${sql.binary(input.sealed.authTag)},
                ${input.sealed.keyId})
        ON CONFLICT (account_id, provider) DO UPDATE SET
          display_label = EXCLUDED.display_label, key_hint = EXCLUDED.key_hint, ciphertext = EXCLUDED.ciphertext,
          iv = EXCLUDED.iv, auth_tag = EXCLUDED.auth_tag, encryption_key_id = EXCLUDED.encryption_key_id,
          status = 'unverified', last_verified_at = NULL, updated_at = now()
        RETURNING ${PUBLIC_COLUMNS}, (xmax = 0) AS created`);
      const { created, ...record } = row;
      return { record, created };
    },

    async listProviderKeys(accountId: string): Promise<readonly ProviderKeyRecord[]> {
      return pool.any(sql.type(ProviderKeyRow)`
        SELECT ${PUBLIC_COLUMNS} FROM provider_keys WHERE account_id = ${accountId} ORDER BY created_at DESC,
          provider`);
    },

    async findSealedKey(accountId: string, provider: ProviderId): Promise<SealedSecret | null> {
      const row = await pool.maybeOne(sql.type(SealedRow)`
        SELECT ciphertext, iv, auth_tag, encryption_key_id FROM provider_keys
        WHERE account_id = ${accountId} AND provider = ${provider}`);
      return row && { ciphertext: row.ciphertext, iv: row.iv, authTag: row.auth_tag, keyId: row.encryption_key_id };
    },

    async recordVerification(
      accountId: string,
      provider: ProviderId,
      valid: boolean,
      checkedAt: Date,
    ): Promise<ProviderKeyRecord | null> {
      return pool.maybeOne(sql.type(ProviderKeyRow)`
        UPDATE provider_keys SET status = ${valid ? 'valid' : 'invalid'}, last_verified_at = ${checkedAt.toISOString()}
        WHERE account_id = ${accountId} AND provider = ${provider}
        RETURNING ${PUBLIC_COLUMNS}`);
    },

    async deleteProviderKey(accountId: string, provider: ProviderId): Promise<boolean> {
      const row = await pool.maybeOne(sql.type(z.object({ provider: z.string() }))`
        DELETE FROM provider_keys WHERE account_id = ${accountId} AND provider = ${provider} RETURNING provider`);
      return row !== null;
    },
  };
}
export type ProviderKeyQueries = ReturnType<typeof createProviderKeyQueries>;
