// @temporalio/proto, as loaded once per jest worker process (test/jest/environment.js).
module.exports = globalThis.__gpuoOuterModule('@temporalio/proto');
