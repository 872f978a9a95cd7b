/** SSH keys: the account's public keys and which one is the default. */
import { call } from '../api';
import { record } from '../output';
import type { CommandSpec } from '../spec';
import { ID, readInput, str } from './input';
import { deleted, PAGE_OPTIONS, printPaged } from './render';

export const SSH_KEY_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['ssh-keys', 'ls'],
    summary: 'the account’s SSH public keys, newest first',
    options: PAGE_OPTIONS,
    examples: ['ssh-keys ls'],
    async run(ctx) {
      const sdk = await ctx.api();
      await printPaged(ctx, (query) => call(sdk.raw.GET('/v1/ssh-keys', { params: { query } })), [
        'id',
        'name',
        'key_type',
        'fingerprint',
        'is_default',
        'created_at',
      ]);
    },
  },
  {
    path: ['ssh-keys', 'add'],
    summary: 'add an SSH public key from a file, or from stdin (the first key becomes the default)',
    options: {
      name: { type: 'string', value: '<name>', description: 'what to call it', required: true },
      file: { type: 'string', value: '<file>', description: 'the public key file (default: stdin)' },
    },
    examples: ['ssh-keys add --name laptop'],
    async run(ctx) {
      const publicKey = await readInput(ctx, 'file', 'SSH public key');
      const added = await call(
        (await ctx.api()).raw.POST('/v1/ssh-keys', { body: { name: str(ctx, 'name')!, public_key: publicKey } }),
      );
      ctx.out.print(added, () => record(added, ['id', 'name', 'key_type', 'fingerprint', 'is_default']));
    },
  },
  {
    path: ['ssh-keys', 'default'],
    summary: 'make a key the default attached to every new instance',
    args: ID,
    examples: ['ssh-keys default key_123'],
    async run(ctx) {
      const key = await call(
        (await ctx.api()).raw.PUT('/v1/ssh-keys/{id}/default', { params: { path: { id: ctx.args.id! } } }),
      );
      ctx.out.print(key, () => `default SSH key: ${key.name} (${key.id})\n`);
    },
  },
  {
    path: ['ssh-keys', 'rm'],
    summary: 'delete an SSH key (deleting the default makes the newest remaining key the default)',
    args: ID,
    examples: ['ssh-keys rm key_123'],
    async run(ctx) {
      deleted(
        ctx,
        'SSH key',
        await call((await ctx.api()).raw.DELETE('/v1/ssh-keys/{id}', { params: { path: { id: ctx.args.id! } } })),
      );
    },
  },
];
