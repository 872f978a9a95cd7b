/**
 * `npm run db:migrate`: applies pending migrations to DATABASE_URL (a second run is a no-op); with
 * MASTER_ENCRYPTION_KEY set, also seals webhook secrets still in plaintext or under a rotated-out key.
 */
import { loadConfigOrExit, requireSettings } from '../config';
import { migrate } from '../db/migrate';
import { createDatabasePool } from '../db/pool';
import { sealWebhookSecrets } from '../db/queries/webhook-secrets';
import { KeyVault } from '../domain/key-vault';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  requireSettings(config, ['DATABASE_URL']);
  const result = await migrate(config.DATABASE_URL!);
  let sealed: number | undefined;
  if (config.MASTER_ENCRYPTION_KEY) {
    const pool = await createDatabasePool(config.DATABASE_URL!, { maximumPoolSize: 1 });
    const vault = KeyVault.fromConfig(config.MASTER_ENCRYPTION_KEY_ID, config.MASTER_ENCRYPTION_KEY, config.MASTER_ENCRYPTION_PREVIOUS_KEYS);
    sealed = await sealWebhookSecrets(pool, vault).finally(() => pool.end());
  }
  process.stdout.write(JSON.stringify({ applied: result.applied, previously_applied: result.alreadyApplied, webhook_secrets_sealed: sealed ?? null }) + '\n');
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
});
