/**
 * Compute: plan, launch, list, stop, start, terminate and ssh into instances, and the instance as a record
 * (one instance with its timeline and cost, and the ended ones).
 */
import { spawn } from 'node:child_process';
import { type LaunchBody, type PlanBody } from '../../../../sdk/src';
import { call, type GpuoClient } from '../api';
import { record, RefusedError, table, UsageError } from '../output';
import type { CommandSpec, Context, OptionSpec } from '../spec';
import { flag, idleStop, num, PROVIDERS, str } from './input';
import { following, LOG_OPTIONS, logQuery, printFollow, printTail } from './logs';
import { money, PAGE_OPTIONS, printPaged, type Row } from './render';

/** An instance as launch, stop and terminate answer it (the list's records add `observed_at` and more). */
type Instance = Awaited<ReturnType<GpuoClient['launch']>>;
const instanceRow = (i: Row) => ({ ...i, price_per_hour: money(i.price_per_hour) });
const INSTANCE_COLUMNS = ['id', 'provider', 'name', 'status', 'gpu_type', 'gpu_count', 'price_per_hour', 'public_ip'];
const printInstance = (ctx: Context, instance: Row) =>
  ctx.out.print(instance, () => table([instanceRow(instance)], INSTANCE_COLUMNS));

const LAUNCH_OPTIONS: Record<string, OptionSpec> = {
  provider: { type: 'string', choices: PROVIDERS, description: 'where to launch', required: true },
  gpu: { type: 'string', value: '<type>', description: 'GPU type slug (see `gpuo prices`)', required: true },
  count: { type: 'string', value: '<n>', description: 'GPUs, 1-8 (default 1)' },
  spot: { type: 'boolean', description: 'spot (interruptible) pricing' },
  region: { type: 'string', value: '<region>', description: 'the provider’s region' },
  name: { type: 'string', value: '<name>', description: 'a name for the instance' },
  image: { type: 'string', value: '<image>', description: 'Docker image' },
  'volume-gb': { type: 'string', value: '<GB>', description: 'persistent volume size' },
  'disk-gb': { type: 'string', value: '<GB>', description: 'container disk size' },
  'ssh-key': {
    type: 'string',
    value: '<name>',
    description: 'the SSH key to attach (default: the account’s default key)',
  },
  onstart: {
    type: 'string',
    value: '<command>',
    description: 'a command run when the instance starts (runpod, vastai)',
  },
  'idle-below': { type: 'string', value: '<percent>', description: 'stop when every GPU is below this utilization…' },
  'idle-minutes': { type: 'string', value: '<minutes>', description: '…for this many minutes' },
};

/** The launch body from the flags (the API checks it; only what a person could not mean is refused here). */
function launchBody(ctx: Context): LaunchBody {
  return {
    provider: str(ctx, 'provider') as LaunchBody['provider'],
    gpu_type: str(ctx, 'gpu')!,
    gpu_count: num(ctx, 'count', { integer: true }) ?? 1,
    spot: flag(ctx, 'spot'),
    ...(str(ctx, 'region') ? { region: str(ctx, 'region') } : {}),
    ...(str(ctx, 'name') ? { name: str(ctx, 'name') } : {}),
    ...(str(ctx, 'image') ? { docker_image: str(ctx, 'image') } : {}),
    ...(str(ctx, 'volume-gb') ? { volume_gb: num(ctx, 'volume-gb', { integer: true }) } : {}),
    ...(str(ctx, 'disk-gb') ? { disk_gb: num(ctx, 'disk-gb', { integer: true }) } : {}),
    ...(str(ctx, 'ssh-key') ? { ssh_key_name: str(ctx, 'ssh-key') } : {}),
    ...(str(ctx, 'onstart') ? { onstart_cmd: str(ctx, 'onstart') } : {}),
    ...idleStop(ctx),
  };
}

const INSTANCE = [{ name: 'instance id', required: true }] as const;

/** Shell-quotes one word for the printed ssh command. */
const shellWord = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

export const COMPUTE_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['plan'],
    summary: 'what a launch would cost and whether it would be admitted (creates nothing)',
    options: {
      ...LAUNCH_OPTIONS,
      provider: {
        ...LAUNCH_OPTIONS.provider!,
        required: false,
        description: 'plan this launch (without: ranked candidates across providers)',
      },
      'max-price': {
        type: 'string',
        value: '<$/h>',
        description: 'leave out candidates above this price (without --provider)',
      },
    },
    examples: ['plan --gpu rtx-a6000', 'plan --provider runpod --gpu rtx-a6000 --count 2'],
    async run(ctx) {
      const body: PlanBody = str(ctx, 'provider')
        ? launchBody(ctx)
        : {
            gpu_type: str(ctx, 'gpu')!,
            gpu_count: num(ctx, 'count', { integer: true }) ?? 1,
            spot: flag(ctx, 'spot'),
            ...(str(ctx, 'max-price') ? { max_price_per_hour: num(ctx, 'max-price')! } : {}),
          };
      const planned = (await (await ctx.api()).plan(body)) as Row & { candidates?: Row[] };
      const rows = (planned.candidates ?? [planned]).map((c) => ({
        ...c,
        price_per_hour: money(c.price_per_hour),
        verdict: c.admitted
          ? 'admitted'
          : `refused: ${(c.refusal as { code: string }).code}: ${(c.refusal as { message: string }).message}`,
      }));
      ctx.out.print(planned, () =>
        table(rows, [
          'provider',
          'gpu_type',
          'gpu_count',
          'spot',
          'region',
          'price_per_hour',
          'availability',
          'verdict',
        ]),
      );
    },
  },
  {
    path: ['launch'],
    summary: 'launch a GPU instance (with an Idempotency-Key); --wait until it runs',
    options: {
      ...LAUNCH_OPTIONS,
      wait: { type: 'boolean', description: 'wait until it is running (progress on stderr)' },
      timeout: { type: 'string', value: '<seconds>', description: 'how long --wait waits (default 600)' },
    },
    examples: ['launch --provider runpod --gpu rtx-a6000 --wait'],
    async run(ctx) {
      const sdk = await ctx.api();
      const timeout = num(ctx, 'timeout') ?? 600;
      let instance: Instance = await sdk.launch(launchBody(ctx));
      ctx.out.progress(`launched ${instance.id} on ${instance.provider} at ${money(instance.price_per_hour)}/h`);
      if (flag(ctx, 'wait')) {
        const deadline = Date.now() + timeout * 1000;
        while (instance.status !== 'running') {
          if (['failed', 'terminated', 'stopped'].includes(instance.status))
            throw new Error(`instance ${instance.id} ended as ${instance.status} before running`);
          if (Date.now() > deadline)
            throw new Error(`instance ${instance.id} was not running within --timeout (status ${instance.status})`);
          ctx.out.progress('.');
          await new Promise((r) => setTimeout(r, 1000));
          instance = (await sdk.instances()).data.find((i) => i.id === instance.id) ?? instance;
        }
        ctx.out.progress(' running\n');
      } else ctx.out.progress('\n');
      printInstance(ctx, instance);
    },
  },
  {
    path: ['ls'],
    summary: 'instances across providers (of every connected provider key)',
    options: { refresh: { type: 'boolean', description: 'ask the providers now instead of the last observation' } },
    examples: ['ls', 'ls --refresh --output json'],
    async run(ctx) {
      const listed = await call(
        (await ctx.api()).raw.GET('/v1/compute', {
          params: { query: flag(ctx, 'refresh') ? { refresh: 'true' } : {} },
        }),
      );
      ctx.out.print(listed, () => table(listed.data.map(instanceRow), INSTANCE_COLUMNS));
      for (const e of listed.errors ?? []) ctx.out.progress(`${e.provider}: ${e.code}: ${e.message}\n`);
    },
  },
  // The instance as a record: one instance with its timeline and cost, and the ended ones.
  {
    path: ['instances', 'ls'],
    summary: 'the live instances (as gpuo ls); --ended: the ended ones with why and what they cost, newest first',
    options: {
      ended: { type: 'boolean', description: 'the ended instances instead (paged)' },
      ...PAGE_OPTIONS,
    },
    examples: ['instances ls', 'instances ls --ended --limit 20'],
    async run(ctx) {
      const sdk = await ctx.api();
      if (!flag(ctx, 'ended')) {
        if (str(ctx, 'limit') || str(ctx, 'cursor') || flag(ctx, 'all'))
          throw new UsageError('--limit, --cursor and --all page --ended');
        const listed = await call(sdk.raw.GET('/v1/compute', { params: { query: {} } }));
        ctx.out.print(listed, () => table(listed.data.map(instanceRow), INSTANCE_COLUMNS));
        return;
      }
      await printPaged(
        ctx,
        (query) => call(sdk.raw.GET('/v1/compute', { params: { query: { status: 'ended', ...query } } })),
        ['id', 'provider', 'name', 'gpu_type', 'started_at', 'ended_at', 'end_kind', 'total_cost'],
        (r) => ({ ...r, total_cost: money(r.total_cost) }),
      );
    },
  },
  {
    path: ['instances', 'show'],
    summary: 'one instance: its record, timeline, cost to date and latest charges',
    args: INSTANCE,
    examples: ['instances show abc123'],
    async run(ctx) {
      const id = ctx.args['instance id']!;
      const r = await call(
        (await ctx.api()).raw.GET('/v1/compute/{provider_instance_id}', {
          params: { path: { provider_instance_id: id } },
        }),
      );
      ctx.out.print(
        r,
        () =>
          record(
            {
              ...instanceRow(r),
              cost_to_date:
                `${money(r.cost.to_date)} (charged ${money(r.cost.posted)} in ${r.charges.count}, ` +
                `accrued ${money(r.cost.accrued)})`,
              end: r.end_kind ? `${r.end_kind}${r.end_reason ? `: ${r.end_reason}` : ''}` : null,
              warnings: r.warnings?.join('; ') ?? null,
            },
            [
              'id',
              'provider',
              'name',
              'status',
              'provider_status',
              'gpu_type',
              'gpu_count',
              'price_per_hour',
              'public_ip',
              'cost_to_date',
              'end',
              'warnings',
            ],
          ) +
          '\n' +
          table(r.timeline, ['event', 'at', 'reason']),
      );
    },
  },
  {
    path: ['instances', 'logs'],
    summary: 'an instance’s container output (RunPod, Vast.ai; a job’s reported tail on Lambda); -f follows it',
    args: INSTANCE,
    options: LOG_OPTIONS,
    examples: ['instances logs abc123', 'instances logs abc123 -f --tail 0'],
    async run(ctx) {
      const sdk = await ctx.api();
      const id = ctx.args['instance id']!;
      if (following(ctx)) await printFollow(ctx, `instance ${id}`, sdk.followInstanceLogs(id, logQuery(ctx)));
      else printTail(ctx, await sdk.instanceLogs(id, logQuery(ctx)));
    },
  },
  {
    path: ['stop'],
    summary: 'stop an instance (RunPod only; the others are terminated instead)',
    args: INSTANCE,
    examples: ['stop abc123'],
    async run(ctx) {
      printInstance(ctx, await (await ctx.api()).stop(ctx.args['instance id']!));
    },
  },
  {
    path: ['start'],
    summary: 'start a stopped instance again (RunPod; admitted like a launch, at its own price)',
    args: INSTANCE,
    examples: ['start abc123'],
    async run(ctx) {
      printInstance(ctx, await (await ctx.api()).start(ctx.args['instance id']!));
    },
  },
  {
    path: ['terminate'],
    summary: 'terminate an instance: it stops costing money and cannot be restarted',
    args: INSTANCE,
    examples: ['terminate abc123'],
    async run(ctx) {
      printInstance(ctx, await (await ctx.api()).terminate(ctx.args['instance id']!));
    },
  },
  {
    path: ['ssh'],
    summary: 'ssh into an instance (by id or name) with its connect details; --dry-run prints the command',
    args: [{ name: 'instance', required: true }],
    rest: 'ssh arguments',
    options: {
      'dry-run': { type: 'boolean', description: 'print the ssh command instead of running it' },
      identity: { type: 'string', value: '<file>', description: 'the private key (ssh -i)' },
    },
    examples: ['ssh abc123 --dry-run', 'ssh my-trainer -- nvidia-smi'],
    async run(ctx) {
      const wanted = ctx.args.instance!;
      const { data } = await (await ctx.api()).instances();
      const byId = data.find((i) => i.id === wanted);
      const byName = data.filter((i) => i.name === wanted && !['terminated', 'failed'].includes(i.status));
      if (!byId && byName.length > 1)
        throw new UsageError(
          `${byName.length} instances are named ${JSON.stringify(wanted)}: give the id ` +
            `(${byName.map((i) => i.id).join(', ')})`,
        );
      const instance = byId ?? byName[0];
      if (!instance) throw new RefusedError(`no instance ${JSON.stringify(wanted)} (gpuo ls lists them)`);
      if (!instance.ssh)
        throw new RefusedError(`instance ${instance.id} has no SSH details yet (status ${instance.status})`);
      const { host, port, user } = instance.ssh;
      const argv = [
        '-p',
        String(port),
        ...(str(ctx, 'identity') ? ['-i', str(ctx, 'identity')!] : []),
        `${user}@${host}`,
        ...ctx.rest,
      ];
      if (flag(ctx, 'dry-run')) {
        ctx.out.print({ command: ['ssh', ...argv] }, () => ['ssh', ...argv].map(shellWord).join(' ') + '\n');
        return;
      }
      // ssh takes the terminal: its exit code is ours.
      return new Promise<number>((resolve, reject) => {
        const child = spawn('ssh', argv, { stdio: 'inherit' });
        child.on('error', reject);
        child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
      });
    },
  },
];
