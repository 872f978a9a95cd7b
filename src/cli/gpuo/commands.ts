/** The `gpuo` commands, each on the SDK; `main.ts` parses the command line and dispatches here. */
import { createGpuoClient, type GpuoClient, type LaunchBody, type PlanBody } from '../../../sdk/src';
import { DEFAULT_API_URL, readConfig, writeConfig } from './config';
import { table, UsageError, type Out } from './output';

export interface Flags {
  provider?: string;
  gpu?: string;
  count?: string;
  spot?: boolean;
  region?: string;
  name?: string;
  image?: string;
  'max-price'?: string;
  wait?: boolean;
  timeout?: string;
  key?: string;
  url?: string;
  scopes?: string;
  cap?: string;
}

export async function client(): Promise<GpuoClient> {
  const config = await readConfig();
  if (!config.api_key) throw new UsageError('not logged in: run `gpuo login --key <API key> [--url <API URL>]` (or set GPUO_API_KEY)');
  return createGpuoClient({ baseUrl: config.api_url ?? DEFAULT_API_URL, apiKey: config.api_key });
}

const num = (flag: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new UsageError(`--${flag} must be a number (got ${JSON.stringify(value)})`);
  return n;
};

/** The launch body from the flags (the API checks it; only what a person could not mean is refused here). */
export function launchBody(flags: Flags): LaunchBody {
  if (!flags.provider || !flags.gpu) throw new UsageError('needs --provider runpod|vastai|lambda and --gpu <type> (see `gpuo offers`)');
  return {
    provider: flags.provider as LaunchBody['provider'],
    gpu_type: flags.gpu,
    gpu_count: num('count', flags.count) ?? 1,
    spot: flags.spot ?? false,
    ...(flags.region ? { region: flags.region } : {}),
    ...(flags.name ? { name: flags.name } : {}),
    ...(flags.image ? { docker_image: flags.image } : {}),
  };
}

const money = (v: unknown) => (typeof v === 'number' ? `$${v.toFixed(4).replace(/0{1,2}$/, '')}` : '-');

/** An instance as launch, stop and terminate answer it (the list's records add `observed_at` and more). */
type Instance = Awaited<ReturnType<GpuoClient['launch']>>;
const instanceRow = (i: Instance) => ({ ...i, price_per_hour: money(i.price_per_hour) });
const INSTANCE_COLUMNS = ['id', 'provider', 'name', 'status', 'gpu_type', 'gpu_count', 'price_per_hour', 'public_ip'];

export const commands: Record<string, (args: string[], flags: Flags, out: Out) => Promise<void>> = {
  async login(_args, flags, out) {
    const key = flags.key ?? process.env.GPUO_API_KEY;
    if (!key) throw new UsageError('usage: gpuo login --key <API key> [--url <API URL>]');
    const url = flags.url ?? (await readConfig()).api_url ?? DEFAULT_API_URL;
    // Checked before it is saved: a mistyped key fails here, not at the next command.
    await createGpuoClient({ baseUrl: url, apiKey: key }).balance();
    const file = await writeConfig({ api_url: url, api_key: key });
    out.print({ api_url: url, config_file: file }, () => `logged in to ${url}; key saved to ${file} (mode 0600)\n`);
  },

  async offers(args, _flags, out) {
    const sdk = await client();
    if (args[0]) {
      const compare = await sdk.offers(args[0]);
      const offers = (compare as { offers: Record<string, unknown>[] }).offers;
      out.print(compare, () => table(offers.map((o) => ({ ...o, price_per_hour: money(o.price_per_hour) })), ['provider', 'price_per_hour', 'availability', 'spot', 'region']));
      return;
    }
    const all = (await sdk.offers()) as { gpu_types: { gpu_type: string; offers: { price_per_hour: number; availability: number }[] }[] };
    out.print(all, () =>
      table(
        all.gpu_types.map((g) => {
          const available = g.offers.filter((o) => o.availability > 0);
          return { gpu_type: g.gpu_type, offers: g.offers.length, cheapest_available: available.length ? money(Math.min(...available.map((o) => o.price_per_hour))) : '-' };
        }),
        ['gpu_type', 'offers', 'cheapest_available'],
      ),
    );
  },

  async plan(_args, flags, out) {
    const sdk = await client();
    const body: PlanBody = flags.provider
      ? launchBody(flags)
      : { gpu_type: flags.gpu ?? '', gpu_count: num('count', flags.count) ?? 1, spot: flags.spot ?? false, ...(flags['max-price'] ? { max_price_per_hour: num('max-price', flags['max-price'])! } : {}) };
    const planned = (await sdk.plan(body)) as Record<string, unknown> & { candidates?: Record<string, unknown>[] };
    const rows = (planned.candidates ?? [planned]).map((c) => ({
      ...c,
      price_per_hour: money(c.price_per_hour),
      verdict: c.admitted ? 'admitted' : `refused: ${(c.refusal as { code: string; message: string }).code}: ${(c.refusal as { message: string }).message}`,
    }));
    out.print(planned, () => table(rows, ['provider', 'gpu_type', 'gpu_count', 'spot', 'region', 'price_per_hour', 'availability', 'verdict']));
  },

  async launch(_args, flags, out) {
    const sdk = await client();
    let instance = await sdk.launch(launchBody(flags));
    out.progress(`launched ${instance.id} on ${instance.provider} at ${money(instance.price_per_hour)}/h`);
    if (flags.wait) {
      const deadline = Date.now() + (num('timeout', flags.timeout) ?? 600) * 1000;
      while (instance.status !== 'running') {
        if (['failed', 'terminated', 'stopped'].includes(instance.status)) throw new Error(`instance ${instance.id} ended as ${instance.status} before running`);
        if (Date.now() > deadline) throw new Error(`instance ${instance.id} was not running within --timeout (status ${instance.status})`);
        out.progress('.');
        await new Promise((r) => setTimeout(r, 1000));
        instance = (await sdk.instances()).data.find((i) => i.id === instance.id) ?? instance;
      }
      out.progress(' running\n');
    } else out.progress('\n');
    out.print(instance, () => table([instanceRow(instance)], INSTANCE_COLUMNS));
  },

  async ls(_args, _flags, out) {
    const listed = await (await client()).instances();
    out.print(listed, () => table(listed.data.map(instanceRow), INSTANCE_COLUMNS));
  },

  async stop(args, _flags, out) {
    if (!args[0]) throw new UsageError('usage: gpuo stop <instance id>');
    const instance = await (await client()).stop(args[0]);
    out.print(instance, () => table([instanceRow(instance)], INSTANCE_COLUMNS));
  },

  async terminate(args, _flags, out) {
    if (!args[0]) throw new UsageError('usage: gpuo terminate <instance id>');
    const instance = await (await client()).terminate(args[0]);
    out.print(instance, () => table([instanceRow(instance)], INSTANCE_COLUMNS));
  },

  async balance(_args, _flags, out) {
    const balance = await (await client()).balance();
    out.print(balance, () => `${money(balance.balance)} ${balance.currency}\n`);
  },

  async spend(_args, _flags, out) {
    const summary = await spendSummary(await client());
    out.print(summary, () => `spent this month (UTC): ${money(summary.month_to_date)} in ${summary.charges} charges; balance ${money(summary.balance)}\n`);
  },

  async schedules(_args, _flags, out) {
    const listed = (await (await client()).schedules()) as { data: Record<string, unknown>[] };
    out.print(listed, () => table(listed.data, ['id', 'name', 'gpu', 'cron', 'status', 'next_run_at']));
  },

  async keys(args, flags, out) {
    const sdk = await client();
    if (args[0] === 'create') {
      if (!flags.name || !flags.scopes) throw new UsageError('usage: gpuo keys create --name <name> --scopes read,compute:write [--cap 5/day]');
      const cap = flags.cap ? /^(\d+(?:\.\d{1,2})?)\/(day|month)$/.exec(flags.cap) : null;
      if (flags.cap && !cap) throw new UsageError('--cap looks like 5/day or 100/month');
      const created = await sdk.createApiKey({
        name: flags.name,
        scopes: flags.scopes.split(',').map((s) => s.trim()) as never,
        ...(cap ? { spend_limit: { amount: Number(cap[1]), period: cap[2] as 'day' | 'month' } } : {}),
      });
      out.print(created, () => `created ${created.id} (${created.scopes.join(', ')}); the key, shown only now:\n${created.api_key}\n`);
      return;
    }
    if (args[0] === 'revoke') {
      if (!args[1]) throw new UsageError('usage: gpuo keys revoke <key id>');
      const revoked = await sdk.revokeApiKey(args[1]);
      out.print(revoked, () => `revoked ${revoked.id}\n`);
      return;
    }
    if (args[0] !== undefined && args[0] !== 'ls') throw new UsageError('usage: gpuo keys [ls | create … | revoke <id>]');
    const listed = await sdk.apiKeys();
    out.print(listed, () =>
      table(
        listed.data.map((k) => ({ ...k, spend_limit: k.spend_limit ? `$${k.spend_limit.amount}/${k.spend_limit.period}` : '-' })),
        ['id', 'name', 'key_prefix', 'scopes', 'spend_limit', 'spend_in_period', 'last_used_at', 'expires_at'],
      ),
    );
  },
};

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
