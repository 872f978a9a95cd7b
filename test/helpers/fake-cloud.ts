/**
 * An in-memory cloud for time-skipping tests of the launch and scheduled-run workflows: one provider account
 * whose instances boot `bootMs` (workflow time) after their create, the instance rows, charges and events the
 * launch activities write, and those activities as plain functions over them. Every time is workflow time
 * (the test server's clock, skipped time included).
 *
 * A job's command (`command`) exits a set time after the boot, reporting its exit: the provider then shows the
 * instance stopped (`exited`), and the report is in before anyone sees it stopped.
 *
 * The create step is the real `createAtProvider` activity (look by name before creating again on a retry)
 * over this cloud's adapter, so "a retried create creates one instance" tests our code, not the fake's.
 */
import type { Activities } from '../../activities';
import type { ActivityDeps } from '../../activities/deps';
import { createInstanceActivities, type PollResult, type SshAccess } from '../../activities/instances';
import type { InstanceRow } from '../../src/db/queries/instances';
import { ProviderRequestError } from '../../src/errors';
import type { ProviderAdapter, ProviderId, ProviderInstance } from '../../src/providers/types';
import type { LaunchInput } from '../../workflows/contracts/launch';
import type { TimeSkippingEnv } from './time-skipping';

export interface Charge {
  instanceId: string;
  fromMs: number;
  throughMs: number;
  micros: number;
}

const MS_PER_HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

export interface FakeCloud {
  rows: Map<string, InstanceRow>;
  /** Every instance the provider ever created, by the provider's id. */
  created: Map<string, ProviderInstance & { createdAtMs: number }>;
  charges: Charge[];
  events: { instanceId: string; type: string; atMs: number }[];
  /** The next `n` creates go through at the provider but their answer is lost (a timeout after the accept). */
  loseCreateAnswers(n: number): void;
  /** The launch and observer activities over this cloud. */
  activities: Partial<Activities>;
  /** Charged to the instance so far (micro-dollars). */
  chargedMicros(instanceId: string): number;
}

export function createFakeCloud(
  ts: TimeSkippingEnv,
  opts: {
    provider: ProviderId;
    pricePerHourMicros: number;
    bootMs: number;
    command?: { exitsAfterMs: number };
  },
): FakeCloud {
  const rows = new Map<string, InstanceRow>();
  const created = new Map<string, ProviderInstance & { createdAtMs: number }>();
  const attempts = new Map<string, number>();
  const charges: Charge[] = [];
  const events: FakeCloud['events'] = [];
  /** Launch row ids whose job command reported its exit. */
  const reported = new Set<string>();
  let lostAnswers = 0;
  const now = () => ts.now();

  /** The provider's view of an instance now: booting until `bootMs` after its create, then running. */
  const providerView = (id: string, atMs: number): ProviderInstance | null => {
    const i = created.get(id);
    if (!i || i.status === 'terminated') return null;
    if (i.status === 'provisioning' && atMs >= i.createdAtMs + opts.bootMs) {
      i.status = 'running';
      i.providerStatus = 'RUNNING';
      i.startedAt = iso(i.createdAtMs + opts.bootMs);
    }
    const { command } = opts;
    if (command && i.status === 'running' && atMs >= i.createdAtMs + opts.bootMs + command.exitsAfterMs) {
      const rowId = [...rows.values()].find((r) => r.provider_instance_id === id)?.id;
      if (rowId) reported.add(rowId);
      i.status = 'stopped';
      i.providerStatus = 'exited';
    }
    return { ...i };
  };

  const row = (id: string): InstanceRow => {
    const r = rows.get(id);
    if (!r) throw new Error(`instance ${id} has no row`);
    return r;
  };
  const update = (id: string, change: Partial<InstanceRow>): InstanceRow => {
    const next = { ...row(id), ...change };
    rows.set(id, next);
    return { ...next };
  };

  const adapter: Pick<ProviderAdapter, 'launch' | 'findInstanceByName'> = {
    async launch(_apiKey, spec) {
      const createdAtMs = await now();
      const id = `fake-${created.size + 1}`;
      created.set(id, {
        id,
        provider: opts.provider,
        name: spec.name,
        status: 'provisioning',
        providerStatus: 'CREATED',
        gpuType: null,
        gpuCount: spec.gpuCount,
        pricePerHour: opts.pricePerHourMicros / 1_000_000,
        spot: spec.spot ?? false,
        region: null,
        dockerImage: spec.dockerImage ?? null,
        publicIp: null,
        ssh: null,
        createdAt: iso(createdAtMs),
        startedAt: null,
        createdAtMs,
      } as ProviderInstance & { createdAtMs: number });
      if (lostAnswers > 0) {
        lostAnswers--;
        throw new ProviderRequestError(
          opts.provider,
          'transient',
          'the connection closed before the provider answered',
        );
      }
      return { ...created.get(id)! };
    },
    async findInstanceByName(_apiKey, name) {
      const found = [...created.values()].find((i) => i.name === name && i.status !== 'terminated');
      return found ? { ...found } : null;
    },
  };
  // The real create step, over this cloud: the attempt counter and the adapter are all it touches.
  const { createAtProvider: createWithCommand } = createInstanceActivities({
    queries: {
      instances: {
        countCreateAttempt: async (id: string) => {
          attempts.set(id, (attempts.get(id) ?? 0) + 1);
          return attempts.get(id)!;
        },
      },
    },
    credentials: { findApiKey: async () => 'fake-key' },
    adapters: { [opts.provider]: adapter },
  } as unknown as ActivityDeps);
  // A job's start command is built from its record in the database; this cloud's `command` stands for it.
  const createAtProvider = (input: LaunchInput, ssh: SshAccess) =>
    createWithCommand({ ...input, onstartCmd: undefined }, ssh);

  const recordCreated = async (id: string, i: ProviderInstance) =>
    update(id, {
      provider_instance_id: i.id,
      provider_status: i.providerStatus,
      price_per_hour_micros: row(id).price_per_hour_micros ?? Math.round(i.pricePerHour! * 1_000_000),
      accepted_at: row(id).accepted_at ?? iso(await now()),
    });

  const charge = async (id: string, throughMs: number) => {
    const r = row(id);
    const fromMs = Date.parse(r.metered_through ?? r.started_at!);
    if (throughMs <= fromMs) return { chargedMicros: 0, meteredThrough: r.metered_through };
    const micros = Math.round((r.price_per_hour_micros! * (throughMs - fromMs)) / MS_PER_HOUR);
    charges.push({ instanceId: id, fromMs, throughMs, micros });
    update(id, { metered_through: iso(throughMs) });
    return { chargedMicros: micros, meteredThrough: iso(throughMs) };
  };

  const activities: Partial<Activities> = {
    async prepareLaunch(input: LaunchInput) {
      if (!rows.has(input.instanceId)) {
        rows.set(input.instanceId, {
          id: input.instanceId,
          account_id: input.accountId,
          request_hash: input.requestHash,
          provider: input.provider,
          provider_instance_id: null,
          provider_name: input.providerName,
          name: input.name,
          status: 'provisioning',
          provider_status: null,
          gpu_type: input.gpuType,
          gpu_count: input.gpuCount,
          price_per_hour_micros: null,
          spot: input.spot,
          region: null,
          docker_image: input.dockerImage ?? null,
          public_ip: null,
          ssh: null,
          warnings: [],
          started_at: null,
          metered_through: null,
          ended_at: null,
          end_reason: null,
          lifecycle_warning: null,
          created_at: iso(await now()),
          provider_key_fingerprint: null,
          key_warning: null,
          accepted_at: null,
          idle_stop: input.idleStop ?? null,
        });
      }
      return {};
    },
    createAtProvider,
    recordCreated,
    // The create and its record in one local activity, as the worker runs them (activities/instances.ts);
    // without `ssh`, the intent first (the one-step create; this cloud has no observer to tell).
    async createAndRecord(input: LaunchInput, ssh?: SshAccess) {
      if (ssh) return recordCreated(input.instanceId, await createAtProvider(input, ssh));
      const access = await activities.prepareLaunch!(input);
      return {
        row: await recordCreated(input.instanceId, await createAtProvider(input, access)),
        bootDeadlineMs: null,
        observerTold: false,
      };
    },
    async failLaunch(id: string, reason: string) {
      update(id, { status: 'failed', end_reason: reason });
    },
    async bootDeadline() {
      return { ms: MS_PER_HOUR, learned: false };
    },
    async markInstanceRunning(id: string, atMs: number) {
      events.push({ instanceId: id, type: 'instance.started', atMs });
      return update(id, { status: 'running', started_at: iso(atMs) });
    },
    async markRanFromAcceptance(id: string) {
      const r = row(id);
      if (r.started_at || !r.accepted_at || !reported.has(id) || ['stopped', 'terminated', 'failed'].includes(r.status))
        return { ...r };
      events.push({ instanceId: id, type: 'instance.started', atMs: Date.parse(r.accepted_at) });
      return update(id, { status: 'running', started_at: r.accepted_at, metered_through: r.accepted_at });
    },
    async resumeInstance(id: string, atMs: number) {
      return update(id, { status: 'running', metered_through: iso(atMs) });
    },
    chargeInstance: (id: string, throughMs: number) => charge(id, throughMs),
    async noteLifecycleWarning(id: string, warning: string | null) {
      return update(id, { lifecycle_warning: warning });
    },
    async pollInstance(id: string): Promise<PollResult> {
      const atMs = await now();
      const instance = providerView(row(id).provider_instance_id!, atMs);
      return { gone: instance === null, instance, atMs, row: { ...row(id) } };
    },
    async stopInstance(id: string) {
      const i = created.get(row(id).provider_instance_id!)!;
      i.status = 'stopped';
      return { atMs: await now() };
    },
    async terminateInstance(id: string) {
      const i = created.get(row(id).provider_instance_id!)!;
      i.status = 'terminated';
      update(id, { status: 'terminating' });
      return { atMs: await now() };
    },
    async terminateByName(input: { providerName: string }) {
      const found = [...created.values()].find((i) => i.name === input.providerName && i.status !== 'terminated');
      if (found) found.status = 'terminated';
      return found !== undefined;
    },
    async finishInstance(
      id: string,
      status: 'stopped' | 'terminated' | 'failed',
      event: string | null,
      atMs: number,
      extra: Record<string, unknown> = {},
    ) {
      if (event) events.push({ instanceId: id, type: event, atMs });
      return update(id, {
        status,
        ended_at: status === 'stopped' ? null : iso(atMs),
        end_reason: (extra.reason as string | undefined) ?? null,
      });
    },
    /** The (account, provider) observer's round: tells each launch whose instance started or vanished. */
    async observeAccountProvider(input: { accountId: string; provider: ProviderId }) {
      const atMs = await now();
      const watched = [...rows.values()].filter(
        (r) =>
          r.account_id === input.accountId &&
          r.provider === input.provider &&
          r.provider_instance_id &&
          !['terminated', 'failed'].includes(r.status),
      );
      const changes: {
        instanceId: string;
        observation: { gone: boolean; instance: ProviderInstance | null; atMs: number };
      }[] = [];
      let booting = false;
      for (const r of watched) {
        const instance = providerView(r.provider_instance_id!, atMs);
        if (instance?.status === 'provisioning') booting = true;
        const moved = instance?.status === 'running' || instance?.status === 'stopped';
        if (instance === null || (moved && r.status === 'provisioning')) {
          changes.push({ instanceId: r.id, observation: { gone: instance === null, instance, atMs } });
        }
      }
      return { watchedIds: watched.map((r) => r.id), booting, spotRunning: false, changes, providerCalls: 1 };
    },
  } as Partial<Activities>;

  return {
    rows,
    created,
    charges,
    events,
    loseCreateAnswers(n) {
      lostAnswers = n;
    },
    activities,
    chargedMicros: (instanceId) => charges.filter((c) => c.instanceId === instanceId).reduce((a, c) => a + c.micros, 0),
  };
}
