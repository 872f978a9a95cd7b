import { sql } from '../sql';
import { z } from 'zod';
import { newId } from '../../domain/ids';
import { generateServiceKey } from '../../domain/service-keys';
import type { Pool } from '../pool';
import { createLedgerQueries, STARTING_CREDIT_KEY } from './ledger';

const AccountRow = z.object({ id: z.string(), name: z.string(), created_at: z.string() });
export type Account = z.infer<typeof AccountRow>;

export function createAccountQueries(pool: Pool) {
  const ledger = createLedgerQueries(pool);
  return {
    /**
     * Creates an account and its first service key; the key text is returned once and never stored.
     * `startingCreditMicros` > 0 grants a starting balance as a `credit_grant` entry, in the same transaction.
     */
    async insertAccountWithKey(
      name: string,
      options: { startingCreditMicros?: number } = {},
    ): Promise<{ account: Account; apiKey: string }> {
      const key = generateServiceKey();
      return pool.transaction(async (tx) => {
        const account = await tx.one(sql.type(AccountRow)`
          INSERT INTO accounts (id, name) VALUES (${newId('acct')}, ${name}) RETURNING id, name, created_at`);
        await tx.query(sql.typeAlias('void')`
          INSERT INTO service_keys (id, account_id, key_hash, key_prefix)
          VALUES (${newId('key')}, ${account.id}, ${key.hash}, ${key.displayPrefix})`);
        if (options.startingCreditMicros) {
          await ledger.postEntry(
            {
              accountId: account.id,
              type: 'credit_grant',
              amountMicros: options.startingCreditMicros,
              description: 'Starting credit',
              idempotencyKey: STARTING_CREDIT_KEY,
            },
            tx,
          );
        }
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
