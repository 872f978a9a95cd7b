/** The demo account `npm start` keeps in local.json, ready to launch. */
import type { Config } from '../config';
import { createDatabasePool } from '../db/pool';
import { createAccountQueries } from '../db/queries/accounts';
import { createLedgerQueries, STARTING_CREDIT_KEY } from '../db/queries/ledger';
import { createProviderKeyQueries } from '../db/queries/provider-keys';
import { KeyVault, keyHint } from '../domain/key-vault';
import { PROVIDER_NAMES, PROVIDERS } from '../providers/types';
import type { LocalSimulators } from './local-services';
import type { LocalState } from './local-state';

/** The local demo account's starting credit (decisions.md): launches work out of the box. */
const DEMO_STARTING_CREDIT_MICROS = 100_000_000;

/**
 * The demo account of local.json, made on first start (or when the database lost it), with its starting
 * credit and, with the simulators, a key connected for every simulated provider.
 */
export async function ensureDemoAccount(
  databaseUrl: string,
  opts: {
    config: Config;
    previous: LocalState | undefined;
    simulated: LocalSimulators;
    masterKey: string;
  },
): Promise<{ account_id: string; api_key: string }> {
  const { config, previous, simulated, masterKey } = opts;
  const pool = await createDatabasePool(databaseUrl, { maximumPoolSize: 2 });
  const accounts = createAccountQueries(pool);
  let account_id = previous?.account_id;
  let api_key = previous?.api_key;
  if (!account_id || !api_key || !(await accounts.findAccountById(account_id))) {
    const created = await accounts.insertAccountWithKey('Demo account', {
      startingCreditMicros: DEMO_STARTING_CREDIT_MICROS,
    });
    account_id = created.account.id;
    api_key = created.apiKey;
  } else {
    // A demo account made before starting credit existed gets it once (same key: never twice).
    await createLedgerQueries(pool).postEntry({
      accountId: account_id,
      type: 'credit_grant',
      amountMicros: DEMO_STARTING_CREDIT_MICROS,
      description: 'Starting credit',
      idempotencyKey: STARTING_CREDIT_KEY,
    });
  }
  if (simulated) {
    // The demo account is connected to every simulated provider, so it can launch right away.
    const vault = KeyVault.fromConfig(
      config.MASTER_ENCRYPTION_KEY_ID,
      masterKey,
      config.MASTER_ENCRYPTION_PREVIOUS_KEYS,
    );
    const providerKeys = createProviderKeyQueries(pool);
    const connected = new Set((await providerKeys.listProviderKeys(account_id)).map((k) => k.provider));
    for (const provider of PROVIDERS) {
      if (connected.has(provider)) continue;
      const key = simulated.sandboxKeys[provider];
      await providerKeys.upsertProviderKey(account_id, {
        provider,
        displayLabel: `${PROVIDER_NAMES[provider]} (local simulator)`,
        keyHint: keyHint(key),
        sealed: vault.seal(key, account_id),
      });
    }
  }
  await pool.end();
  return { account_id, api_key };
}
