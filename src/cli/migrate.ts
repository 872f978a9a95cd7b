/**
 * `npm run db:migrate`: applies pending migrations to DATABASE_URL, or with no variable set to the database of
 * the `npm start` in DATA_DIR (a second run is a no-op); with MASTER_ENCRYPTION_KEY set, also seals webhook
 * secrets and schedules' startup scripts still in plaintext or under a rotated-out key.
 */
import { loadConfigOrExit } from '../config';
import { migrate } from '../db/migrate';
import { createDatabasePool } from '../db/pool';
import { sealWebhookSecrets } from '../db/queries/webhook-secrets';
import { sealStartupScripts } from '../db/queries/schedule-scripts';
import { KeyVault } from '../domain/key-vault';
import { resolveDatabaseUrl } from '../local/local-state';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const databaseUrl = await resolveDatabaseUrl(config);
  const result = await migrate(databaseUrl);
  let sealed: number | undefined;
  let scripts: number | undefined;
  if (config.MASTER_ENCRYPTION_KEY) {
    const pool = await createDatabasePool(databaseUrl, { maximumPoolSize: 1 });
    const vault = KeyVault.fromConfig(
      config.MASTER_ENCRYPTION_KEY_ID,
      config.MASTER_ENCRYPTION_KEY,
      config.MASTER_ENCRYPTION_PREVIOUS_KEYS,
    );
    try {
      sealed = await sealWebhookSecrets(pool, vault);
      scripts = await sealStartupScripts(pool, vault);
    } finally {
      await pool.end();
    }
  }
  process.stdout.write(
    JSON.stringify({
      applied: result.applied,
      previously_applied: result.alreadyApplied,
      webhook_secrets_sealed: sealed ?? null,
      startup_scripts_sealed: scripts ?? null,
    }) + '\n',
  );
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
});
