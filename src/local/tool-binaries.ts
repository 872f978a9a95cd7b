/**
 * Finds (or builds once) the Go binaries the local default and the tests run: the Temporal CLI (its
 * `server start-dev` is the real Temporal dev server) and stripe-mock. Order: PATH, the explicit env var,
 * the cache dir, then `go install` into the cache dir. Nothing is downloaded except through the Go proxy.
 */
import { execFile } from 'node:child_process';
import { access, constants, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ToolSpec {
  binary: string;
  envVar: string;
  goPackage: string;
}

export const TEMPORAL_CLI: ToolSpec = {
  binary: 'temporal',
  envVar: 'TEMPORAL_CLI_PATH',
  // v1.5.1 is the newest tag `go install` accepts (later tags carry replace directives).
  goPackage: 'github.com/temporalio/cli/cmd/temporal@v1.5.1',
};

export const STRIPE_MOCK: ToolSpec = {
  binary: 'stripe-mock',
  envVar: 'STRIPE_MOCK_PATH',
  goPackage: 'github.com/stripe/stripe-mock@v0.203.0',
};

export function toolCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'gpu-orchestrator', 'bin');
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function onPath(binary: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && (await isExecutable(path.join(dir, binary)))) return path.join(dir, binary);
  }
  return undefined;
}

/**
 * Returns the path of the tool, building it with `go install` when it is nowhere to be found.
 * Returns undefined only when there is no Go toolchain either (callers may then fall back to a download).
 */
export async function findOrBuildTool(
  tool: ToolSpec,
  log: (msg: string) => void = () => undefined,
  opts: { progressEveryMs?: number } = {},
): Promise<string | undefined> {
  const explicit = process.env[tool.envVar];
  if (explicit) {
    if (await isExecutable(explicit)) return explicit;
    throw new Error(`${tool.envVar}=${explicit} is not an executable file`);
  }
  const fromPath = await onPath(tool.binary);
  if (fromPath) return fromPath;
  const cached = path.join(toolCacheDir(), tool.binary);
  if (await isExecutable(cached)) return cached;
  const go = await onPath('go');
  if (!go) return undefined;
  await mkdir(toolCacheDir(), { recursive: true });
  log(`building ${tool.binary} once with "go install ${tool.goPackage}" (takes a few minutes, then it is cached in ${toolCacheDir()})`);
  // The build is silent for minutes: say it is still going, so nobody takes it for a hang.
  const started = Date.now();
  const progress = setInterval(
    () => log(`still building ${tool.binary}: ${Math.round((Date.now() - started) / 1000)}s elapsed`),
    opts.progressEveryMs ?? 10_000,
  );
  try {
    await run(go, ['install', tool.goPackage], {
      env: { ...process.env, GOBIN: toolCacheDir() },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 30 * 60 * 1000,
    });
  } finally {
    clearInterval(progress);
  }
  if (!(await isExecutable(cached))) throw new Error(`go install ${tool.goPackage} did not produce ${cached}`);
  log(`built ${tool.binary} in ${Math.round((Date.now() - started) / 1000)}s`);
  return cached;
}
