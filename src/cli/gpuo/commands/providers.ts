/** Provider keys: connect, verify and disconnect (the keys themselves are never shown). */
import { call } from '../api';
import { table } from '../output';
import type { CommandSpec } from '../spec';
import { PROVIDERS, readInput, str } from './input';

const PROVIDER_ARG = [{ name: 'provider', required: true, choices: PROVIDERS }] as const;

export const PROVIDER_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['providers', 'ls'],
    summary: 'the connected provider keys (never the keys themselves)',
    examples: ['providers ls'],
    async run(ctx) {
      const listed = await call((await ctx.api()).raw.GET('/v1/settings/providers'));
      ctx.out.print(listed, () =>
        table(listed.data, ['provider', 'display_label', 'key_hint', 'status', 'last_verified_at', 'updated_at']),
      );
    },
  },
  {
    path: ['providers', 'connect'],
    summary: 'connect (or replace) a provider key, read from stdin or a file, never from the command line',
    args: PROVIDER_ARG,
    options: {
      'key-file': {
        type: 'string',
        value: '<file>',
        description: 'read the key from this file (default: stdin; typed at a terminal, it is not echoed)',
      },
      label: { type: 'string', value: '<label>', description: 'a label for the key' },
    },
    examples: ['providers connect runpod --label work'],
    async run(ctx) {
      const provider = ctx.args.provider as (typeof PROVIDERS)[number];
      const apiKey = await readInput(ctx, 'key-file', `${provider} API key`);
      const body = { provider, api_key: apiKey, ...(str(ctx, 'label') ? { display_label: str(ctx, 'label') } : {}) };
      const saved = await call((await ctx.api()).raw.POST('/v1/settings/providers', { body }));
      ctx.out.print(saved, () => `connected ${saved.provider} (key ${saved.key_hint}, ${saved.status})\n`);
    },
  },
  {
    path: ['providers', 'verify'],
    summary: 'check the saved key against the provider',
    args: PROVIDER_ARG,
    examples: ['providers verify runpod'],
    async run(ctx) {
      const provider = ctx.args.provider as (typeof PROVIDERS)[number];
      const checked = await call(
        (await ctx.api()).raw.POST('/v1/settings/providers/{provider}/verify', { params: { path: { provider } } }),
      );
      ctx.out.print(
        checked,
        () =>
          `${checked.provider}: ${checked.valid ? 'valid' : 'invalid'} (${checked.status})${
            checked.message ? `: ${checked.message}` : ''
          }\n`,
      );
      if (!checked.valid) return 5;
    },
  },
  {
    path: ['providers', 'disconnect'],
    summary: 'disconnect a provider key (its stored ciphertext is deleted)',
    args: PROVIDER_ARG,
    examples: ['providers disconnect vastai'],
    async run(ctx) {
      const provider = ctx.args.provider as (typeof PROVIDERS)[number];
      const answer = await call(
        (await ctx.api()).raw.DELETE('/v1/settings/providers/{provider}', { params: { path: { provider } } }),
      );
      ctx.out.print(answer, () => `disconnected ${provider}\n`);
    },
  },
];
