/** Alerts: price drops and budget limits. */
import { call } from '../api';
import { record, UsageError } from '../output';
import type { CommandSpec } from '../spec';
import { ID, num, str } from './input';
import { deleted, money, PAGE_OPTIONS, printPaged } from './render';

export const ALERT_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['alerts', 'ls'],
    summary: 'price-drop and budget alerts, newest first',
    options: {
      status: { type: 'string', choices: ['active', 'triggered'], description: 'only these' },
      ...PAGE_OPTIONS,
    },
    examples: ['alerts ls --status active'],
    async run(ctx) {
      const sdk = await ctx.api();
      const status = str(ctx, 'status') as 'active' | 'triggered' | undefined;
      await printPaged(
        ctx,
        (query) => call(sdk.raw.GET('/v1/alerts', { params: { query: { ...query, ...(status ? { status } : {}) } } })),
        ['id', 'type', 'action', 'status', 'gpu_type', 'threshold', 'current_value', 'triggered_at'],
        (a) => ({ ...a, threshold: money(a.threshold_price ?? a.threshold_dollars) }),
      );
    },
  },
  {
    path: ['alerts', 'create'],
    summary: 'alert when a GPU type’s price drops to a threshold, or when this month’s spend reaches one',
    options: {
      type: { type: 'string', choices: ['price_drop', 'budget_limit'], description: 'which alert', required: true },
      threshold: {
        type: 'string',
        value: '<dollars>',
        description: 'price_drop: $/GPU/h at or below; budget_limit: $ spent this UTC month',
        required: true,
      },
      gpu: { type: 'string', value: '<type>', description: 'the GPU type (price_drop)' },
      action: {
        type: 'string',
        choices: ['notify', 'stop_instances'],
        description: 'budget_limit: also stop the running instances (default notify)',
      },
    },
    examples: [
      'alerts create --type price_drop --gpu rtx-a6000 --threshold 0.3',
      'alerts create --type budget_limit --threshold 100 --action stop_instances',
    ],
    async run(ctx) {
      const threshold = num(ctx, 'threshold')!;
      const action = str(ctx, 'action') as 'notify' | 'stop_instances' | undefined;
      let body;
      if (str(ctx, 'type') === 'price_drop') {
        if (!str(ctx, 'gpu')) throw new UsageError('a price_drop alert needs --gpu <type>');
        if (action === 'stop_instances') throw new UsageError('a price_drop alert only notifies');
        body = { type: 'price_drop' as const, gpu_type: str(ctx, 'gpu')!, threshold_price: threshold };
      } else {
        if (str(ctx, 'gpu')) throw new UsageError('a budget_limit alert takes no --gpu');
        body = { type: 'budget_limit' as const, threshold_dollars: threshold, ...(action ? { action } : {}) };
      }
      const created = await call((await ctx.api()).raw.POST('/v1/alerts', { body }));
      ctx.out.print(created, () =>
        record(created, ['id', 'type', 'action', 'status', 'gpu_type', 'threshold_price', 'threshold_dollars']),
      );
    },
  },
  {
    path: ['alerts', 'rm'],
    summary: 'delete an alert',
    args: ID,
    examples: ['alerts rm alrt_123'],
    async run(ctx) {
      deleted(
        ctx,
        'alert',
        await call((await ctx.api()).raw.DELETE('/v1/alerts/{id}', { params: { path: { id: ctx.args.id! } } })),
      );
    },
  },
];
