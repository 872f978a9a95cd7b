/**
 * The instance record and the live list as pure mappings (no database, no engine): an ended instance is out of
 * the live list whatever the provider's last round listed; an ended record the provider still lists running
 * says so and is never `terminated` beside `RUNNING`; cost to date adds up to what the next charge would post;
 * each way an instance ends has its one word.
 */
import type { FleetViewRow } from '../../src/db/queries/fleet-views';
import type { InstanceCosts, InstanceRow } from '../../src/db/queries/instances';
import { chargeForElapsed } from '../../src/domain/money';
import type { ProviderInstance } from '../../src/providers/types';
import { endKindOf, toInstanceDetail } from '../../src/http/records/instances';
import { fleetList } from '../../src/http/routes/compute-list';

const T0 = Date.parse('2026-11-27T08:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

function row(overrides: Partial<InstanceRow> = {}): InstanceRow {
  return {
    id: 'launch-acc_1-key',
    account_id: 'acc_1',
    request_hash: 'h',
    provider: 'runpod',
    provider_instance_id: 'pod-1',
    provider_name: 'gpuo-pod-1',
    name: 'trainer',
    status: 'running',
    provider_status: 'RUNNING',
    gpu_type: 'rtx-a6000',
    gpu_count: 1,
    price_per_hour_micros: 790_000,
    spot: false,
    region: null,
    docker_image: null,
    public_ip: null,
    ssh: null,
    warnings: [],
    started_at: iso(T0 + 2_000),
    metered_through: iso(T0 + 62_000),
    ended_at: null,
    end_reason: null,
    lifecycle_warning: null,
    created_at: iso(T0),
    provider_key_fingerprint: null,
    key_warning: null,
    accepted_at: iso(T0 + 500),
    idle_stop: null,
    ...overrides,
  };
}

function listed(status: ProviderInstance['status'], providerStatus: string): ProviderInstance {
  return {
    id: 'pod-1',
    provider: 'runpod',
    name: 'gpuo-pod-1',
    status,
    providerStatus,
    gpuType: 'rtx-a6000',
    gpuCount: 1,
    pricePerHour: 0.79,
    spot: false,
    region: null,
    dockerImage: null,
    publicIp: null,
    ssh: null,
    createdAt: iso(T0),
    startedAt: iso(T0 + 2_000),
  };
}

const view = (instances: ProviderInstance[], observedMs: number): FleetViewRow => ({
  account_id: 'acc_1',
  provider: 'runpod',
  instances,
  observed_at: iso(observedMs),
  failed_at: null,
  error_code: null,
  error_message: null,
  viewed_until: null,
});

const costs = (posted: number, meterPrice: number | null = 790_000): InstanceCosts => ({
  posted_micros: posted,
  charge_count: 1,
  meter_price_micros: meterPrice,
  charges: [],
});

describe('the live list', () => {
  it.each(['terminated', 'failed'] as const)(
    'leaves out a %s instance even while the provider still lists it running',
    (status) => {
      const ended = row({ status, provider_status: null, ended_at: iso(T0 + 70_000) });
      const { data } = fleetList(['runpod'], [view([listed('running', 'RUNNING')], T0 + 60_000)], [ended]);
      expect(data).toEqual([]);
    },
  );

  it('keeps a stopped instance and a running one', () => {
    const { data } = fleetList(['runpod'], [view([listed('running', 'RUNNING')], T0 + 60_000)], [row()]);
    expect(data.map((i) => [i.id, i.status, i.provider_status])).toEqual([['pod-1', 'running', 'RUNNING']]);
    const stopped = fleetList(
      ['runpod'],
      [view([listed('stopped', 'EXITED')], T0 + 60_000)],
      [row({ status: 'stopped', provider_status: 'EXITED' })],
    );
    expect(stopped.data.map((i) => i.status)).toEqual(['stopped']);
  });
});

describe('the record', () => {
  const terminated = row({ status: 'terminated', provider_status: null, ended_at: iso(T0 + 70_000), end_reason: null });

  it(
    'of an instance ended here that a later round still lists running: ' + 'terminating, with what the provider says',
    () => {
      const detail = toInstanceDetail(terminated, {
        costs: costs(15_000),
        events: [],
        now: new Date(T0 + 80_000),
        listed: { instance: listed('running', 'RUNNING'), observedAt: iso(T0 + 75_000) },
      });
      expect(detail).toMatchObject({
        status: 'terminating',
        provider_status: 'RUNNING',
        provider_view: { status: 'running', provider_status: 'RUNNING' },
      });
      expect(detail.warnings!.join(' ')).toMatch(/runpod still lists it \(RUNNING\); the service keeps terminating it/);
    },
  );

  it('of an instance ended here that only the round before its end listed running: terminated', () => {
    const detail = toInstanceDetail(terminated, {
      costs: costs(15_000),
      events: [],
      now: new Date(T0 + 80_000),
      listed: { instance: listed('running', 'RUNNING'), observedAt: iso(T0 + 65_000) },
    });
    expect(detail).toMatchObject({ status: 'terminated', end_kind: 'terminated' });
    expect(detail.provider_view).toBeUndefined();
  });

  it('of an instance ended here that a later round lists as terminating at the provider: terminated', () => {
    const detail = toInstanceDetail(terminated, {
      costs: costs(15_000),
      events: [],
      now: new Date(T0 + 80_000),
      listed: { instance: listed('terminating', 'terminating'), observedAt: iso(T0 + 75_000) },
    });
    expect(detail).toMatchObject({ status: 'terminated', end_kind: 'terminated' });
    expect(detail.warnings ?? []).toEqual([]);
  });

  it('of an ended instance no round lists: terminated, nothing accruing, cost the posted charges', () => {
    const detail = toInstanceDetail(terminated, { costs: costs(15_000), events: [], now: new Date(T0 + 80_000) });
    expect(detail).toMatchObject({
      status: 'terminated',
      provider_status: null,
      end_kind: 'terminated',
      cost: { to_date: 0.015, posted: 0.015, accrued: 0 },
    });
    expect(detail.provider_view).toBeUndefined();
    expect(detail.timeline.map((e) => e.event)).toEqual(['requested', 'created', 'terminated']);
  });

  it('of a running instance: accrued is what the next charge would post, computed from the start', () => {
    const r = row();
    const now = T0 + 62_000 + 37_123;
    const started = Date.parse(r.started_at!);
    const posted = chargeForElapsed(790_000, 60_000);
    const detail = toInstanceDetail(r, { costs: costs(posted), events: [], now: new Date(now) });
    const accrued = chargeForElapsed(790_000, now - started) - chargeForElapsed(790_000, 60_000);
    expect(Math.round(detail.cost.accrued * 1e6)).toBe(accrued);
    expect(Math.round(detail.cost.to_date * 1e6)).toBe(chargeForElapsed(790_000, now - started));
  });

  it('meters at the admitted quote when the provider gave no price, and shows that price', () => {
    const detail = toInstanceDetail(row({ price_per_hour_micros: null }), {
      costs: costs(0, 1_000_000),
      events: [],
      now: new Date(T0 + 62_000 + 3_600),
    });
    expect(detail.price_per_hour).toBe(1);
    expect(Math.round(detail.cost.accrued * 1e6)).toBe(
      chargeForElapsed(1_000_000, 60_000 + 3_600) - chargeForElapsed(1_000_000, 60_000),
    );
  });

  it('shows an idle stop once, with its reason', () => {
    const at = iso(T0 + 70_000);
    const reason = 'idle stop: every GPU below 5% utilization for 10 min';
    const events = ['instance.started', 'instance.idle_stopped', 'instance.stopped'].map((type, n) => ({
      id: `evt_${n}`,
      account_id: 'acc_1',
      type,
      created_at: at,
      data: type === 'instance.started' ? { started_at: iso(T0 + 2_000) } : { at, reason },
    }));
    const detail = toInstanceDetail(row({ status: 'stopped', end_reason: reason }), {
      costs: costs(0),
      events,
      now: new Date(T0 + 80_000),
    });
    expect(detail.timeline).toEqual([
      { event: 'requested', at: iso(T0) },
      { event: 'created', at: iso(T0 + 500) },
      { event: 'running', at: iso(T0 + 2_000) },
      { event: 'idle_stopped', at, reason },
    ]);
  });
});

describe('why an instance ended', () => {
  it.each([
    [{ status: 'terminated', end_reason: null }, undefined, 'terminated'],
    [{ status: 'terminated', end_reason: 'spot capacity reclaimed by the provider' }, 'spot.preempted', 'preempted'],
    [
      { status: 'terminated', end_reason: 'idle stop: every GPU below 5% utilization for 10 min' },
      undefined,
      'idle_stopped',
    ],
    [{ status: 'failed', end_reason: 'boot deadline passed' }, 'instance.failed', 'boot_failed'],
    [{ status: 'terminated', end_reason: 'the provider ended the instance' }, 'instance.terminated', 'lost'],
    [
      { status: 'terminated', end_reason: 'prepaid balance depleted: no top-up within the 10 min grace period' },
      undefined,
      'balance_depleted',
    ],
  ] as const)('%j (%s) is %s', (r, event, kind) => {
    expect(endKindOf(r, event)).toBe(kind);
  });
});
