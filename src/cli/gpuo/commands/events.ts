/** Events: the account's events, what webhooks deliver. */
import { call } from '../api';
import type { CommandSpec } from '../spec';
import { str } from './input';
import { PAGE_OPTIONS, printPaged } from './render';

export const EVENT_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['events'],
    summary: 'the account’s events (what webhooks deliver), newest first',
    options: {
      type: { type: 'string', value: '<event type>', description: 'only this type (e.g. instance.started)' },
      ...PAGE_OPTIONS,
    },
    examples: ['events --type instance.started --limit 20'],
    async run(ctx) {
      const sdk = await ctx.api();
      const type = str(ctx, 'type');
      await printPaged(
        ctx,
        (query) =>
          call(
            sdk.raw.GET('/v1/events', { params: { query: { ...query, ...(type ? { type: type as never } : {}) } } }),
          ),
        ['id', 'type', 'created_at', 'data'],
      );
    },
  },
];
