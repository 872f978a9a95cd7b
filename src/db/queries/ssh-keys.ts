import type { CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { newId } from '../../domain/ids';
import { afterListCursor, newestFirst, page as toPage, type Page, type PageRequest } from './paging';
import type { Pool } from '../pool';
import { sql } from '../sql';

export const SshKeyRow = z.object({
  id: z.string(),
  name: z.string(),
  public_key: z.string(),
  fingerprint: z.string(),
  key_type: z.string(),
  is_default: z.boolean(),
  created_at: z.string(),
});
export type SshKey = z.infer<typeof SshKeyRow>;

const COLUMNS = sql.fragment`id, name, public_key, fingerprint, key_type, is_default, created_at`;

/**
 * Every statement filters by account. Writes that touch the default take the account row's lock first, so
 * concurrent "first key" inserts and default switches serialize and exactly one default remains.
 */
export function createSshKeyQueries(pool: Pool) {
  return {
    async insertSshKey(
      accountId: string,
      key: { name: string; publicKey: string; fingerprint: string; keyType: string },
      /** Runs under the account lock before the insert (the per-account limit); throwing refuses the key. */
      admit?: (tx: CommonQueryMethods) => Promise<void>,
    ): Promise<SshKey> {
      return pool.transaction(async (tx) => {
        await tx.query(sql.typeAlias('void')`SELECT FROM accounts WHERE id = ${accountId} FOR UPDATE`);
        await admit?.(tx);
        return tx.one(sql.type(SshKeyRow)`
          INSERT INTO ssh_keys (id, account_id, name, public_key, fingerprint, key_type, is_default)
          VALUES (${newId('sshkey')}, ${accountId}, ${key.name}, ${key.publicKey}, ${key.fingerprint}, ${key.keyType},
                  NOT EXISTS (SELECT 1 FROM ssh_keys WHERE account_id = ${accountId} AND is_default))
          RETURNING ${COLUMNS}`);
      });
    },

    /** A page of the account's keys, newest first. */
    async listSshKeys(accountId: string, page: PageRequest): Promise<Page<SshKey>> {
      const rows = await pool.any(sql.type(SshKeyRow)`
        SELECT ${COLUMNS} FROM ssh_keys WHERE account_id = ${accountId} AND ${afterListCursor(page.cursor)}
        ORDER BY ${newestFirst} LIMIT ${page.limit + 1}`);
      return toPage(rows, page.limit);
    },

    async findDefaultSshKey(accountId: string): Promise<SshKey | null> {
      return pool.maybeOne(sql.type(SshKeyRow)`
        SELECT ${COLUMNS} FROM ssh_keys WHERE account_id = ${accountId} AND is_default`);
    },

    async findSshKeyByName(accountId: string, name: string): Promise<SshKey | null> {
      return pool.maybeOne(sql.type(SshKeyRow)`
        SELECT ${COLUMNS} FROM ssh_keys WHERE account_id = ${accountId} AND name = ${name}`);
    },

    /**
     * Deletes a key. When it was the default, the newest remaining key becomes the default, so an account
     * with keys always has exactly one. Returns false when the account has no such key.
     */
    async deleteSshKey(accountId: string, id: string): Promise<boolean> {
      return pool.transaction(async (tx) => {
        await tx.query(sql.typeAlias('void')`SELECT FROM accounts WHERE id = ${accountId} FOR UPDATE`);
        const deleted = await tx.maybeOne(sql.type(z.object({ is_default: z.boolean() }))`
          DELETE FROM ssh_keys WHERE account_id = ${accountId} AND id = ${id} RETURNING is_default`);
        if (!deleted) return false;
        if (deleted.is_default) {
          await tx.query(sql.typeAlias('void')`
            UPDATE ssh_keys SET is_default = true
            WHERE id = (SELECT id FROM ssh_keys WHERE account_id = ${accountId} ORDER BY created_at DESC, id DESC
              LIMIT 1)`);
        }
        return true;
      });
    },

    /** Makes one key the default, atomically. Returns null when the account has no such key. */
    async setDefaultSshKey(accountId: string, id: string): Promise<SshKey | null> {
      return pool.transaction(async (tx) => {
        await tx.query(sql.typeAlias('void')`SELECT FROM accounts WHERE id = ${accountId} FOR UPDATE`);
        const exists = await tx.exists(sql.typeAlias('void')`
          SELECT FROM ssh_keys WHERE account_id = ${accountId} AND id = ${id}`);
        if (!exists) return null;
        // Two statements: the partial unique index is checked row by row, so clear before setting.
        await tx.query(sql.typeAlias('void')`
          UPDATE ssh_keys SET is_default = false WHERE account_id = ${accountId} AND is_default AND id <> ${id}`);
        return tx.one(sql.type(SshKeyRow)`
          UPDATE ssh_keys SET is_default = true WHERE account_id = ${accountId} AND id = ${id} RETURNING ${COLUMNS}`);
      });
    },
  };
}
export type SshKeyQueries = ReturnType<typeof createSshKeyQueries>;
