/**
 * Jest's node environment, plus three things a jest worker process needs across the test files it runs:
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
 * - The Temporal SDK's workflow sandbox without its per-call deadline and its promise hook
 *   (test/jest/workflow-sandbox.js): in this process, where `debugMode` workers run their workflows
 *   (test/helpers/time-skipping.ts, the replay worker), and in the workflow threads of the other workers.
 */
const { AsyncLocalStorage } = require('node:async_hooks');
const { TestEnvironment } = require('jest-environment-node');

const OUTER = {
  '@temporalio/proto': () => require('@temporalio/proto'),
  '@temporalio/proto/lib/patch-protobuf-root': () => require('@temporalio/proto/lib/patch-protobuf-root'),
  '@temporalio/proto/lib/payload-visitor.generated': () => require('@temporalio/proto/lib/payload-visitor.generated'),
};

/**
 * The instances used (`run`, `enterWith`) while the current file runs; a jest worker process runs one file at a
 * time. Tracked through the public methods, which enable an instance on every Node version.
 */
let enabledInFile = new Set();
const TRACKED = Symbol.for('gpuo.test.asyncLocalStorageTracked');
if (!AsyncLocalStorage.prototype[TRACKED]) {
  for (const method of ['run', 'enterWith']) {
    const original = AsyncLocalStorage.prototype[method];
    AsyncLocalStorage.prototype[method] = function tracked(...args) {
      enabledInFile.add(this);
      return original.apply(this, args);
    };
  }
  AsyncLocalStorage.prototype[TRACKED] = true;
}

require('./workflow-sandbox.js');

class TestFileEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    const loaded = {};
    this.global.__gpuoOuterModule = (id) => (loaded[id] ??= OUTER[id]());
  }

  async setup() {
    enabledInFile = new Set();
    await super.setup();
  }

  async teardown() {
    const enabled = enabledInFile;
    enabledInFile = new Set();
    for (const storage of enabled) storage.disable();
    await super.teardown();
  }
}

module.exports = TestFileEnvironment;
module.exports.OUTER_MODULES = Object.keys(OUTER);
