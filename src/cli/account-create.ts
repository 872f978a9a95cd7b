/**
 * `npm run account:create -- --name <name> [--credit <dollars>]`: prints `{"account_id","api_key"}`; the key is
 * shown only here. `--credit` grants a starting balance, recorded as a `credit_grant` transaction.
 * Works on DATABASE_URL, or with no variable set on the database of the `npm start` in DATA_DIR (local.json).
 */
import { parseArgs } from 'node:util';
import { loadConfigOrExit } from '../config';
import { createDatabasePool } from '../db/pool';
import { createAccountQueries } from '../db/queries/accounts';
import { dollarsToMicros } from '../domain/money';
import { resolveDatabaseUrl } from '../local/local-state';

const USAGE =
  'usage: npm run account:create -- --name <name> [--credit <dollars>]   ' +
  '(name: 1 to 100 characters; credit: 0.01 to 1000000, at most two decimals)\n';

/** Whole cents in (0, 1,000,000] dollars, or null. */
export function parseCreditDollars(text: string): number | null {
  if (!/^\d{1,7}(\.\d{1,2})?$/.test(text)) return null;
  const dollars = Number(text);
  return dollars > 0 && dollars <= 1_000_000 ? dollars : null;
}

async function main(): Promise<void> {
  let values: { name?: string; credit?: string };
  try {
    ({ values } = parseArgs({ options: { name: { type: 'string' }, credit: { type: 'string' } }, strict: true }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}`);
    process.exit(1);
  }
  const name = values.name?.trim();
  const credit = values.credit === undefined ? 0 : parseCreditDollars(values.credit);
  if (!name || name.length > 100 || credit === null) {
    process.stderr.write(USAGE);
    process.exit(1);
  }
  const config = loadConfigOrExit();
  const pool = await createDatabasePool(await resolveDatabaseUrl(config), { maximumPoolSize: 1 });
  try {
    const { account, apiKey } = await createAccountQueries(pool).insertAccountWithKey(name, {
      startingCreditMicros: dollarsToMicros(credit),
    });
    process.stdout.write(JSON.stringify({ account_id: account.id, api_key: apiKey }) + '\n');
  } finally {
    await pool.end();
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
});
