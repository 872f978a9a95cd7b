/**
 * The loader the tests' child processes run their TypeScript with (test/helpers/ts-require.js): the same program
 * output as from source, stack traces at the source's lines, a file compiled once and then read from the cache,
 * and a cache folder that cannot be written costs only the caching; and the dependencies' code cache it loads
 * (test/helpers/code-cache.js): made once, used unchanged, made again when damaged, stack traces as Node's own.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

/** A process that loads one dependency (ms, one CommonJS file) through the loader. */
function withDependency(cacheHome: string) {
  return spawnSync(process.execPath, ['--require', LOADER, '-e', "process.stdout.write(String(require('ms')('2h')))"], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, XDG_CACHE_HOME: cacheHome },
  });
}
/** The code cache's files (test/helpers/code-cache.js), one folder for this Node. */
const codeCacheFiles = () => {
  const versions = path.join(home, 'gpu-orchestrator', 'v8-code-cache');
  const [dir, ...more] = readdirSync(versions);
  expect(more).toEqual([]);
  return readdirSync(path.join(versions, dir!)).map((f) => path.join(versions, dir!, f));
};

it("keeps V8's code cache of a dependency, used as it is by the next process and made again when damaged", () => {
  const first = withDependency(home);
  expect([first.status, first.stderr, first.stdout]).toEqual([0, '', '7200000']);
  const [cache, ...more] = codeCacheFiles();
  expect(more).toEqual([]);
  const written = statSync(cache!).mtimeMs;

  const second = withDependency(home);
  expect([second.status, second.stderr, second.stdout]).toEqual([0, '', '7200000']);
  expect(codeCacheFiles()).toEqual([cache]);
  expect(statSync(cache!).mtimeMs).toBe(written);

  // V8 rejects data that is not its cache for this code: the module still loads, and the cache is made again.
  writeFileSync(cache!, 'not a code cache');
  const third = withDependency(home);
  expect([third.status, third.stderr, third.stdout]).toEqual([0, '', '7200000']);
  expect(readFileSync(cache!, 'utf8')).not.toBe('not a code cache');
  const remade = statSync(cache!).mtimeMs;
  expect(withDependency(home).stdout).toBe('7200000');
  expect(statSync(cache!).mtimeMs).toBe(remade);
});

it('names the line and column of a dependency in a stack trace as Node does, also from the code cache', () => {
  const framesIn = (loader: string[]) => {
    const run = spawnSync(process.execPath, [...loader, '-e', "require('ms')({})"], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, XDG_CACHE_HOME: home },
    });
    return run.stderr.match(/ms[/\\]dist[/\\]index\.cjs:\d+:\d+/g);
  };
  const plain = framesIn([]);
  expect(plain).not.toBeNull();
  expect(framesIn(['--require', LOADER])).toEqual(plain); // the cache made
  expect(codeCacheFiles()).toHaveLength(1);
  expect(framesIn(['--require', LOADER])).toEqual(plain); // the cache used
});
