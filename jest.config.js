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
  // Most files wait (boots, rounds, child processes) more than they compute: 4 workers on this 2-core machine ran
  // the whole suite in 286 s (827 passed; 3 workers 315 s, 2 workers 397 s; docs/testing.md "Whole suite").
  maxWorkers: 4,
};
