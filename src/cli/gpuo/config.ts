/**
 * Where `gpuo` keeps its login: `$GPUO_CONFIG_DIR` or `$XDG_CONFIG_HOME/gpuo` or `~/.config/gpuo`, file
 * `config.json`, mode 0600 (it holds an API key). `GPUO_API_URL` and `GPUO_API_KEY` override it.
 */
import { mkdir, readFile, writeFile, chmod } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface GpuoConfig {
  api_url: string;
  api_key: string;
}

export const DEFAULT_API_URL = 'http://127.0.0.1:3000';

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GPUO_CONFIG_DIR) return env.GPUO_CONFIG_DIR;
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'gpuo');
}

export function configFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(configDir(env), 'config.json');
}

export async function readConfig(env: NodeJS.ProcessEnv = process.env): Promise<Partial<GpuoConfig>> {
  let saved: Partial<GpuoConfig> = {};
  try {
    saved = JSON.parse(await readFile(configFile(env), 'utf8')) as Partial<GpuoConfig>;
  } catch {
    // Not logged in yet: the environment may still say where and with which key.
  }
  return {
    ...saved,
    ...(env.GPUO_API_URL ? { api_url: env.GPUO_API_URL } : {}),
    ...(env.GPUO_API_KEY ? { api_key: env.GPUO_API_KEY } : {}),
  };
}

export async function writeConfig(config: GpuoConfig, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const file = configFile(env);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
  await chmod(file, 0o600); // an existing file keeps its mode through writeFile
  return file;
}
