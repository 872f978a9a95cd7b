import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

const SAMPLES: Record<string, string> = {
  fs: "import { readFile } from 'node:fs';\nexport const x = readFile;\n",
  pg: "import { Client } from 'pg';\nexport const x = Client;\n",
  slonik: "import { createPool } from 'slonik';\nexport const x = createPool;\n",
  stripe: "import Stripe from 'stripe';\nexport const x = Stripe;\n",
  http: "import http from 'http';\nexport const x = http;\n",
  floating: "import { sleep } from '@temporalio/workflow';\nexport async function wf(): Promise<void> { sleep(10); }\n",
  clean:
    "import { sleep } from '@temporalio/workflow';\nimport type { Activities } from '../../activities';\n" +
    'export type A = Activities;\nexport async function wf(): Promise<void> { await sleep(10); }\n',
};

let rulesByFile: Record<string, (string | null)[]>;

beforeAll(() => {
  // Real files under workflows/ so the project's workflow rules (with type information) apply; one ESLint run.
  const dir = path.join(root, 'workflows', `lint-probe-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    for (const [name, source] of Object.entries(SAMPLES)) writeFileSync(path.join(dir, `${name}.ts`), source);
    // The type information comes from the nearest tsconfig (projectService): one of the probe's own, with the
    // project's compiler options, builds a program of the probes and what they import instead of the whole
    // repository (half the CPU of this run); the lint configuration is the project's, unchanged.
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ extends: '../../tsconfig.json', include: ['*.ts'] }),
    );
    const run = spawnSync(
      process.execPath,
      [path.join(root, 'node_modules/eslint/bin/eslint.js'), '--format', 'json', dir],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    const results = JSON.parse(run.stdout) as { filePath: string; messages: { ruleId: string | null }[] }[];
    rulesByFile = Object.fromEntries(
      results.map((r) => [path.basename(r.filePath, '.ts'), r.messages.map((m) => m.ruleId)]),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

/**
 * The import guard at every depth of workflows/: each probe is linted as if it stood at `file`, through ESLint's
 * API in a child process (the config is an ES module, which jest's CommonJS runtime cannot import). The project's
 * configuration applies as it is, except that no type information is built for these paths (the type-aware
 * rule is off for them): the import rule needs none, and a program of the whole repository costs minutes.
 */
interface Probe {
  name: string;
  /** Where the probe is linted as if it stood. */
  file: string;
  source: string;
}
const LAUNCH = 'workflows/launch/probe.ts';
/** A probe importing `names` from `from` (`import type` with `typeOnly`) and exporting them again. */
const probe = (name: string, file: string, from: string, names: string, typeOnly = false): Probe => ({
  name,
  file,
  source: typeOnly
    ? `import type { ${names} } from '${from}';\nexport type X = [${names}];\n`
    : `import { ${names} } from '${from}';\nexport const x = [${names}];\n`,
});
/** A probe importing all of module `m` from workflows/launch/. */
const moduleProbe = (m: string): Probe => ({
  name: `${m} from workflows/launch/`,
  file: LAUNCH,
  source: `import * as io from '${m}';\nexport const x = io;\n`,
});
const AT_DEPTH: Probe[] = [
  probe('src/db/pool from workflows/launch/', LAUNCH, '../../src/db/pool', 'createDatabasePool'),
  probe('src/db/pool as a type from workflows/launch/', LAUNCH, '../../src/db/pool', 'Pool', true),
  probe(
    'src/db/pool from workflows/contracts/',
    'workflows/contracts/probe.ts',
    '../../src/db/pool',
    'createDatabasePool',
  ),
  probe('src/db/pool from workflows/', 'workflows/probe.ts', '../src/db/pool', 'createDatabasePool'),
  probe('the provider adapters from workflows/launch/', LAUNCH, '../../src/providers', 'createProviderAdapters'),
  probe(
    "a query module's values from workflows/launch/",
    LAUNCH,
    '../../src/db/queries/instances',
    'createInstanceQueries',
  ),
  probe("the activities' values from workflows/launch/", LAUNCH, '../../activities', 'createActivities'),
  probe('a subpath of pg', LAUNCH, 'pg/lib/client', 'Client'),
  ...['fs', 'http', 'https', 'net', 'crypto', 'child_process', 'node:fs', 'node:child_process'].map(moduleProbe),
  ...['pg', 'slonik', 'stripe', 'undici'].map(moduleProbe),
];
const ALLOWED_AT_DEPTH: Probe[] = [
  probe('pure domain code', LAUNCH, '../../src/domain/idle-stop', 'idleStopDue'),
  probe('the provider types, values too', LAUNCH, '../../src/providers/types', 'PROVIDERS'),
  probe('query rows as types', 'workflows/contracts/probe.ts', '../../src/db/queries/instances', 'InstanceRow', true),
  probe('activities as types', LAUNCH, '../../activities', 'Activities', true),
];

let rulesAtDepth: Map<string, (string | null)[]>;

beforeAll(() => {
  const script = `
    import { ESLint } from 'eslint';
    const probes = JSON.parse(process.argv[1]);
    const eslint = new ESLint({
      overrideConfig: [{
        files: ['workflows/**/*.ts'],
        languageOptions: { parserOptions: { projectService: false } },
        rules: { '@typescript-eslint/no-floating-promises': 'off' },
      }],
    });
    const out = [];
    for (const p of probes) {
      const [result] = await eslint.lintText(p.source, { filePath: p.file });
      out.push([p.name, result.messages.map((m) => m.ruleId)]);
    }
    process.stdout.write(JSON.stringify(out));`;
  const run = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', script, JSON.stringify([...AT_DEPTH, ...ALLOWED_AT_DEPTH])],
    { cwd: root, encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`eslint probe failed: ${run.stderr}`);
  rulesAtDepth = new Map(JSON.parse(run.stdout) as [string, (string | null)[]][]);
}, 60_000);

describe('the workflow import guard at every depth', () => {
  it.each(AT_DEPTH.map((p) => p.name))('rejects %s', (name) => {
    expect(rulesAtDepth.get(name)).toContain('no-restricted-imports');
  });

  it.each(ALLOWED_AT_DEPTH.map((p) => p.name))('accepts %s', (name) => {
    expect(rulesAtDepth.get(name)).toEqual([]);
  });
});

describe('workflow lint rules', () => {
  it.each(['fs', 'pg', 'slonik', 'stripe', 'http'])('rejects an I/O import (%s) in workflow code', (name) => {
    expect(rulesByFile[name]).toContain('no-restricted-imports');
  });

  it('rejects a floating promise in workflow code', () => {
    expect(rulesByFile.floating).toContain('@typescript-eslint/no-floating-promises');
  });

  it('accepts the workflow SDK and type-only imports of activities', () => {
    expect(rulesByFile.clean).toEqual([]);
  });
});
