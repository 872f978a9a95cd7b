/**
 * What the tests take out of the Temporal SDK's workflow sandbox, in the process that loads this file and in the
 * workflow threads its workers start (each gets this file through `--require` in its `execArgv`). The jest
 * processes load it (test/jest/environment.js), and so do the processes `runEntry()` starts
 * (test/helpers/process.ts); `npm start` runs the SDK as it comes.
 *
 * - No deadline on a call into a workflow's V8 context. The SDK passes `timeout` (5 s, or about 49 days in
 *   `debugMode`) to every `runInContext` call, and Node starts and joins a watchdog thread for each call that has
 *   one: about 70 µs of CPU per call against 1 µs without, and a worker makes several calls per activation. A
 *   workflow that never yields then holds its test until the test's own timeout instead of failing its workflow
 *   task after 5 s; no test relies on that deadline.
 * - No promise hook for the SDK's workflow stack recorder: it records the stack of each workflow promise for the
 *   stack-trace query, which no test makes, and once installed it runs on every promise of its thread (compiling a
 *   new Function per call: about 1.2 µs per promise against 0.04 µs without) and is never removed. Removing hooks
 *   later is no way out: Node's own async_hooks (AsyncLocalStorage) install theirs through the same `createHook`,
 *   and removing the hooks a file made while its promises were in flight aborted the jest workers
 *   (`execution_async_id() == 0` in InternalCallbackScope::Close). So the SDK's call is answered with a hook that
 *   was never installed; every other caller's goes through.
 */
const vm = require('node:vm');
const v8 = require('node:v8');
const path = require('node:path');
const workerThreads = require('node:worker_threads');

const INSTALLED = Symbol.for('gpuo.test.workflowSandbox');
const SELF = require.resolve('./workflow-sandbox.js');

/**
 * Where the SDK installs its hook (`GlobalHandlers.setPromiseHook`), as it appears in a stack trace: its `lib/…js`,
 * or its `src/…ts` where jest maps the frame through the package's source map.
 */
const TEMPORAL_STACK_RECORDER = /[\\/]@temporalio[\\/]worker[\\/](lib|src)[\\/]workflow[\\/]vm-shared\.(js|ts):/;

/** The SDK's workflow thread (`@temporalio/worker/lib/workflow/workflow-worker-thread.js`). */
const WORKFLOW_THREAD = /[\\/]@temporalio[\\/]worker[\\/]lib[\\/]workflow[\\/]workflow-worker-thread\.js$/;

if (!vm.Script.prototype[INSTALLED]) {
  const runInContext = vm.Script.prototype.runInContext;
  // `vm.runInContext(code, context, options)` goes through this method too.
  vm.Script.prototype.runInContext = function withoutDeadline(context, options) {
    if (options === undefined || options === null || options.timeout === undefined) {
      return runInContext.call(this, context, options);
    }
    const { timeout: _timeout, ...rest } = options;
    return runInContext.call(this, context, rest);
  };
  vm.Script.prototype[INSTALLED] = true;

  const createHook = v8.promiseHooks.createHook;
  v8.promiseHooks.createHook = function unlessTemporalStackRecorder(...args) {
    if (TEMPORAL_STACK_RECORDER.test(new Error().stack ?? '')) return () => undefined;
    return createHook.apply(this, args);
  };

  // The SDK's workflow threads (`new Worker(<…>/workflow-worker-thread.js)`, no options) load this file first.
  // Given an `execArgv`, a thread no longer inherits the process's options: it may not carry V8 flags (they apply
  // to every thread anyway), and the process's other preloads (ts-require.js in runEntry's children) have nothing
  // to do there: the thread runs the SDK's JavaScript and the prebuilt bundle.
  const NodeWorker = workerThreads.Worker;
  workerThreads.Worker = class Worker extends NodeWorker {
    constructor(filename, options = {}) {
      const workflowThread = typeof filename === 'string' && WORKFLOW_THREAD.test(path.resolve(filename));
      super(
        filename,
        workflowThread ? { ...options, execArgv: [...(options.execArgv ?? []), '--require', SELF] } : options,
      );
    }
  };
}
