/**
 * The adapters' log reads against the simulators' log APIs, with a real simulated container printing: RunPod's
 * server-sent events (a tail, then lines printed after the read started), Vast.ai's request_logs and its
 * delayed result_url, the window arithmetic of a followed Vast log, and an instance the provider does not know.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  boundedLiveTail,
  boundedText,
  LIVE_TAIL_MAX_BYTES,
  LIVE_TAIL_MAX_LINES,
  LOG_MAX_BYTES,
} from '../../src/jobs/logs';
import { silentLogger } from '../../src/logger';
import { newLines, readSse } from '../../src/providers/logs';
import { createRunpodAdapter } from '../../src/providers/runpod';
import type { ProviderAdapter } from '../../src/providers/types';
import { createVastaiAdapter } from '../../src/providers/vastai';
import { startSimulators, type Simulators } from '../../simulators';
import { expectProviderError, pollUntil } from './support';

let sims: Simulators;
let runpod: ProviderAdapter;
let vastai: ProviderAdapter;

beforeAll(async () => {
  sims = await startSimulators({ bootDelayMs: 50 });
  const common = { timeoutMs: 3_000, logger: silentLogger, logTiming: { pollMs: 200, uploadPollMs: 50 } };
  runpod = createRunpodAdapter({ baseUrl: sims.runpod.baseUrl, ...common });
  vastai = createVastaiAdapter({ baseUrl: sims.vastai.baseUrl, ...common });
  sims.vastai.control.setLogDelay(300);
});
afterAll(() => sims.close());

/** A start command the simulators run (it carries the job wrapper's marker); `release` is a file it waits for. */
const printing = (dir: string) =>
  `echo first; echo "second line"; while [ ! -e ${dir}/release ]; do sleep 0.05; done; echo after; ` +
  'exit 0 # gpuo-job-wrapper';

async function collect(lines: AsyncIterable<string>, until?: (seen: string[]) => boolean): Promise<string[]> {
  const seen: string[] = [];
  for await (const line of lines) {
    seen.push(line);
    if (until?.(seen)) break;
  }
  return seen;
}

const scratch = () => mkdtempSync(join(tmpdir(), 'gpuo-logs-'));

describe.each([
  ['runpod', () => runpod, () => sims.runpod.createKey()],
  ['vastai', () => vastai, () => sims.vastai.createKey()],
] as const)('%s logs', (provider, adapterOf, newKey) => {
  it('reads the tail of a running container, then follows a line printed after the read started', async () => {
    const adapter = adapterOf();
    const key = newKey();
    const dir = scratch();
    try {
      const made = await adapter.launch(key, {
        gpuType: 'rtx-4090',
        gpuCount: 1,
        name: `logs-${provider}`,
        spot: false,
        onstartCmd: printing(dir),
      });
      const tail = await pollUntil(
        () => collect(adapter.logs!(key, made.id, { tailLines: 100, follow: false })),
        (lines) => lines.length === 2,
      );
      expect(tail).toEqual(['first', 'second line']);
      expect(await collect(adapter.logs!(key, made.id, { tailLines: 1, follow: false }))).toEqual(['second line']);

      const stop = new AbortController();
      const follow = adapter.logs!(key, made.id, { tailLines: 1, follow: true, signal: stop.signal })[
        Symbol.asyncIterator
      ]();
      // The read has started once its first line is in: only then is the next line printed.
      const first = await follow.next();
      writeFileSync(`${dir}/release`, '');
      const rest = await collect({ [Symbol.asyncIterator]: () => follow }, (seen) => seen.includes('after'));
      expect([first.value, ...rest]).toEqual(['second line', 'after']);
      stop.abort();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an instance the provider does not know is not_found', async () => {
    const adapter = adapterOf();
    await expectProviderError(
      collect(adapter.logs!(newKey(), '999999', { tailLines: 10, follow: false })),
      'not_found',
    );
  });
});

it('a followed Vast log passes on only the lines new since the last window', () => {
  expect(newLines(['a', 'b', 'c'], ['a', 'b', 'c', 'd'])).toEqual(['d']);
  expect(newLines(['a', 'b', 'c'], ['b', 'c', 'd', 'e'])).toEqual(['d', 'e']);
  expect(newLines(['x', 'x'], ['x', 'x', 'x'])).toEqual(['x']);
  expect(newLines([], ['a'])).toEqual(['a']);
  expect(newLines(['a'], ['q', 'r'])).toEqual(['q', 'r']);
});

it('parses server-sent events split across chunks, with comments and multi-line data', async () => {
  const chunks = [': keep-alive\n\nid: 1\nda', 'ta: {"line":"a"}\n\nevent: end\ndata: x\ndata: y\n\n'];
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const ch of chunks) c.enqueue(new TextEncoder().encode(ch));
      c.close();
    },
  });
  const events = [];
  for await (const e of readSse(body)) events.push(e);
  expect(events).toEqual([
    { id: '1', event: 'message', data: '{"line":"a"}' },
    { event: 'end', data: 'x\ny' },
  ]);
});

it('a tail the API answers is bounded in bytes: the last whole lines that fit in 256 KiB', () => {
  const lines = Array.from({ length: 400 }, (_, i) => String(i).padEnd(1023, '.')); // 1 KiB with its newline
  const text = boundedText(lines);
  expect(Buffer.byteLength(text)).toBe(LOG_MAX_BYTES);
  expect(text.split('\n')[0]).toBe(lines[144]);
  expect(text.endsWith(`${lines[399]}\n`)).toBe(true);
});

it('a shipped tail is kept bounded: its last 1000 lines, at most 16 KiB, a longer last line by its end', () => {
  const many = Array.from({ length: 1_500 }, (_, i) => String(i)).join('\n');
  expect(boundedLiveTail(many).split('\n')).toEqual(
    Array.from({ length: LIVE_TAIL_MAX_LINES }, (_, i) => `${i + 500}`),
  );
  const wide = Array.from({ length: 40 }, (_, i) => String(i).padEnd(1023, '.')).join('\n'); // 1 KiB with its newline
  const kept = boundedLiveTail(wide);
  expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(LIVE_TAIL_MAX_BYTES);
  expect(kept.split('\n')).toHaveLength(16);
  expect(kept.endsWith('39'.padEnd(1023, '.'))).toBe(true);
  // One line of 20 000 three-byte characters and a last emoji: its end, cut on a whole character.
  const long = boundedLiveTail(`${'€'.repeat(20_000)}😀`);
  expect(Buffer.byteLength(long)).toBeLessThanOrEqual(LIVE_TAIL_MAX_BYTES);
  expect(Buffer.byteLength(long)).toBeGreaterThan(LIVE_TAIL_MAX_BYTES - 4);
  expect(long.endsWith('€😀')).toBe(true);
  expect(/^[\udc00-\udfff]/.test(long)).toBe(false);
});
