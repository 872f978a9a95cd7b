/**
 * `npm run db:migrate`: applies pending migrations to DATABASE_URL, or with no variable set to the database of
 * the `npm start` in DATA_DIR (a second run is a no-op).
 */
import { loadConfigOrExit } from '../config';
import { migrate } from '../db/migrate';
import { resolveDatabaseUrl } from '../local/local-state';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const result = await migrate(await resolveDatabaseUrl(config));
  process.stdout.write(JSON.stringify({ applied: result.applied, previously_applied: result.alreadyApplied }) + '\n');
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
});
