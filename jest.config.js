/**
 * Two layers (docs/testing.md):
 * - `unit`: plain functions, lint rules, parsers and the provider adapters against the in-repo simulators (plain
 *   Node servers in the test's own process). It needs no Postgres, no Temporal server, no Java and no Go, so it
 *   runs without the global setup: `npm run test:unit` works on a bare Node install.
 * - `stack`: everything else, on the services the global setup starts once per run (embedded Postgres, the
 *   Temporal dev server, the workflow bundle, Temporal's time-skipping test server).
 * A file belongs to `unit` only when it is listed below; any other file (a new test/workflows file included)
 * lands in `stack`, where everything is available.
 */
const UNIT = [
  'test/domain/',
  'test/config/',
  'test/console/event-stream.test.ts',
  'test/console/money-format.test.ts',
  'test/lint/',
  'test/providers/',
  'test/compute/launch-input.test.ts',
  'test/jobs/schedule-runs.test.ts',
  'test/pricing/pricing-cache.test.ts',
  'test/process/jest-environment.test.ts',
  'test/process/request-log.test.ts',
  'test/process/ts-require.test.ts',
  'test/temporal/coalesce.test.ts',
  'test/temporal/retry-after-close.test.ts',
  'test/webhooks/signing.test.ts',
  'test/workflows/launch-one-step.test.ts',
];

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const unitPatterns = UNIT.map((p) => `<rootDir>/${escapeRegExp(p)}`);

/** What both projects share. */
const common = {
  // Node's environment, with Temporal's protobuf definitions built once per jest worker (test/jest/environment.js).
  testEnvironment: '<rootDir>/test/jest/environment.js',
  moduleNameMapper: {
    '^@temporalio/proto$': '<rootDir>/test/jest/outer/temporal-proto.js',
    '^@temporalio/proto/lib/patch-protobuf-root$': '<rootDir>/test/jest/outer/patch-protobuf-root.js',
    '^@temporalio/proto/lib/payload-visitor.generated$': '<rootDir>/test/jest/outer/payload-visitor.js',
  },
  roots: ['<rootDir>/test'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }],
    // ESM-only packages in slonik's tree: jest on Node 20 cannot require() them, so compile them to CommonJS.
    '^.+/node_modules/(p-limit|yocto-queue)/.+\\.js$': ['@swc/jest', { module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(p-limit|yocto-queue)/)'],
  // Jest's runtime, handing V8's code cache to each file's compilations of a module (test/jest/runtime.js).
  runtime: '<rootDir>/test/jest/runtime.js',
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: UNIT.map((p) => (p.endsWith('/') ? `<rootDir>/${p}**/*.test.ts` : `<rootDir>/${p}`)),
    },
    {
      ...common,
      displayName: 'stack',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...unitPatterns],
      // A project's global setup runs only when one of its files is selected: `npm run test:unit` and a single
      // unit file start nothing.
      globalSetup: '<rootDir>/test/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
    },
  ],
  // A run-wide option: jest ignores it inside a project.
  testTimeout: 60_000,
  // Heaviest files first across both projects, also without a jest cache (test/sequencer.js).
  testSequencer: '<rootDir>/test/sequencer.js',
  // One closing line counting both projects' tests.
  reporters: ['default', '<rootDir>/test/reporters/summary-line.js'],
  // Most stack files wait (boots, observer rounds, child processes) more than they compute, the heaviest (first in
  // the order) most: on the 2-core reference machine 4 workers left the cores idle about an eighth of the run,
  // mostly in its first minute; 6 keep them busy (docs/testing.md).
  maxWorkers: 6,
};
