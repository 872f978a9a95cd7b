/**
 * Reads a V8 `.cpuprofile` (from `node --cpu-prof`) and says where the CPU went: self time by part of the
 * request pipeline (which file the sampled function lives in), and inclusive time of the pipeline's own
 * stages (a stage's time includes what it calls: Koa's header setters from the edge, pino from the logger).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Parts of the process, by the source file of a frame: first match wins. */
const PARTS: [string, RegExp][] = [
  [
    'logger: pino + sonic-boom',
    /node_modules\/(pino|sonic-boom|fast-redact|safe-stable-stringify|quick-format|atomic-sleep|on-exit)/,
  ],
  ['logger: src/logger.ts', /src\/logger\.ts/],
  ['metrics: src/metrics.ts', /src\/metrics\.ts/],
  ['edge: src/http/edge.ts', /src\/http\/edge\.ts/],
  ['request id: src/http/request-id.ts', /src\/http\/request-id\.ts/],
  ['router: src/http/route.ts', /src\/http\/route\.ts/],
  ['handler: src/http/routes/pricing.ts', /src\/http\/routes\/pricing\.ts/],
  ['other src/', /\/src\//],
  [
    'koa',
    new RegExp(
      'node_modules/(koa|koa-compose|@koa|delegates|only|statuses|on-finished|ee-first|vary|type-is|mime|' +
        'content-type|accepts|negotiator|http-errors|cookies|encodeurl|escape-html|fresh|parseurl)',
    ),
  ],
  ['other node_modules', /node_modules/],
  ['node: http, net, streams', /^node:/],
];

/** The pipeline's stages, by function and file (inclusive time: everything they call). */
const STAGES: [string, (f: ProfileNode['callFrame']) => boolean][] = [
  ['edge middleware (all of it)', (f) => f.url.endsWith('src/http/edge.ts') && f.functionName === ''],
  ['  request id', (f) => f.functionName === 'assignRequestId'],
  ['  metrics sample', (f) => f.functionName === 'recordHttpRequest'],
  [
    '  request log line',
    (f) => f.url.endsWith('src/logger.ts') && (f.functionName === 'info' || f.functionName === ''),
  ],
  ['router dispatch + handler', (f) => f.url.endsWith('src/http/route.ts') && f.functionName === ''],
  ['  pricing handler (write)', (f) => f.functionName === 'conditional'],
  ['koa handleRequest (whole request in Koa)', (f) => f.functionName === 'handleRequest' && f.url.includes('koa')],
];

export function summarizeCpuProfile(file: string): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]!)!;
    const dt = profile.timeDeltas[i] ?? 0;
    const name = node.callFrame.functionName;
    if (name === '(idle)' || name === '(program)') continue;
    busy += dt;
    const part =
      name === '(garbage collector)'
        ? 'garbage collector'
        : (PARTS.find(([, re]) => re.test(node.callFrame.url))?.[0] ?? 'other (native, anonymous)');
    self.set(part, (self.get(part) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame;
      for (const [stage, match] of STAGES) {
        if (!seen.has(stage) && match(frame)) {
          seen.add(stage);
          inclusive.set(stage, (inclusive.get(stage) ?? 0) + dt);
        }
      }
    }
  }
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)} %`;
  const rows = [
    `CPU profile of the API server while it served GET /v1/pricing (${(busy / 1000).toFixed(0)} ms busy CPU sampled)`,
    'self time by part:',
  ];
  for (const [part, us] of [...self.entries()].sort((a, b) => b[1] - a[1]))
    rows.push(`  ${part.padEnd(40)} ${pct(us)}`);
  rows.push('inclusive time by stage:');
  for (const [stage] of STAGES) rows.push(`  ${stage.padEnd(40)} ${pct(inclusive.get(stage) ?? 0)}`);
  return rows.join('\n');
}
