/** Webhooks: endpoints, their signing secrets, test events and delivery logs. */
import { call } from '../api';
import { record, UsageError } from '../output';
import type { CommandSpec } from '../spec';
import { ID, list, readInput, str } from './input';
import { deleted, PAGE_OPTIONS, printPaged } from './render';

const WEBHOOK_COLUMNS = ['id', 'url', 'events', 'active', 'created_at'];

export const WEBHOOK_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['webhooks', 'ls'],
    summary: 'webhook endpoints (no secrets)',
    options: PAGE_OPTIONS,
    examples: ['webhooks ls'],
    async run(ctx) {
      const sdk = await ctx.api();
      await printPaged(ctx, (query) => call(sdk.raw.GET('/v1/webhooks', { params: { query } })), WEBHOOK_COLUMNS);
    },
  },
  {
    path: ['webhooks', 'show'],
    summary: 'one webhook endpoint',
    args: ID,
    examples: ['webhooks show wh_123'],
    async run(ctx) {
      const w = await call((await ctx.api()).raw.GET('/v1/webhooks/{id}', { params: { path: { id: ctx.args.id! } } }));
      ctx.out.print(w, () => record(w));
    },
  },
  {
    path: ['webhooks', 'create'],
    summary: 'register an endpoint; the signing secret is shown only now (or give your own from a file)',
    options: {
      url: { type: 'string', value: '<https URL>', description: 'where events are POSTed', required: true },
      events: {
        type: 'string',
        value: '<type,type|*>',
        description: 'event types (see `gpuo events --help`)',
        required: true,
      },
      'secret-file': {
        type: 'string',
        value: '<file>',
        description: 'your own signing secret (whsec_…) from a file, `-` for stdin',
      },
    },
    examples: ['webhooks create --url https://example.com/hooks --events instance.started,instance.terminated'],
    async run(ctx) {
      const body = {
        url: str(ctx, 'url')!,
        events: list(str(ctx, 'events')!),
        ...(str(ctx, 'secret-file') ? { secret: await readInput(ctx, 'secret-file', 'signing secret') } : {}),
      };
      const created = await call((await ctx.api()).raw.POST('/v1/webhooks', { body: body as never }));
      ctx.out.print(created, () => record(created, ['id', 'url', 'events', 'active', 'secret']));
    },
  },
  {
    path: ['webhooks', 'update'],
    summary: 'change an endpoint’s url, events or secret, or turn it off and on',
    args: ID,
    options: {
      url: { type: 'string', value: '<https URL>', description: 'a new URL' },
      events: { type: 'string', value: '<type,type|*>', description: 'the new event types' },
      'secret-file': {
        type: 'string',
        value: '<file>',
        description: 'a new signing secret from a file, `-` for stdin',
      },
      active: { type: 'string', choices: ['true', 'false'], description: 'deliver to it (true) or not (false)' },
    },
    examples: ['webhooks update wh_123 --active false'],
    async run(ctx) {
      const body = {
        ...(str(ctx, 'url') ? { url: str(ctx, 'url') } : {}),
        ...(str(ctx, 'events') ? { events: list(str(ctx, 'events')!) } : {}),
        ...(str(ctx, 'secret-file') ? { secret: await readInput(ctx, 'secret-file', 'signing secret') } : {}),
        ...(str(ctx, 'active') ? { active: str(ctx, 'active') === 'true' } : {}),
      };
      if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give at least one option');
      const w = await call(
        (await ctx.api()).raw.PUT('/v1/webhooks/{id}', { params: { path: { id: ctx.args.id! } }, body: body as never }),
      );
      ctx.out.print(w, () => record(w));
    },
  },
  {
    path: ['webhooks', 'rm'],
    summary: 'delete an endpoint (its pending retries stop, its delivery log goes)',
    args: ID,
    examples: ['webhooks rm wh_123'],
    async run(ctx) {
      deleted(
        ctx,
        'webhook',
        await call((await ctx.api()).raw.DELETE('/v1/webhooks/{id}', { params: { path: { id: ctx.args.id! } } })),
      );
    },
  },
  {
    path: ['webhooks', 'test'],
    summary: 'send a webhook.test event to an endpoint',
    args: ID,
    examples: ['webhooks test wh_123'],
    async run(ctx) {
      const e = await call(
        (await ctx.api()).raw.POST('/v1/webhooks/{id}/test', { params: { path: { id: ctx.args.id! } } }),
      );
      ctx.out.print(
        e,
        () => `sent ${e.type} event ${e.id} (\`gpuo webhooks deliveries ${ctx.args.id}\` shows the delivery)\n`,
      );
    },
  },
  {
    path: ['webhooks', 'deliveries'],
    summary: 'an endpoint’s delivery log: each delivery with its event, status and attempts',
    args: ID,
    options: {
      status: { type: 'string', choices: ['pending', 'succeeded', 'failed', 'cancelled'], description: 'only these' },
      ...PAGE_OPTIONS,
    },
    examples: ['webhooks deliveries wh_123 --status failed'],
    async run(ctx) {
      const sdk = await ctx.api();
      const id = ctx.args.id!;
      const status = str(ctx, 'status') as 'pending' | 'succeeded' | 'failed' | 'cancelled' | undefined;
      await printPaged(
        ctx,
        (query) =>
          call(
            sdk.raw.GET('/v1/webhooks/{id}/deliveries', {
              params: { path: { id }, query: { ...query, ...(status ? { status } : {}) } },
            }),
          ),
        ['id', 'event_type', 'status', 'attempt_count', 'last_response', 'next_attempt_at', 'created_at'],
        (d) => {
          const attempts = (d.attempts as { status_code?: number | null; error?: string | null }[] | undefined) ?? [];
          const last = attempts[attempts.length - 1];
          return {
            ...d,
            event_type: (d.event as { type?: string } | undefined)?.type,
            last_response: last ? (last.status_code ?? last.error ?? '-') : '-',
          };
        },
      );
    },
  },
  {
    path: ['webhooks', 'retry'],
    summary: 'redeliver a delivery now, with the same webhook-id',
    args: [
      { name: 'id', required: true },
      { name: 'delivery id', required: true },
    ],
    examples: ['webhooks retry wh_123 dlv_456'],
    async run(ctx) {
      const d = await call(
        (await ctx.api()).raw.POST('/v1/webhooks/{id}/deliveries/{delivery_id}/retry', {
          params: { path: { id: ctx.args.id!, delivery_id: ctx.args['delivery id']! } },
        }),
      );
      ctx.out.print(d, () => `delivery ${d.id}: ${d.status} (${d.attempt_count} attempts)\n`);
    },
  },
];
