/** API keys: scopes, spend caps, creating and revoking. */
import { call } from '../api';
import { record, table, UsageError } from '../output';
import type { CommandSpec } from '../spec';
import { ID, list, str } from './input';
import { type Row } from './render';

const SCOPES =
  'read, compute:write, schedules:write, alerts:write, webhooks:write, settings:write, billing:write, keys:admin';

const keyRow = (k: Row) => ({
  ...k,
  spend_limit: k.spend_limit
    ? `$${(k.spend_limit as { amount: number }).amount}/${(k.spend_limit as { period: string }).period}`
    : '-',
});
const KEY_COLUMNS = [
  'id',
  'name',
  'key_prefix',
  'scopes',
  'spend_limit',
  'spend_in_period',
  'last_used_at',
  'expires_at',
];

export const API_KEY_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['keys', 'ls'],
    summary: 'the account’s live API keys (never the secret)',
    examples: ['keys ls'],
    async run(ctx) {
      const listed = await (await ctx.api()).apiKeys();
      ctx.out.print(listed, () => table(listed.data.map(keyRow), KEY_COLUMNS));
    },
  },
  {
    path: ['keys', 'current'],
    summary: 'the key in use: its scopes, cap and spend',
    examples: ['keys current'],
    async run(ctx) {
      const key = await call((await ctx.api()).raw.GET('/v1/api-keys/current'));
      ctx.out.print(key, () => record(keyRow(key), KEY_COLUMNS));
    },
  },
  {
    path: ['keys', 'create'],
    summary: 'create an API key with scopes and an optional spend cap (shown once)',
    options: {
      name: { type: 'string', value: '<name>', description: 'what it is for', required: true },
      scopes: { type: 'string', value: '<scope,scope>', description: `of ${SCOPES}`, required: true },
      cap: { type: 'string', value: '<dollars/day|month>', description: 'a spend cap, e.g. 5/day or 100/month' },
      expires: { type: 'string', value: '<ISO date>', description: 'when it stops working' },
    },
    examples: ['keys create --name ci --scopes read,compute:write --cap 20/month'],
    async run(ctx) {
      const capText = str(ctx, 'cap');
      const cap = capText ? /^(\d+(?:\.\d{1,2})?)\/(day|month)$/.exec(capText) : null;
      if (capText && !cap) throw new UsageError('--cap looks like 5/day or 100/month');
      const expires = str(ctx, 'expires');
      if (expires && Number.isNaN(Date.parse(expires)))
        throw new UsageError(`--expires must be a date (got ${JSON.stringify(expires)})`);
      const created = await (
        await ctx.api()
      ).createApiKey({
        name: str(ctx, 'name')!,
        scopes: list(str(ctx, 'scopes')!) as never,
        ...(cap ? { spend_limit: { amount: Number(cap[1]), period: cap[2] as 'day' | 'month' } } : {}),
        ...(expires ? { expires_at: new Date(expires).toISOString() } : {}),
      });
      ctx.out.print(
        created,
        () => `created ${created.id} (${created.scopes.join(', ')}); the key, shown only now:\n${created.api_key}\n`,
      );
    },
  },
  {
    path: ['keys', 'revoke'],
    summary: 'revoke an API key (its next request is refused)',
    args: ID,
    examples: ['keys revoke key_123'],
    async run(ctx) {
      const revoked = await (await ctx.api()).revokeApiKey(ctx.args.id!);
      ctx.out.print(revoked, () => `revoked ${revoked.id}\n`);
    },
  },
];
