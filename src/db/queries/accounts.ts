import { sql } from '../sql';
import { z } from 'zod';
import { newId } from '../../domain/ids';
import { generateServiceKey } from '../../domain/service-keys';
import type { Pool } from '../pool';

const AccountRow = z.object({ id: z.string(), name: z.string(), created_at: z.string() });
export type Account = z.infer<typeof AccountRow>;

export function createAccountQueries(pool: Pool) {
  return {
    /** Creates an account and its first service key; the key text is returned once and never stored. */
    async insertAccountWithKey(name: string): Promise<{ account: Account; apiKey: string }> {
      const key = generateServiceKey();
      return pool.transaction(async (tx) => {
        const account = await tx.one(sql.type(AccountRow)`
          INSERT INTO accounts (id, name) VALUES (${newId('acct')}, ${name}) RETURNING id, name, created_at`);
        await tx.query(sql.typeAlias('void')`
          INSERT INTO service_keys (id, account_id, key_hash, key_prefix)
          VALUES (${newId('key')}, ${account.id}, ${key.hash}, ${key.displayPrefix})`);
        return { account, apiKey: key.apiKey };
      });
    },

    async findAccountIdByKeyHash(hash: string): Promise<string | null> {
      return pool.maybeOneFirst(sql.type(z.object({ account_id: z.string() }))`
        SELECT account_id FROM service_keys WHERE key_hash = ${hash} AND revoked_at IS NULL`);
    },

    async findAccountById(id: string): Promise<Account | null> {
      return pool.maybeOne(sql.type(AccountRow)`SELECT id, name, created_at FROM accounts WHERE id = ${id}`);
    },
  };
}
export type AccountQueries = ReturnType<typeof createAccountQueries>;
