/**
 * Jest's node environment, plus what a jest worker process needs across the test files it runs:
 *
 * - Temporal's protobuf definitions loaded once per process. `@temporalio/proto` builds a reflection tree of every
 *   Temporal API message when it is first required (about half a second of CPU); jest would build it again inside
 *   each test file's sandbox. The definitions are immutable after that first build, so every file's sandbox is
 *   handed the same tree (test/jest/outer/*.js, mapped in jest.config.js), the way one Node process shares it
 *   between the client and the worker.
 * - The AsyncLocalStorage instances a file's modules enabled, disabled when the file ends. Jest evaluates every
 *   module again per file, so each file makes its own (slonik's transaction context, @temporalio/activity's
 *   context, the Temporal connection's call context), and Node 20 keeps every enabled one in a process-wide list
 *   that each new promise and async resource walks: three more per file, for the rest of the process.
 * - No promise hook from the Temporal SDK's workflow sandbox. A worker with its workflows in the test's thread
 *   (`debugMode` in test/helpers/time-skipping.ts, the replay worker) installs one through
 *   `v8.promiseHooks.createHook` to record each workflow promise's stack (for the stack-trace query, which no test
 *   makes) and never removes it: it then runs on every promise of the process, compiling a new Function per call,
 *   about 1.2 µs per promise against 0.04 µs without, one more for each such file. Removing hooks later is no
 *   way out: Node's own async_hooks (AsyncLocalStorage) install theirs through the same `createHook`, and removing
 *   the hooks a file made while its promises were in flight aborted the jest workers (`execution_async_id() == 0`
 *   in InternalCallbackScope::Close). So the SDK's call is answered with a hook that was never installed; every
 *   other caller's goes through, and nothing is removed.
 * - The process-wide observers a file's modules started (prom-client's GC observer and event-loop delay monitor,
 *   made when src/metrics.ts is evaluated) stopped when the file ends, and Roarr's listener on process.stdout
 *   removed (below).
 */
const { AsyncLocalStorage } = require('node:async_hooks');
const v8 = require('node:v8');
const perfHooks = require('node:perf_hooks');
const { TestEnvironment } = require('jest-environment-node');

const OUTER = {
  '@temporalio/proto': () => require('@temporalio/proto'),
  '@temporalio/proto/lib/patch-protobuf-root': () => require('@temporalio/proto/lib/patch-protobuf-root'),
  '@temporalio/proto/lib/payload-visitor.generated': () => require('@temporalio/proto/lib/payload-visitor.generated'),
};

/**
 * What the current file started that would outlive it, each with how to stop it when the file ends; a jest worker
 * process runs one file at a time.
 */
let startedInFile = new Map();
const stopWhenFileEnds = (object, stop) => {
  if (!startedInFile.has(object)) startedInFile.set(object, stop);
};
const disableStorage = (storage) => storage.disable();
const disconnectObserver = (observer) => observer.disconnect();
const disableMonitor = (histogram) => histogram.disable();

/**
 * The AsyncLocalStorage instances used (`run`, `enterWith`) while the current file runs, tracked through the
 * public methods, which enable an instance on every Node version.
 */
const TRACKED = Symbol.for('gpuo.test.asyncLocalStorageTracked');
if (!AsyncLocalStorage.prototype[TRACKED]) {
  for (const method of ['run', 'enterWith']) {
    const original = AsyncLocalStorage.prototype[method];
    AsyncLocalStorage.prototype[method] = function tracked(...args) {
      stopWhenFileEnds(this, disableStorage);
      return original.apply(this, args);
    };
  }
  AsyncLocalStorage.prototype[TRACKED] = true;
}

/**
 * Where the SDK installs its hook (`GlobalHandlers.setPromiseHook`), as it appears in a stack trace: its `lib/…js`,
 * or its `src/…ts` where jest maps the frame through the package's source map.
 */
const TEMPORAL_STACK_RECORDER = /[\\/]@temporalio[\\/]worker[\\/](lib|src)[\\/]workflow[\\/]vm-shared\.(js|ts):/;
if (!v8.promiseHooks[TRACKED]) {
  const createHook = v8.promiseHooks.createHook;
  v8.promiseHooks.createHook = function unlessTemporalStackRecorder(...args) {
    if (TEMPORAL_STACK_RECORDER.test(new Error().stack ?? '')) return () => undefined;
    return createHook.apply(this, args);
  };
  v8.promiseHooks[TRACKED] = true;
}

/**
 * Process-wide observers a file's modules started: `PerformanceObserver`s (prom-client's GC metric) and event-loop
 * delay monitors (its lag metric), both made when src/metrics.ts is evaluated, which jest does again in every file.
 * Node keeps an observing observer in a process-wide list and calls it on every GC of the process, so each file
 * left one more callback on every later collection, and kept its whole sandbox (every module of the file) alive
 * through it. They are stopped when the file ends.
 */
if (!perfHooks.PerformanceObserver.prototype[TRACKED]) {
  const observe = perfHooks.PerformanceObserver.prototype.observe;
  perfHooks.PerformanceObserver.prototype.observe = function tracked(...args) {
    stopWhenFileEnds(this, disconnectObserver);
    return observe.apply(this, args);
  };
  perfHooks.PerformanceObserver.prototype[TRACKED] = true;
  const monitorEventLoopDelay = perfHooks.monitorEventLoopDelay;
  perfHooks.monitorEventLoopDelay = function tracked(...args) {
    const histogram = monitorEventLoopDelay.apply(this, args);
    stopWhenFileEnds(histogram, disableMonitor);
    return histogram;
  };
}

class TestFileEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    const loaded = {};
    this.global.__gpuoOuterModule = (id) => (loaded[id] ??= OUTER[id]());
  }

  async setup() {
    startedInFile = new Map();
    await super.setup();
  }

  async teardown() {
    const started = startedInFile;
    startedInFile = new Map();
    for (const [object, stop] of started) stop(object);
    // Roarr (slonik's logger) adds an 'error' listener to process.stdout when it is evaluated, once per file here:
    // Node warned of a leak after ten files in a jest worker. Its state is the file's global; its teardown removes it.
    this.global.ROARR?.teardown?.();
    await super.teardown();
  }
}

module.exports = TestFileEnvironment;
module.exports.OUTER_MODULES = Object.keys(OUTER);
