/** `npm run db:migrate`: applies pending migrations to DATABASE_URL (a second run is a no-op). */
import { loadConfigOrExit, requireSettings } from '../config';
import { migrate } from '../db/migrate';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  requireSettings(config, ['DATABASE_URL']);
  const result = await migrate(config.DATABASE_URL!);
  process.stdout.write(JSON.stringify({ applied: result.applied, previously_applied: result.alreadyApplied }) + '\n');
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
});
