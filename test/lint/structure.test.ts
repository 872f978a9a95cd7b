/**
 * The shape of the house, checked from the code itself: one-way imports (no circle, nothing importing a higher
 * layer), activities that never reach for Temporal's client, and files and functions small enough to read.
 * Each failure names the files. Model: `node ../shared/tools/import-cycles.mjs`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(__dirname, '../..');
const GRAPH_ROOTS = ['src', 'activities', 'workflows', 'simulators', 'bench'];
const PRODUCTION_ROOTS = ['src', 'activities', 'workflows', 'simulators'];
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 120;

/**
 * Layers, highest first. An import may point to its own layer or a lower one. The first pattern that matches a
 * path decides; a file in no layer fails the test (a new folder must say where it belongs).
 */
const LAYERS: { name: string; rank: number; pattern: RegExp }[] = [
  { name: 'composition root', rank: 9, pattern: /^(src\/(main-[^/]+|worker)\.ts|src\/(cli|local)\/.*|bench\/.*)$/ },
  { name: 'provider simulator', rank: 8, pattern: /^simulators\// },
  { name: 'route', rank: 7, pattern: /^src\/http\// },
  { name: 'client module', rank: 6, pattern: /^src\/workflow-clients\// },
  { name: 'contract', rank: 2, pattern: /^workflows\/contracts\// },
  { name: 'workflow', rank: 5, pattern: /^workflows\// },
  { name: 'activity', rank: 4, pattern: /^activities\// },
  // Launch policy, admission and input building, and the jobs' start command: called by routes and by activities,
  // so below both; it starts launches through a port, never through a client module.
  { name: 'launch library', rank: 3, pattern: /^src\/(launch|jobs)\// },
  // The provider interface, the GPU slug table and the launch checks against it are pure data, types and
  // functions: domain, though they live beside the adapters.
  {
    name: 'domain',
    rank: 0,
    pattern:
      /^src\/(domain\/.*|providers\/(types|gpu-catalog|launch-problems)\.ts|(errors|config|logger|request-line)\.ts)$/,
  },
  // Adapters and queries: Postgres (query modules, the LISTEN-fed pricing cache), provider adapters and
  // credentials, Stripe, the webhook sender and outbox listener.
  { name: 'adapter or query', rank: 1, pattern: /^src\/(db|providers|billing|webhooks)\/|^src\/metrics\.ts$/ },
];

const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'"`;]*?\sfrom\s+)?['"]([^'"]+)['"]/g;

export function layerOf(file: string): { name: string; rank: number } | undefined {
  return LAYERS.find((l) => l.pattern.test(file));
}

/** Relative imports resolved to project files, and bare (package) imports, per file. */
export function importsOf(sources: Map<string, string>): Map<string, { local: string[]; packages: string[] }> {
  const out = new Map<string, { local: string[]; packages: string[] }>();
  for (const [file, text] of sources) {
    const local = new Set<string>();
    const packages = new Set<string>();
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1]!;
      if (!spec.startsWith('.')) {
        packages.add(spec);
        continue;
      }
      const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
      const target = [base, `${base}.ts`, `${base}/index.ts`].find((c) => sources.has(c));
      if (target && target !== file) local.add(target);
    }
    out.set(file, { local: [...local], packages: [...packages] });
  }
  return out;
}

/** Strongly connected components with more than one file (Tarjan), each as its edges `a -> b`. */
export function circles(graph: Map<string, { local: string[] }>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  const strong = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v)?.local ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const component = new Set<string>();
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        component.add(w);
      } while (w !== v);
      if (component.size > 1) {
        found.push(
          [...component].flatMap((a) =>
            (graph.get(a)?.local ?? []).filter((b) => component.has(b)).map((b) => `${a} -> ${b}`),
          ),
        );
      }
    }
  };
  for (const file of graph.keys()) if (!idx.has(file)) strong(file);
  return found;
}

/** Imports that point to a higher layer, and files in no layer. */
export function upwardImports(graph: Map<string, { local: string[] }>): string[] {
  const problems: string[] = [];
  for (const [file, { local }] of graph) {
    const from = layerOf(file);
    if (!from) {
      problems.push(`${file} is in no layer (add its folder to LAYERS in test/lint/structure.test.ts)`);
      continue;
    }
    for (const target of local) {
      const to = layerOf(target);
      if (to && to.rank > from.rank) problems.push(`${file} (${from.name}) -> ${target} (${to.name})`);
    }
  }
  return problems;
}

/**
 * Activities get what they start or signal as ports in their deps: no Temporal client, no client module, no
 * workflow.
 */
export function activityReachingUp(graph: Map<string, { local: string[]; packages: string[] }>): string[] {
  const problems: string[] = [];
  for (const [file, { local, packages }] of graph) {
    if (!file.startsWith('activities/')) continue;
    if (packages.includes('@temporalio/client')) problems.push(`${file} -> @temporalio/client`);
    for (const target of local) {
      if (
        target.startsWith('src/workflow-clients/') ||
        (target.startsWith('workflows/') && !target.startsWith('workflows/contracts/'))
      ) {
        problems.push(`${file} -> ${target}`);
      }
    }
  }
  return problems;
}

/**
 * Functions longer than the limit, counting a function's own lines: the lines of functions nested in it are
 * counted for those functions (a factory returning ten short methods is not one long function).
 */
export function longFunctions(file: string, text: string, limit = MAX_FUNCTION_LINES): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const line = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
  const span = (n: ts.Node) => line(n.end) - line(n.getStart(sf)) + 1;
  const isFunction = (n: ts.Node): n is ts.FunctionLikeDeclaration => ts.isFunctionLike(n) && 'body' in n && !!n.body;
  const found: string[] = [];
  const visit = (n: ts.Node) => {
    if (isFunction(n)) {
      let nested = 0;
      const inner = (m: ts.Node) => {
        if (isFunction(m)) nested += span(m);
        else ts.forEachChild(m, inner);
      };
      ts.forEachChild(n.body!, inner);
      const own = span(n) - nested;
      if (own > limit)
        found.push(
          `${file}:${line(n.getStart(sf)) + 1} ${n.name?.getText(sf) ?? '(anonymous)'} has ${own} lines of its own`,
        );
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

function readTree(roots: string[]): Map<string, string> {
  const sources = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir))) {
      const rel = `${dir}/${entry}`;
      if (statSync(path.join(root, rel)).isDirectory()) walk(rel);
      else if (/\.ts$/.test(entry) && !/\.d\.ts$/.test(entry))
        sources.set(rel, readFileSync(path.join(root, rel), 'utf8'));
    }
  };
  for (const r of roots) walk(r);
  return sources;
}

describe('the project tree', () => {
  const sources = readTree(GRAPH_ROOTS);
  const graph = importsOf(sources);

  it('has no import circle', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('imports down: route → client → workflow → activity → contract → adapter/query → domain', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it('has no activity importing @temporalio/client, a client module or a workflow', () => {
    expect(activityReachingUp(graph)).toEqual([]);
  });

  const production = [...sources].filter(([file]) => PRODUCTION_ROOTS.some((r) => file.startsWith(`${r}/`)));
  const tooLong = production.filter(([, text]) => text.split('\n').length > MAX_FILE_LINES).map(([file]) => file);
  const longFns = production.flatMap(([file, text]) => longFunctions(file, text));

  it(`has no production file over ${MAX_FILE_LINES} lines`, () => {
    expect(tooLong).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(longFns).toEqual([]);
  });
});

describe("the console's source (console/src)", () => {
  const files: [string, string][] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir))) {
      const rel = `${dir}/${entry}`;
      if (statSync(path.join(root, rel)).isDirectory()) walk(rel);
      else if (/\.tsx?$/.test(entry)) files.push([rel, readFileSync(path.join(root, rel), 'utf8')]);
    }
  };
  walk('console/src');

  it(`has no file over ${MAX_FILE_LINES} lines and no function over ${MAX_FUNCTION_LINES}`, () => {
    expect(files.length).toBeGreaterThan(5);
    expect(files.filter(([, text]) => text.split('\n').length > MAX_FILE_LINES).map(([f]) => f)).toEqual([]);
    expect(files.flatMap(([file, text]) => longFunctions(file, text))).toEqual([]);
  });
});

describe('the checks themselves', () => {
  const fixture = new Map<string, string>([
    [
      'activities/a.ts',
      "import { b } from './b';\nimport { Client } from '@temporalio/client';\n" +
        "import { c } from '../src/workflow-clients/c';\n",
    ],
    ['activities/b.ts', "import type { A } from './a';\n"],
    ['src/workflow-clients/c.ts', "import { w } from '../../workflows/w';\n"],
    ['workflows/w.ts', "import type { Activities } from '../activities/a';\n"],
    ['src/domain/money.ts', "import { app } from '../http/app';\n"],
    ['src/http/app.ts', ''],
    ['src/elsewhere.ts', ''],
  ]);
  const graph = importsOf(fixture);

  it('finds a circle and names its edges', () => {
    const found = circles(graph);
    expect(found).toHaveLength(1);
    expect(found[0]).toEqual(
      expect.arrayContaining([
        'activities/a.ts -> activities/b.ts',
        'activities/b.ts -> activities/a.ts',
        'activities/a.ts -> src/workflow-clients/c.ts',
      ]),
    );
  });

  it('names an upward import and a file in no layer', () => {
    expect(upwardImports(graph)).toEqual(
      expect.arrayContaining([
        'activities/a.ts (activity) -> src/workflow-clients/c.ts (client module)',
        'src/domain/money.ts (domain) -> src/http/app.ts (route)',
        expect.stringContaining('src/elsewhere.ts is in no layer'),
      ]),
    );
  });

  it('names an activity that imports the Temporal client or a client module', () => {
    expect(activityReachingUp(graph)).toEqual([
      'activities/a.ts -> @temporalio/client',
      'activities/a.ts -> src/workflow-clients/c.ts',
    ]);
  });

  it('measures a function by its own lines', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const long = `export function big() {\n${body(125)}\n}\n`;
    const factory =
      `export function make() {\n  return {\n    a() {\n${body(70)}\n    },\n` +
      `    b() {\n${body(70)}\n    },\n  };\n}\n`;
    expect(longFunctions('x.ts', long)).toEqual(['x.ts:1 big has 127 lines of its own']);
    expect(longFunctions('y.ts', factory)).toEqual([]);
  });
});
