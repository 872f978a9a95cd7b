/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }],
    // ESM-only packages in slonik's tree: jest on Node 20 cannot require() them, so compile them to CommonJS.
    '^.+/node_modules/(p-limit|yocto-queue)/.+\\.js$': ['@swc/jest', { module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(p-limit|yocto-queue)/)'],
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  // Heaviest files first, also without a jest cache (test/sequencer.js).
  testSequencer: '<rootDir>/test/sequencer.js',
  reporters: ['default', '<rootDir>/test/reporters/summary-line.js'],
  testTimeout: 60_000,
  // 3 workers ran six timing-sensitive e2e files in 0.77× the wall time of 2, but a whole run with 3 lost a
  // browser test's 30 s wait that passes alone in 4 s (docs/testing.md): 2 until the suite is lighter.
  maxWorkers: 2,
};
