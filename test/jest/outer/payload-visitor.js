// @temporalio/proto/lib/payload-visitor.generated, as loaded once per jest worker process (test/jest/environment.js).
module.exports = globalThis.__gpuoOuterModule('@temporalio/proto/lib/payload-visitor.generated');
