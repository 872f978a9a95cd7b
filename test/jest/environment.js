/**
 * Jest's node environment, plus Temporal's protobuf definitions loaded once per jest worker process.
 * `@temporalio/proto` builds a reflection tree of every Temporal API message when it is first required (about
 * half a second of CPU); jest would build it again inside each test file's sandbox. The definitions are
 * immutable after that first build, so every file's sandbox is handed the same tree (test/jest/outer/*.js,
 * mapped in jest.config.js), the way one Node process shares it between the client and the worker.
 */
const { TestEnvironment } = require('jest-environment-node');

const OUTER = {
  '@temporalio/proto': () => require('@temporalio/proto'),
  '@temporalio/proto/lib/patch-protobuf-root': () => require('@temporalio/proto/lib/patch-protobuf-root'),
  '@temporalio/proto/lib/payload-visitor.generated': () => require('@temporalio/proto/lib/payload-visitor.generated'),
};

class SharedProtoEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    const loaded = {};
    this.global.__gpuoOuterModule = (id) => (loaded[id] ??= OUTER[id]());
  }
}

module.exports = SharedProtoEnvironment;
module.exports.OUTER_MODULES = Object.keys(OUTER);
