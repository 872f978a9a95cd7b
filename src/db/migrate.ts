/**
 * Forward-only migrations: plain numbered `.sql` files in `migrations/`, each applied once in its own
 * transaction and recorded in `schema_migrations`. An advisory lock lets several processes start at once.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from 'pg';

const MIGRATIONS_DIR = path.resolve(__dirname, 'migrations');
const LOCK_KEY = 724_113_901; // any constant shared by every migrator of this schema

export interface MigrationResult {
  applied: string[];
  alreadyApplied: number;
}

export async function listMigrations(dir = MIGRATIONS_DIR): Promise<{ version: number; name: string; file: string }[]> {
  const files = (await readdir(dir)).filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f)).sort();
  return files.map((file) => ({
    version: Number(file.slice(0, 3)),
    name: file.slice(4, -4),
    file: path.join(dir, file),
  }));
}

export async function migrate(databaseUrl: string, dir = MIGRATIONS_DIR): Promise<MigrationResult> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set(
      (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
    );
    const applied: string[] = [];
    for (const m of await listMigrations(dir)) {
      if (done.has(m.version)) continue;
      const text = await readFile(m.file, 'utf8');
      await client.query('BEGIN');
      try {
        await client.query(text);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${path.basename(m.file)} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(path.basename(m.file));
    }
    return { applied, alreadyApplied: done.size };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}
