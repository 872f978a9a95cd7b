/** Jobs: a command run on the cheapest admitted GPU until it exits. */
import { readFile } from 'node:fs/promises';
import { call } from '../api';
import { record, table, UsageError } from '../output';
import type { CommandSpec } from '../spec';
import { ID, list, num, str } from './input';
import { following, LOG_OPTIONS, logQuery, printFollow, printTail } from './logs';
import { money, PAGE_OPTIONS, printPaged, type Row } from './render';

export const JOB_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['jobs', 'run'],
    summary: 'run a command on the cheapest admitted GPU until it exits (relaunched after a preemption)',
    rest: 'command',
    options: {
      gpu: { type: 'string', value: '<slug>', description: 'GPU type (gpuo prices lists them)', required: true },
      'gpu-count': { type: 'string', value: '<n>', description: 'GPUs per instance (default 1)' },
      template: { type: 'string', value: '<slug>', description: 'a template’s image (or --image)' },
      image: { type: 'string', value: '<ref>', description: 'a docker image (or --template)' },
      name: { type: 'string', value: '<name>', description: 'a name for the job' },
      providers: {
        type: 'string',
        value: '<list>',
        description: 'allowed providers, comma-separated (default every connected one)',
      },
      'spot-policy': {
        type: 'string',
        value: '<policy>',
        choices: ['spot', 'on-demand', 'auto'],
        description: 'auto (default): spot first where sold',
      },
      'max-price': { type: 'string', value: '<dollars>', description: 'highest hourly price of an attempt' },
      'max-cost': { type: 'string', value: '<dollars>', description: 'the whole job’s budget, every attempt together' },
      'max-hours': { type: 'string', value: '<hours>', description: 'longest run of one attempt' },
      'env-file': {
        type: 'string',
        value: '<file>',
        description: 'NAME=value lines given to the command (sealed; never shown again)',
      },
      'retry-on': {
        type: 'string',
        value: '<list>',
        description: 'no_capacity,preemption,error (default no_capacity,preemption)',
      },
      'max-attempts': { type: 'string', value: '<n>', description: 'attempts in all (default 3)' },
      within: { type: 'string', value: '<duration>', description: 'retry for this long, e.g. 2h (the default)' },
      'on-demand-after': {
        type: 'string',
        value: '<n>',
        description: 'preemptions after which only on-demand offers are used',
      },
    },
    examples: ['jobs run --gpu rtx-4090 --template pytorch -- python train.py --epochs 3'],
    async run(ctx) {
      const command = ctx.rest.join(' ').trim();
      if (!command)
        throw new UsageError(
          'the command to run goes after --: gpuo jobs run --gpu rtx-4090 --template pytorch -- python train.py',
        );
      let env: Record<string, string> | undefined;
      const envFile = str(ctx, 'env-file');
      if (envFile) {
        env = {};
        for (const line of (await readFile(envFile, 'utf8')).split('\n')) {
          const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
          if (m) env[m[1]!] = m[2]!;
        }
      }
      const retryOn = str(ctx, 'retry-on');
      const retry = {
        ...(retryOn ? { on: list(retryOn) } : {}),
        ...(str(ctx, 'max-attempts') ? { max_attempts: num(ctx, 'max-attempts', { integer: true }) } : {}),
        ...(str(ctx, 'within') ? { within: str(ctx, 'within') } : {}),
        ...(str(ctx, 'on-demand-after')
          ? { on_demand_after_preemptions: num(ctx, 'on-demand-after', { integer: true }) }
          : {}),
      };
      const body: Row = {
        gpu: str(ctx, 'gpu')!,
        command,
        ...(str(ctx, 'gpu-count') ? { gpu_count: num(ctx, 'gpu-count', { integer: true }) } : {}),
        ...(str(ctx, 'template') ? { template: str(ctx, 'template') } : {}),
        ...(str(ctx, 'image') ? { docker_image: str(ctx, 'image') } : {}),
        ...(str(ctx, 'name') ? { name: str(ctx, 'name') } : {}),
        ...(str(ctx, 'providers') ? { providers: list(str(ctx, 'providers')!) } : {}),
        ...(str(ctx, 'spot-policy') ? { spot_policy: str(ctx, 'spot-policy') } : {}),
        ...(str(ctx, 'max-price') ? { max_price_per_hour: num(ctx, 'max-price') } : {}),
        ...(str(ctx, 'max-cost') ? { max_cost: num(ctx, 'max-cost') } : {}),
        ...(str(ctx, 'max-hours') ? { max_duration_hours: num(ctx, 'max-hours') } : {}),
        ...(env ? { env } : {}),
        ...(Object.keys(retry).length ? { retry } : {}),
      };
      // The API checks every field and names the one it refuses.
      const job = await call((await ctx.api()).raw.POST('/v1/jobs', { body: body as never }));
      ctx.out.print(job, () =>
        record(job as Row, ['id', 'name', 'status', 'gpu', 'command', 'providers', 'spot_policy', 'max_cost']),
      );
    },
  },
  {
    path: ['jobs', 'ls'],
    summary: 'jobs, newest first (--status filters)',
    options: {
      ...PAGE_OPTIONS,
      status: {
        type: 'string',
        value: '<status>',
        choices: ['pending', 'running', 'retrying', 'succeeded', 'failed', 'cancelled'],
        description: 'only jobs in this status',
      },
    },
    examples: ['jobs ls', 'jobs ls --status failed'],
    async run(ctx) {
      const sdk = await ctx.api();
      const status = str(ctx, 'status') as 'pending' | undefined;
      await printPaged(
        ctx,
        (query) => call(sdk.raw.GET('/v1/jobs', { params: { query: { ...query, ...(status ? { status } : {}) } } })),
        ['id', 'name', 'status', 'gpu', 'exit_code', 'cost', 'created_at'],
        (r) => ({ ...r, cost: money(r.cost) }),
      );
    },
  },
  {
    path: ['jobs', 'show'],
    summary: 'one job with its attempts',
    args: ID,
    examples: ['jobs show job_123'],
    async run(ctx) {
      const job = await call((await ctx.api()).raw.GET('/v1/jobs/{id}', { params: { path: { id: ctx.args.id! } } }));
      ctx.out.print(job, () => {
        const attempts = (job.attempts ?? []) as Row[];
        const head = record(job as Row, [
          'id',
          'name',
          'status',
          'exit_code',
          'error',
          'cost',
          'gpu',
          'command',
          'created_at',
          'ended_at',
        ]);
        const rows = attempts.map((a) => ({ ...a, price_per_hour: money(a.price_per_hour), cost: money(a.cost) }));
        const columns = ['n', 'provider', 'spot', 'instance_id', 'price_per_hour', 'started_at', 'ended_at'];
        return `${head}\n${table(rows, [...columns, 'end_reason', 'exit_code', 'cost'])}`;
      });
    },
  },
  {
    path: ['jobs', 'logs'],
    summary: 'an attempt’s output (the latest unless --attempt); -f follows it until it ends',
    args: ID,
    options: {
      ...LOG_OPTIONS,
      attempt: { type: 'string', value: '<n>', description: 'the attempt number (default the latest)' },
    },
    examples: ['jobs logs job_123', 'jobs logs job_123 -f', 'jobs logs job_123 --attempt 1 --tail 20'],
    async run(ctx) {
      const sdk = await ctx.api();
      const attempt = num(ctx, 'attempt', { integer: true });
      const query = { ...logQuery(ctx), ...(attempt === undefined ? {} : { attempt }) };
      if (following(ctx)) await printFollow(ctx, `job ${ctx.args.id}`, sdk.followJobLogs(ctx.args.id!, query));
      else printTail(ctx, await sdk.jobLogs(ctx.args.id!, query));
    },
  },
  {
    path: ['jobs', 'cancel'],
    summary: 'cancel a job (its live attempt’s instance is terminated)',
    args: ID,
    examples: ['jobs cancel job_123'],
    async run(ctx) {
      const job = await call(
        (await ctx.api()).raw.POST('/v1/jobs/{id}/cancel', { params: { path: { id: ctx.args.id! } } }),
      );
      ctx.out.print(job, () => `${job.id}: cancel sent\n`);
    },
  },
];
