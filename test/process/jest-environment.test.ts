/**
 * The jest environment every test file runs in (test/jest/environment.js) disables, when a file ends, the
 * AsyncLocalStorage instances enabled while it ran, and only those, and never installs the Temporal SDK's promise
 * hook (its workflow stack recorder); Node's own hooks and any other caller's are installed. Node walks every
 * enabled instance and runs every hook on each new promise. Run in a plain Node process of its own: inside jest
 * the environment's process-wide hooks are already installed by the file's own environment.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ENVIRONMENT = path.resolve(__dirname, '../jest/environment.js');

/** Two files in one process, as a jest worker runs them; each line of output is one observation. */
const SCRIPT = `
const v8 = require('node:v8');
const below = v8.promiseHooks.createHook;
const installed = [];
v8.promiseHooks.createHook = (hooks) => {
  installed.push(hooks);
  return below(hooks);
};
const Env = require(${JSON.stringify(ENVIRONMENT)});
const { AsyncLocalStorage } = require('node:async_hooks');
const config = { projectConfig: { testEnvironmentOptions: {}, globals: {} }, globalConfig: {} };
const file = (testPath) => new Env(config, { console, docblockPragmas: {}, testPath });
(async () => {
  const outer = new AsyncLocalStorage();
  outer.enterWith('outer');
  const first = file('first.test.ts');
  await first.setup();
  const a = new AsyncLocalStorage();
  a.enterWith('a');
  const b = new AsyncLocalStorage();
  const inRun = b.run('b', () => b.getStore());
  console.log(JSON.stringify({ during: [a.getStore(), inRun] }));
  await first.teardown();
  console.log(JSON.stringify({ afterFirst: [a.getStore() ?? null, outer.getStore() ?? null] }));
  const second = file('second.test.ts');
  await second.setup();
  const c = new AsyncLocalStorage();
  c.enterWith('c');
  await new Promise((resolve) => setTimeout(resolve, 5));
  console.log(JSON.stringify({ secondDuring: c.getStore() ?? null }));
  await second.teardown();
  console.log(JSON.stringify({ afterSecond: [c.getStore() ?? null, outer.getStore() ?? null] }));

  // Promise hooks, counted where they are installed (below the environment's createHook): the Temporal SDK's
  // workflow sandbox asks for one (as a worker in debugMode does), an ordinary caller asks for another.
  const before = installed.length;
  const { globalHandlers } = require('@temporalio/worker/lib/workflow/vm-shared');
  globalHandlers.setPromiseHook();
  const afterTemporal = installed.length;
  v8.promiseHooks.createHook({ init: () => undefined });
  console.log(JSON.stringify({
    hooks: {
      nodeOwnInstalled: before > 0,
      temporal: afterTemporal - before,
      temporalSaysInstalled: globalHandlers.promiseHookInstalled,
      other: installed.length - afterTemporal,
    },
  }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

it("disables a file's AsyncLocalStorage instances when it ends, and installs no Temporal stack recorder", () => {
  const run = spawnSync(process.execPath, ['-e', SCRIPT], { encoding: 'utf8' });
  expect([run.status, run.stderr]).toEqual([0, '']);
  expect(
    run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)),
  ).toEqual([
    { during: ['a', 'b'] },
    { afterFirst: [null, 'outer'] },
    { secondDuring: 'c' },
    { afterSecond: [null, 'outer'] },
    { hooks: { nodeOwnInstalled: true, temporal: 0, temporalSaysInstalled: true, other: 1 } },
  ]);
});

/**
 * One file's process-wide observers, as src/metrics.ts (prom-client's default metrics) and slonik's logger (Roarr)
 * start them, beside ones started outside any file: after the file, its GC observer is no longer called on a
 * collection, its event-loop delay monitor is disabled and its stdout listener is gone; the outer ones still run.
 */
const OBSERVERS = `
const Env = require(${JSON.stringify(ENVIRONMENT)});
const { PerformanceObserver, monitorEventLoopDelay } = require('node:perf_hooks');
const { createRoarrInitialGlobalState } = require('roarr/dist/factories/createRoarrInitialGlobalState');
const config = { projectConfig: { testEnvironmentOptions: {}, globals: {} }, globalConfig: {} };
const calls = { outer: 0, file: 0 };
const gcObserver = (name) => new PerformanceObserver((list) => (calls[name] += list.getEntries().length));
// A collection, then its entries delivered: the outer observer has seen it (a 5 s deadline), and one more turn of
// the event loop, in which Node calls every other observer that had entries pending.
const collected = async () => {
  const seen = calls.outer;
  global.gc();
  const deadline = Date.now() + 5000;
  while (calls.outer === seen) {
    if (Date.now() > deadline) throw new Error('no GC entry delivered within 5 s');
    await new Promise((resolve) => setImmediate(resolve));
  }
  await new Promise((resolve) => setImmediate(resolve));
};
(async () => {
  gcObserver('outer').observe({ entryTypes: ['gc'] });
  const outerDelay = monitorEventLoopDelay();
  outerDelay.enable();
  const stdoutListeners = process.stdout.listenerCount('error');
  const env = new Env(config, { console, docblockPragmas: {}, testPath: 'metrics.test.ts' });
  await env.setup();
  gcObserver('file').observe({ entryTypes: ['gc'] });
  const fileDelay = monitorEventLoopDelay();
  fileDelay.enable();
  env.global.ROARR = createRoarrInitialGlobalState({});
  await collected();
  const during = { ...calls, stdoutListeners: process.stdout.listenerCount('error') - stdoutListeners };
  await env.teardown();
  const before = { ...calls };
  await collected();
  console.log(JSON.stringify({
    during: { outerCalled: during.outer > 0, fileCalled: during.file > 0, stdoutListeners: during.stdoutListeners },
    after: {
      outerCalled: calls.outer > before.outer,
      fileCalled: calls.file > before.file,
      // enable() answers true only when the monitor was disabled.
      fileDelayWasDisabled: fileDelay.enable(),
      outerDelayWasDisabled: outerDelay.enable(),
      stdoutListeners: process.stdout.listenerCount('error') - stdoutListeners,
    },
  }));
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
`;

it("stops a file's GC observers and event-loop delay monitors and removes Roarr's stdout listener when it ends", () => {
  const run = spawnSync(process.execPath, ['--expose-gc', '-e', OBSERVERS], { encoding: 'utf8' });
  expect([run.status, run.stderr]).toEqual([0, '']);
  expect(JSON.parse(run.stdout)).toEqual({
    during: { outerCalled: true, fileCalled: true, stdoutListeners: 1 },
    after: {
      outerCalled: true,
      fileCalled: false,
      fileDelayWasDisabled: true,
      outerDelayWasDisabled: false,
      stdoutListeners: 0,
    },
  });
});
