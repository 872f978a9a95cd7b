/**
 * The loader the tests' child processes run their TypeScript with (test/helpers/ts-require.js): the same program
 * output as from source, stack traces at the source's lines, a file compiled once and then read from the cache,
 * and a cache folder that cannot be written costs only the caching.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const LOADER = path.join(root, 'test/helpers/ts-require.js');
const PROBE = path.join(root, 'test/fixtures/ts-require-probe.ts');

let home: string;
beforeEach(() => {
  home = mkdtempSync(path.join(os.tmpdir(), 'gpuo-ts-require-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function probe(cacheHome: string, ...args: string[]) {
  return spawnSync(process.execPath, ['--require', LOADER, PROBE, ...args], {
    encoding: 'utf8',
    env: { ...process.env, XDG_CACHE_HOME: cacheHome },
  });
}
const cacheDir = () => path.join(home, 'gpu-orchestrator', 'ts-require');

it('runs the source with its own __dirname and keeps one compiled file, read again by the next process', () => {
  const first = probe(home);
  expect([first.status, first.stderr]).toEqual([0, '']);
  expect(JSON.parse(first.stdout)).toEqual({ value: 42, from: path.dirname(PROBE) });
  const [cached, ...more] = readdirSync(cacheDir());
  expect(more).toEqual([]);
  const written = statSync(path.join(cacheDir(), cached!)).mtimeMs;

  const second = probe(home);
  expect(second.stdout).toBe(first.stdout);
  expect(readdirSync(cacheDir())).toEqual([cached]);
  expect(statSync(path.join(cacheDir(), cached!)).mtimeMs).toBe(written);
});

it("names the source's file and line in a stack trace", () => {
  const run = probe(home, 'throw');
  expect(run.status).toBe(1);
  expect(run.stderr).toContain('from the probe at line 14');
  expect(run.stderr).toMatch(/ts-require-probe\.ts:14:\d+/);
});

it('runs when the cache folder cannot be made, caching nothing', () => {
  const blocked = path.join(home, 'a-file');
  writeFileSync(blocked, 'not a folder');
  const run = probe(blocked);
  expect([run.status, run.stderr]).toEqual([0, '']);
  expect(JSON.parse(run.stdout)).toEqual({ value: 42, from: path.dirname(PROBE) });
});
