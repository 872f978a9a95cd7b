/**
 * The command table of `gpuo`: every command with its words, arguments, options, examples and what it does,
 * one API resource after another. The parser, `--help`, shell completion and the coverage test all read it.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createGpuoClient, type LaunchBody, type PlanBody } from '../../../sdk/src';
import { call, type GpuoClient, type Page } from './api';
import { DEFAULT_API_URL, readConfig, writeConfig } from './config';
import { record, RefusedError, table, UsageError, type Io } from './output';
import type { CommandSpec, Context, OptionSpec } from './spec';

const PROVIDERS = ['runpod', 'vastai', 'lambda'] as const;
const SCOPES =
  'read, compute:write, schedules:write, alerts:write, webhooks:write, settings:write, billing:write, keys:admin';

// ---- reading the command line -------------------------------------------------------------------------

const str = (ctx: Context, name: string) => ctx.opts[name] as string | undefined;
const flag = (ctx: Context, name: string) => ctx.opts[name] === true;

function num(ctx: Context, name: string, { integer = false } = {}): number | undefined {
  const value = str(ctx, name);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    throw new UsageError(`--${name} must be ${integer ? 'a whole number' : 'a number'} (got ${JSON.stringify(value)})`);
  }
  return n;
}

const list = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Both idle-stop options, or neither. */
function idleStop(ctx: Context) {
  const below = num(ctx, 'idle-below');
  const minutes = num(ctx, 'idle-minutes', { integer: true });
  if ((below === undefined) !== (minutes === undefined))
    throw new UsageError('--idle-below and --idle-minutes go together');
  return below === undefined ? {} : { idle_stop: { utilization_below_percent: below, for_minutes: minutes! } };
}

/** All of stdin (piped), or one line typed at a terminal without echo. */
async function readStdin(io: Io, prompt: string): Promise<string> {
  const stdin = io.stdin;
  if (stdin.isTTY && stdin.setRawMode) {
    io.stderr.write(prompt);
    stdin.setRawMode(true);
    try {
      return await new Promise<string>((resolve, reject) => {
        let typed = '';
        const onData = (chunk: Buffer | string) => {
          for (const c of chunk.toString()) {
            if (c === '\r' || c === '\n' || c === '\u0004') return done(() => resolve(typed));
            if (c === '\u0003') return done(() => reject(new UsageError('cancelled')));
            typed = c === '\u007f' || c === '\b' ? typed.slice(0, -1) : typed + c;
          }
        };
        const done = (finish: () => void) => {
          stdin.removeListener('data', onData);
          stdin.pause();
          io.stderr.write('\n');
          finish();
        };
        stdin.on('data', onData);
        stdin.resume();
      });
    } finally {
      stdin.setRawMode(false);
    }
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** A secret or a key from a file (`-` is stdin) or, without a file, from stdin: never from the command line. */
async function readInput(ctx: Context, fileOption: string, what: string): Promise<string> {
  const file = str(ctx, fileOption);
  const text = file && file !== '-' ? await readFile(file, 'utf8') : await readStdin(ctx.io, `${what}: `);
  const value = text.trim();
  if (!value) throw new UsageError(`no ${what} read from ${file && file !== '-' ? file : 'stdin'}`);
  return value;
}

// ---- rendering ---------------------------------------------------------------------------------------

const money = (v: unknown) => (typeof v === 'number' ? `$${v.toFixed(4).replace(/0{1,2}$/, '')}` : '-');

const PAGE_OPTIONS: Record<string, OptionSpec> = {
  limit: { type: 'string', value: '<n>', description: 'items per page, 1-200 (the API’s default is 50)' },
  cursor: { type: 'string', value: '<cursor>', description: 'the next_cursor a previous page named' },
  all: { type: 'boolean', description: 'every page, one after another' },
};

type Row = Record<string, unknown>;
type Paged = Page<Row> & { has_more?: boolean; next_cursor?: string | null };

/** One page (or `--all` pages) of a cursor-paged list, as a table or as the API's JSON. */
async function printPaged(
  ctx: Context,
  fetchPage: (query: { limit?: number; cursor?: string }) => Promise<unknown>,
  columns: string[],
  row: (r: Row) => Row = (r) => r,
) {
  const limit = num(ctx, 'limit', { integer: true });
  if (flag(ctx, 'all')) {
    const data: Row[] = [];
    let cursor = str(ctx, 'cursor');
    for (;;) {
      const page = (await fetchPage({ limit, cursor })) as Paged;
      data.push(...page.data);
      if (!page.has_more || !page.next_cursor) break;
      cursor = page.next_cursor;
    }
    ctx.out.print({ data }, () => table(data.map(row), columns));
    return;
  }
  const page = (await fetchPage({ limit, cursor: str(ctx, 'cursor') })) as Paged;
  ctx.out.print(page, () => table(page.data.map(row), columns));
  if (page.has_more && page.next_cursor) ctx.out.progress(`more: --cursor ${page.next_cursor} (or --all)\n`);
}

/** An instance as launch, stop and terminate answer it (the list's records add `observed_at` and more). */
type Instance = Awaited<ReturnType<GpuoClient['launch']>>;
const instanceRow = (i: Row) => ({ ...i, price_per_hour: money(i.price_per_hour) });
const INSTANCE_COLUMNS = ['id', 'provider', 'name', 'status', 'gpu_type', 'gpu_count', 'price_per_hour', 'public_ip'];
const printInstance = (ctx: Context, instance: Row) =>
  ctx.out.print(instance, () => table([instanceRow(instance)], INSTANCE_COLUMNS));

const SCHEDULE_COLUMNS = ['id', 'name', 'gpu', 'template', 'cron', 'status', 'next_run_at', 'last_run_at'];
const printSchedule = (ctx: Context, s: Row) => ctx.out.print(s, () => record(s));
const WEBHOOK_COLUMNS = ['id', 'url', 'events', 'active', 'created_at'];
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
const deleted = (ctx: Context, what: string, answer: Row) =>
  ctx.out.print(answer, () => `deleted ${what} ${String(answer.id)}\n`);

// ---- shared options -------------------------------------------------------------------------------------

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
  onstart: { type: 'string', value: '<command>', description: 'a command run when the instance starts' },
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

const ID = [{ name: 'id', required: true }] as const;
const INSTANCE = [{ name: 'instance id', required: true }] as const;
const PROVIDER_ARG = [{ name: 'provider', required: true, choices: PROVIDERS }] as const;

/** Shell-quotes one word for the printed ssh command. */
const shellWord = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

/** This UTC month's instance charges (walked page by page) and the balance. */
export async function spendSummary(sdk: GpuoClient) {
  const now = new Date();
  const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  let total = 0;
  let charges = 0;
  for await (const t of sdk.transactions({ type: 'instance_charge', limit: 200 })) {
    if (Date.parse(t.created_at as string) < monthStart) break; // newest first
    total += -(t.amount as number);
    charges++;
  }
  const { balance } = await sdk.balance();
  return { month_to_date: Math.round(total * 1e6) / 1e6, charges, balance };
}

// ---- the table ----------------------------------------------------------------------------------------

export const COMMANDS: readonly CommandSpec[] = [
  {
    path: ['login'],
    summary: 'check an API key and save it (config dir, mode 0600) with the API URL',
    options: {
      key: { type: 'string', value: '<API key>', description: 'the key (default: GPUO_API_KEY)' },
      url: {
        type: 'string',
        value: '<API URL>',
        description: `the API (default: the saved one, else ${DEFAULT_API_URL})`,
      },
    },
    examples: ['login --key gpuo_sk_xxxxxxxxxxxxxxxxxxxxxxxx'],
    async run(ctx) {
      const key = str(ctx, 'key') ?? ctx.io.env.GPUO_API_KEY;
      if (!key) throw new UsageError('needs --key <API key> (or GPUO_API_KEY)');
      const url = str(ctx, 'url') ?? (await readConfig(ctx.io.env)).api_url ?? DEFAULT_API_URL;
      // Checked before it is saved: a mistyped key fails here, not at the next command.
      await createGpuoClient({ baseUrl: url, apiKey: key }).balance();
      const file = await writeConfig({ api_url: url, api_key: key }, ctx.io.env);
      ctx.out.print(
        { api_url: url, config_file: file },
        () => `logged in to ${url}; key saved to ${file} (mode 0600)\n`,
      );
    },
  },

  // GPU types and the names they answer to.
  {
    path: ['gpus'],
    summary: 'the GPU types: slugs, names, memory and the aliases each answers to',
    examples: ['gpus'],
    async run(ctx) {
      const gpus = await call((await ctx.api()).raw.GET('/v1/gpus'));
      ctx.out.print(
        gpus,
        () =>
          table(
            gpus.data.map((g) => ({ ...g, vram_gb: `${g.vram_gb} GB`, aliases: g.aliases.join(', ') })),
            ['gpu_type', 'display_name', 'vram_gb', 'aliases'],
          ) +
          Object.entries(gpus.families)
            .map(([name, slugs]) => `${name}: one of ${slugs.join(', ')}\n`)
            .join(''),
      );
    },
  },
  // Prices.
  {
    path: ['prices'],
    aliases: [['offers']],
    summary: 'prices: every GPU type, or one type across providers',
    args: [{ name: 'gpu' }],
    examples: ['prices', 'prices rtx-a6000'],
    async run(ctx) {
      const sdk = await ctx.api();
      const gpu = ctx.args.gpu;
      if (gpu) {
        const compare = await call(sdk.raw.GET('/v1/pricing/compare', { params: { query: { gpu } } }));
        ctx.out.print(compare, () =>
          table(
            compare.offers.map((o) => ({ ...o, price_per_hour: money(o.price_per_hour) })),
            ['provider', 'price_per_hour', 'availability', 'spot', 'region'],
          ),
        );
        return;
      }
      const all = await call(sdk.raw.GET('/v1/pricing'));
      ctx.out.print(all, () =>
        table(
          all.gpu_types.map((g) => {
            const available = g.offers.filter((o) => o.availability > 0);
            return {
              gpu_type: g.gpu_type,
              offers: g.offers.length,
              cheapest_available: available.length ? money(Math.min(...available.map((o) => o.price_per_hour))) : '-',
            };
          }),
          ['gpu_type', 'offers', 'cheapest_available'],
        ),
      );
    },
  },
  {
    path: ['prices', 'history'],
    summary: 'the lowest on-demand price per provider over a period',
    args: [{ name: 'gpu', required: true }],
    options: { period: { type: 'string', choices: ['24h', '7d', '30d'], description: 'how far back (default 7d)' } },
    examples: ['prices history rtx-a6000 --period 24h'],
    async run(ctx) {
      const period = (str(ctx, 'period') ?? '7d') as '24h' | '7d' | '30d';
      const history = await call(
        (await ctx.api()).raw.GET('/v1/pricing/history', { params: { query: { gpu: ctx.args.gpu!, period } } }),
      );
      ctx.out.print(history, () =>
        table(
          history.data.map((p) => ({ ...p, min_price_per_hour: money(p.min_price_per_hour) })),
          ['timestamp', 'provider', 'min_price_per_hour'],
        ),
      );
    },
  },

  // Compute.
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
              cost_to_date: `${money(r.cost.to_date)} (charged ${money(r.cost.posted)} in ${r.charges.count}, accrued ${money(r.cost.accrued)})`,
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
          `${byName.length} instances are named ${JSON.stringify(wanted)}: give the id (${byName.map((i) => i.id).join(', ')})`,
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

  // SSH keys.
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

  // Provider keys.
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
          `${checked.provider}: ${checked.valid ? 'valid' : 'invalid'} (${checked.status})${checked.message ? `: ${checked.message}` : ''}\n`,
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

  {
    path: ['templates'],
    summary: 'launch templates (a schedule names one)',
    examples: ['templates'],
    async run(ctx) {
      const listed = await call((await ctx.api()).raw.GET('/v1/templates'));
      ctx.out.print(listed, () => table(listed.data, ['slug', 'name', 'category', 'docker_image', 'min_vram_gb']));
    },
  },
  {
    path: ['limits'],
    summary: 'the account’s limits, each with its current use',
    examples: ['limits'],
    async run(ctx) {
      const listed = await call((await ctx.api()).raw.GET('/v1/limits'));
      ctx.out.print(listed, () => table(listed.data, ['name', 'limit', 'used', 'description']));
    },
  },

  // Schedules.
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
        ['id', 'status', 'scheduled_at', 'provider', 'instance_id', 'cost', 'stop_reason', 'error'],
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

  // Jobs.
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
        return `${head}\n${table(rows, ['n', 'provider', 'spot', 'instance_id', 'price_per_hour', 'started_at', 'ended_at', 'end_reason', 'exit_code', 'cost'])}`;
      });
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

  // Alerts.
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

  // Webhooks and events.
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

  // Billing.
  {
    path: ['balance'],
    summary: 'the prepaid balance',
    examples: ['balance'],
    async run(ctx) {
      const balance = await (await ctx.api()).balance();
      ctx.out.print(balance, () => `${money(balance.balance)} ${balance.currency}\n`);
    },
  },
  {
    path: ['spend'],
    summary: 'this UTC month’s instance charges and the balance',
    examples: ['spend'],
    async run(ctx) {
      const summary = await spendSummary(await ctx.api());
      ctx.out.print(
        summary,
        () =>
          `spent this month (UTC): ${money(summary.month_to_date)} in ${summary.charges} charges; balance ${money(summary.balance)}\n`,
      );
    },
  },
  {
    path: ['billing', 'summary'],
    summary: 'balance, uncharged usage, burn rate, runway, month to date and forecast',
    examples: ['billing summary'],
    async run(ctx) {
      const s = await call((await ctx.api()).raw.GET('/v1/billing/summary'));
      ctx.out.print(s, () => record(s));
    },
  },
  {
    path: ['billing', 'transactions'],
    summary: 'ledger transactions, newest first',
    options: {
      type: {
        type: 'string',
        choices: [
          'instance_charge',
          'instance_storage_charge',
          'credit_topup',
          'credit_grant',
          'credit_refund',
          'credit_dispute',
        ],
        description: 'only this type',
      },
      ...PAGE_OPTIONS,
    },
    examples: ['billing transactions --type credit_grant --all'],
    async run(ctx) {
      const sdk = await ctx.api();
      const type = str(ctx, 'type');
      await printPaged(
        ctx,
        (query) =>
          call(
            sdk.raw.GET('/v1/billing/transactions', {
              params: { query: { ...query, ...(type ? { type: type as never } : {}) } },
            }),
          ),
        ['id', 'type', 'amount', 'balance_after', 'description', 'created_at'],
        (t) => ({ ...t, amount: money(t.amount), balance_after: money(t.balance_after) }),
      );
    },
  },
  {
    path: ['billing', 'credit'],
    summary: 'add credit: prints the Stripe Checkout page to pay on',
    args: [{ name: 'dollars', required: true }],
    examples: ['billing credit 25'],
    async run(ctx) {
      const amount = Number(ctx.args.dollars);
      if (!Number.isFinite(amount))
        throw new UsageError(`<dollars> must be a number (got ${JSON.stringify(ctx.args.dollars)})`);
      const session = await call((await ctx.api()).raw.POST('/v1/billing/credit', { body: { amount } }));
      ctx.out.print(
        session,
        () =>
          `pay at ${session.checkout_url}\n(session ${session.session_id}; the balance grows once Stripe confirms it)\n`,
      );
    },
  },
  {
    path: ['recommendations'],
    summary: 'cheaper offers for the running instances',
    examples: ['recommendations'],
    async run(ctx) {
      const r = await call((await ctx.api()).raw.GET('/v1/recommendations'));
      ctx.out.print(r, () => {
        const rows = r.recommendations.map((x) => ({
          ...x,
          current: money(x.current_price_per_hour),
          alternative: `${x.alternative.provider}${x.alternative.spot ? ' spot' : ''} ${money(x.alternative.price_per_hour)}`,
          monthly_savings: money(x.estimated_monthly_savings),
        }));
        const note = r.message ? `${r.message}\n` : '';
        return (
          note +
          table(rows, [
            'instance_id',
            'provider',
            'gpu_type',
            'gpu_count',
            'current',
            'alternative',
            'monthly_savings',
          ]) +
          `estimated monthly savings: ${money(r.estimated_monthly_savings)}\n`
        );
      });
    },
  },
  {
    path: ['recommendations', 'summary'],
    summary: 'estimated monthly savings and the number of recommendations',
    examples: ['recommendations summary'],
    async run(ctx) {
      const s = await call((await ctx.api()).raw.GET('/v1/recommendations/summary'));
      ctx.out.print(
        s,
        () =>
          `${s.recommendation_count} recommendations, estimated monthly savings ${money(s.estimated_monthly_savings)}\n`,
      );
    },
  },

  // API keys.
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

  // The CLI itself.
  {
    path: ['completion'],
    summary: 'a shell completion script: `source <(gpuo completion bash)`, or zsh',
    args: [{ name: 'shell', required: true, choices: ['bash', 'zsh'] }],
    examples: ['completion bash'],
    async run(ctx) {
      // Loaded here: completion.ts reads this table.
      const { completionScript } = require('./completion') as typeof import('./completion');
      ctx.io.stdout.write(completionScript(ctx.args.shell as 'bash' | 'zsh', COMMANDS));
    },
  },
  {
    path: ['mcp'],
    summary: 'an MCP server on stdio for AI agents (bounded by the key’s scopes and cap)',
    examples: [],
    async run() {
      // Loaded only here: the MCP SDK is not needed by the other commands.
      const { serveMcp } = require('./mcp') as typeof import('./mcp');
      await serveMcp();
    },
  },
];
