/**
 * What `npm start` leaves in DATA_DIR/local.json, and how the server-side CLIs (`account:create`, `db:migrate`,
 * `billing:complete-checkout`) find the running service from it with no variable set.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config';

/** The database `npm start` creates in its embedded Postgres. */
export const LOCAL_DATABASE_NAME = 'gpu_orchestrator';

/** DATA_DIR/local.json as `npm start` writes it (fields of older starts may be missing). */
export interface LocalState {
  api_url: string;
  /** The web console (sign in with api_key). */
  console_url?: string;
  /** The database the API and worker use (embedded Postgres, or DATABASE_URL when that was set). */
  database_url?: string;
  temporal_ui_url: string | null;
  /** The API's operations listener: /metrics, /codec/decode and /codec/encode, /readyz (docs/security.md). */
  ops_url: string;
  /** Prometheus text of the worker (the API's is at ops_url + /metrics). */
  worker_metrics_url: string;
  account_id: string;
  api_key: string;
  /** Keys of the local provider simulators (present when they run), to connect to any account. */
  sandbox_provider_keys?: Record<'runpod' | 'vastai' | 'lambda', string>;
  /**
   * Signs webhook deliveries for `npm run billing:complete-checkout` (generated for stripe-mock, kept across
   * restarts).
   */
  stripe_webhook_secret?: string;
}

export function localStateFile(config: Pick<Config, 'DATA_DIR'>): string {
  return path.resolve(config.DATA_DIR, 'local.json');
}

/** The state of the last `npm start` in DATA_DIR, or undefined when there is none (or it does not parse). */
export async function readLocalState(config: Pick<Config, 'DATA_DIR'>): Promise<Partial<LocalState> | undefined> {
  try {
    return JSON.parse(await readFile(localStateFile(config), 'utf8')) as Partial<LocalState>;
  } catch {
    return undefined;
  }
}

/**
 * The database a server-side CLI works on: DATABASE_URL when set, else the one the last `npm start` in
 * DATA_DIR recorded, else the embedded Postgres `npm start` runs on LOCAL_POSTGRES_PORT.
 */
export async function resolveDatabaseUrl(
  config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR' | 'LOCAL_POSTGRES_PORT'>,
): Promise<string> {
  if (config.DATABASE_URL) return config.DATABASE_URL;
  const state = await readLocalState(config);
  return (
    state?.database_url ?? `postgres://postgres:postgres@127.0.0.1:${config.LOCAL_POSTGRES_PORT}/${LOCAL_DATABASE_NAME}`
  );
}
