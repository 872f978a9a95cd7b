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
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../../tsconfig.json', include: ['*.ts'] }));
    const run = spawnSync(process.execPath, [path.join(root, 'node_modules/eslint/bin/eslint.js'), '--format', 'json', dir], {
      cwd: root,
      encoding: 'utf8',
    });
    const results = JSON.parse(run.stdout) as { filePath: string; messages: { ruleId: string | null }[] }[];
    rulesByFile = Object.fromEntries(results.map((r) => [path.basename(r.filePath, '.ts'), r.messages.map((m) => m.ruleId)]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

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
