/**
 * Decisions that src/ modules feed into workflows cannot change under running workflows unnoticed. Every src/
 * module a workflow imports code from (directly or through another src/ module; type-only imports aside) has a
 * fingerprint in test/fixtures/histories/decision-fingerprints.json: the SHA-256 of its code as compiled,
 * without comments or types, so a comment or a type edit leaves it alone. A module whose code changed fails
 * here until someone has decided that running workflows are safe: a changed decision becomes a new version
 * beside the old one (`IDLE_STOP_DECISIONS_V2` next to `_V1`), picked in the workflow behind `patched()`; then
 * the fingerprint is updated. The recorded histories (replay.test.ts) catch the commands a change moves only
 * when a recorded run took the changed branch; this catches the rest. docs/operations.md, "Deploys".
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');
const FINGERPRINTS = path.join(ROOT, 'test/fixtures/histories/decision-fingerprints.json');
/** Value imports and re-exports with a relative path (`import type` and `export type` are left out). */
const VALUE_IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"](\.[^'"]+)['"]/g;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : full.endsWith('.ts') ? [full] : [];
  });
}

function valueImportsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(VALUE_IMPORT)]
    .map((m) => path.resolve(path.dirname(file), m[1]!))
    .map((base) => [base, `${base}.ts`, path.join(base, 'index.ts')].find((c) => existsSync(c) && statSync(c).isFile()))
    .filter((f): f is string => f !== undefined);
}

/** The src/ modules whose code runs inside workflows, repository-relative, sorted. */
function workflowImportedSrcModules(): string[] {
  const found = new Set<string>();
  const queue = filesUnder(path.join(ROOT, 'workflows')).flatMap(valueImportsOf);
  while (queue.length > 0) {
    const file = queue.pop()!;
    const rel = path.relative(ROOT, file);
    if (!rel.startsWith('src/') || found.has(rel)) continue;
    found.add(rel);
    queue.push(...valueImportsOf(file));
  }
  return [...found].sort();
}

/**
 * Each module's code as the formatter writes it (prettier runs in a child process: it loads its plugins with a dynamic
 * import that jest's module system refuses), compiled without comments and types: layout never counts.
 */
function fingerprints(rels: string[]): Record<string, string> {
  const script =
    "const p = require('prettier'); const fs = require('node:fs'); (async () => { const out = {};" +
    ' for (const f of process.argv.slice(1)) out[f] = await p.format(fs.readFileSync(f, "utf8"),' +
    ' { ...(await p.resolveConfig(f)), filepath: f });' +
    ' process.stdout.write(JSON.stringify(out)); })();';
  const files = rels.map((rel) => path.join(ROOT, rel));
  const formatted = JSON.parse(
    execFileSync(process.execPath, ['-e', script, ...files], { cwd: ROOT, encoding: 'utf8' }),
  ) as Record<string, string>;
  return Object.fromEntries(
    rels.map((rel, i) => {
      const code = ts.transpileModule(formatted[files[i]!]!, {
        compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, removeComments: true },
      }).outputText;
      return [rel, createHash('sha256').update(code).digest('hex')];
    }),
  );
}

it('finds the src/ modules workflows run code from', () => {
  expect(workflowImportedSrcModules()).toEqual(
    expect.arrayContaining(['src/domain/boot-deadlines.ts', 'src/domain/idle-stop.ts']),
  );
});

it('has every workflow-imported src/ module at its recorded fingerprint', () => {
  const recorded = JSON.parse(readFileSync(FINGERPRINTS, 'utf8')) as Record<string, string>;
  const current = fingerprints(workflowImportedSrcModules());
  const problems: string[] = [];
  for (const [rel, hash] of Object.entries(current)) {
    if (recorded[rel] === undefined) problems.push(`${rel} is now imported by workflow code and has no fingerprint`);
    else if (recorded[rel] !== hash) problems.push(`${rel} changed since its fingerprint`);
  }
  for (const rel of Object.keys(recorded))
    if (!(rel in current)) problems.push(`${rel} is no longer imported by workflow code`);
  if (problems.length > 0) {
    throw new Error(
      `${problems.join('\n')}\n\n` +
        'Workflows replay on what these modules decided. If a decision a running workflow makes changed, ' +
        'keep the old ' +
        'one as it was (a versioned export, e.g. IDLE_STOP_DECISIONS_V1) and add the new one beside it (…_V2), ' +
        'chosen in ' +
        'the workflow behind patched() (docs/operations.md, "Deploys"). Then set the fingerprints in ' +
        `${path.relative(ROOT, FINGERPRINTS)} to:\n${JSON.stringify(current, null, 2)}`,
    );
  }
});
