import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { NODE_FLAGS } from '../../src/local/node-flags';

export const REPO_ROOT = path.resolve(__dirname, '../..');
const TS_REQUIRE = path.join(__dirname, 'ts-require.js');

/**
 * Runs a TypeScript entry point with the Node flags the npm scripts and the Docker image give it (`NODE_FLAGS`),
 * its TypeScript compiled as tsx compiles it, but once per change of a file rather than in every process
 * (./ts-require.js).
 */
export function runEntry(
  entry: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
  /** `detached`: its own process group, as a terminal runs it (send Ctrl-C with `process.kill(-pid, 'SIGINT')`). */
  opts: { detached?: boolean } = {},
): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(
    process.execPath,
    [...NODE_FLAGS, '--require', TS_REQUIRE, path.join(REPO_ROOT, entry), ...args],
    {
      cwd: REPO_ROOT,
      detached: opts.detached ?? false,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  // 'exit' can come before the last of the output is read: wait for the pipes to close too, at most 2 s (a
  // grandchild left running, e.g. under a killed `npm`, may hold them open).
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      void Promise.race([closed, new Promise((r) => setTimeout(r, 2000).unref())]).then(() => resolve(code));
    }),
  );
  return { child, output: () => out, exited };
}

/**
 * Polls `check` until it returns a value (not undefined) or the deadline passes. Without `intervalMs` the pause
 * between looks starts at 25 ms and grows by half each look up to 250 ms: a quick answer is seen at once, a long
 * wait looks a few times a second.
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
  intervalMs?: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  let pause = intervalMs ?? 25;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, pause));
    if (intervalMs === undefined) pause = Math.min(250, Math.round(pause * 1.5));
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${(lastError as Error).message}` : ''}`,
  );
}

/** SIGKILL (no chance to finish anything) and wait for the exit; a process that already ended is left alone. */
export async function killProcess(p: ReturnType<typeof runEntry>): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGKILL');
  await p.exited;
}
