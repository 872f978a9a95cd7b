/** Schedules: scheduled GPU jobs firing on a cron, their runs, and pausing, resuming and triggering them. */
import { call, type GpuoClient } from '../api';
import { record, UsageError } from '../output';
import type { CommandSpec, Context, OptionSpec } from '../spec';
import { ID, idleStop, num, str } from './input';
import { deleted, money, PAGE_OPTIONS, printPaged, type Row } from './render';

const SCHEDULE_COLUMNS = ['id', 'name', 'gpu', 'template', 'cron', 'status', 'next_run_at', 'last_run_at'];
const printSchedule = (ctx: Context, s: Row) => ctx.out.print(s, () => record(s));

const scheduleOptions = (required: boolean): Record<string, OptionSpec> => ({
  name: { type: 'string', value: '<name>', description: 'the schedule’s name', required },
  gpu: { type: 'string', value: '<type>', description: 'GPU type slug', required },
  template: { type: 'string', value: '<slug>', description: 'launch template (see `gpuo templates`)', required },
  cron: { type: 'string', value: '<cron>', description: 'five-field cron, UTC (quote it: "0 2 * * *")', required },
  'max-hours': { type: 'string', value: '<hours>', description: 'end each run after this long' },
  'max-cost': { type: 'string', value: '<dollars>', description: 'end each run when it has cost this much' },
  'prefer-spot': {
    type: 'string',
    choices: ['true', 'false'],
    description: 'take a spot offer when it is the cheapest (the API’s default: true)',
  },
  image: { type: 'string', value: '<image>', description: 'Docker image (default: the template’s)' },
  'startup-script': { type: 'string', value: '<script>', description: 'run when the instance starts' },
  'idle-below': {
    type: 'string',
    value: '<percent>',
    description: 'stop a run when every GPU is below this utilization…',
  },
  'idle-minutes': { type: 'string', value: '<minutes>', description: '…for this many minutes' },
});

function scheduleBody(ctx: Context) {
  return {
    ...(str(ctx, 'name') !== undefined ? { name: str(ctx, 'name') } : {}),
    ...(str(ctx, 'gpu') !== undefined ? { gpu: str(ctx, 'gpu') } : {}),
    ...(str(ctx, 'template') !== undefined ? { template: str(ctx, 'template') } : {}),
    ...(str(ctx, 'cron') !== undefined ? { cron: str(ctx, 'cron') } : {}),
    ...(str(ctx, 'max-hours') !== undefined ? { max_duration_hours: num(ctx, 'max-hours') } : {}),
    ...(str(ctx, 'max-cost') !== undefined ? { max_cost: num(ctx, 'max-cost') } : {}),
    ...(str(ctx, 'prefer-spot') !== undefined ? { prefer_spot: str(ctx, 'prefer-spot') === 'true' } : {}),
    ...(str(ctx, 'image') !== undefined ? { docker_image: str(ctx, 'image') } : {}),
    ...(str(ctx, 'startup-script') !== undefined ? { startup_script: str(ctx, 'startup-script') } : {}),
    ...idleStop(ctx),
  };
}

export const SCHEDULE_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['schedules', 'ls'],
    summary: 'scheduled jobs, newest first',
    options: PAGE_OPTIONS,
    examples: ['schedules ls'],
    async run(ctx) {
      const sdk = await ctx.api();
      await printPaged(ctx, (query) => call(sdk.raw.GET('/v1/schedules', { params: { query } })), SCHEDULE_COLUMNS);
    },
  },
  {
    path: ['schedules', 'show'],
    summary: 'one schedule',
    args: ID,
    examples: ['schedules show sch_123'],
    async run(ctx) {
      printSchedule(
        ctx,
        await call((await ctx.api()).raw.GET('/v1/schedules/{id}', { params: { path: { id: ctx.args.id! } } })),
      );
    },
  },
  {
    path: ['schedules', 'create'],
    summary: 'create a scheduled GPU job firing on a five-field UTC cron',
    options: scheduleOptions(true),
    examples: ["schedules create --name nightly --gpu rtx-a6000 --template pytorch --cron '0 2 * * *' --max-hours 2"],
    async run(ctx) {
      const body = scheduleBody(ctx) as Parameters<GpuoClient['createSchedule']>[0];
      printSchedule(ctx, await call((await ctx.api()).raw.POST('/v1/schedules', { body })));
    },
  },
  {
    path: ['schedules', 'update'],
    summary: 'change any field of a schedule',
    args: ID,
    options: scheduleOptions(false),
    examples: ['schedules update sch_123 --max-cost 5'],
    async run(ctx) {
      const body = scheduleBody(ctx);
      if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give at least one option');
      printSchedule(
        ctx,
        await call((await ctx.api()).raw.PUT('/v1/schedules/{id}', { params: { path: { id: ctx.args.id! } }, body })),
      );
    },
  },
  ...(['pause', 'resume'] as const).map((verb): CommandSpec => ({
    path: ['schedules', verb],
    summary: verb === 'pause' ? 'pause a schedule (it stops firing; a live run goes on)' : 'resume a paused schedule',
    args: ID,
    examples: [`schedules ${verb} sch_123`],
    async run(ctx) {
      const status = verb === 'pause' ? 'paused' : 'active';
      const s = await call(
        (await ctx.api()).raw.PUT('/v1/schedules/{id}', { params: { path: { id: ctx.args.id! } }, body: { status } }),
      );
      ctx.out.print(s, () => `${s.id} ${s.status}${s.next_run_at ? `, next run ${s.next_run_at}` : ''}\n`);
    },
  })),
  {
    path: ['schedules', 'trigger'],
    summary: 'start a run now (a run still live makes it skipped)',
    args: ID,
    examples: ['schedules trigger sch_123'],
    async run(ctx) {
      const t = await call(
        (await ctx.api()).raw.POST('/v1/schedules/{id}/trigger', { params: { path: { id: ctx.args.id! } } }),
      );
      ctx.out.print(t, () => `triggered ${t.schedule_id} at ${t.triggered_at}\n`);
    },
  },
  {
    path: ['schedules', 'runs'],
    summary: 'a schedule’s run history, newest first',
    args: ID,
    options: PAGE_OPTIONS,
    examples: ['schedules runs sch_123 --limit 10'],
    async run(ctx) {
      const sdk = await ctx.api();
      const id = ctx.args.id!;
      await printPaged(
        ctx,
        (query) => call(sdk.raw.GET('/v1/schedules/{id}/runs', { params: { path: { id }, query } })),
        // The run's job (`gpuo jobs show <job_id>`, `gpuo jobs logs <job_id>`) and its script's exit code.
        [
          'id',
          'status',
          'exit_code',
          'scheduled_at',
          'provider',
          'instance_id',
          'cost',
          'job_id',
          'stop_reason',
          'error',
        ],
        (r) => ({
          ...r,
          cost: money(r.cost),
        }),
      );
    },
  },
  {
    path: ['schedules', 'rm'],
    summary: 'delete a schedule (a live run ends, its instance terminated)',
    args: ID,
    examples: ['schedules rm sch_123'],
    async run(ctx) {
      deleted(
        ctx,
        'schedule',
        await call((await ctx.api()).raw.DELETE('/v1/schedules/{id}', { params: { path: { id: ctx.args.id! } } })),
      );
    },
  },
];
