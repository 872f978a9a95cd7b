/** The account's limits, each with its current use. */
import { call } from '../api';
import { table } from '../output';
import type { CommandSpec } from '../spec';

export const LIMIT_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['limits'],
    summary: 'the account’s limits, each with its current use',
    examples: ['limits'],
    async run(ctx) {
      const listed = await call((await ctx.api()).raw.GET('/v1/limits'));
      ctx.out.print(listed, () => table(listed.data, ['name', 'limit', 'used', 'description']));
    },
  },
];
