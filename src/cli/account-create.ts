/** `npm run account:create -- --name <name>`: prints `{"account_id","api_key"}`; the key is shown only here. */
import { parseArgs } from 'node:util';
import { loadConfigOrExit, requireSettings } from '../config';
import { createDatabasePool } from '../db/pool';
import { createAccountQueries } from '../db/queries/accounts';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { name: { type: 'string' } }, strict: true });
  const name = values.name?.trim();
  if (!name || name.length > 100) {
    process.stderr.write('usage: npm run account:create -- --name <name>   (1 to 100 characters)\n');
    process.exit(1);
  }
  const config = loadConfigOrExit();
  requireSettings(config, ['DATABASE_URL']);
  const pool = await createDatabasePool(config.DATABASE_URL!, { maximumPoolSize: 1 });
  try {
    const { account, apiKey } = await createAccountQueries(pool).insertAccountWithKey(name);
    process.stdout.write(JSON.stringify({ account_id: account.id, api_key: apiKey }) + '\n');
  } finally {
    await pool.end();
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
});
