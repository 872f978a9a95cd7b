/**
 * The instance record of the API (launch, stop, terminate, the list), and the mappings from a row and a provider's
 * view.
 */
import { z } from 'zod';
import type { EventRow } from '../../db/queries/events';
import type { EndedInstanceRow, InstanceCosts, InstanceRow } from '../../db/queries/instances';
import { toTransactionRecord, TransactionRecord } from '../../db/queries/ledger';
import { chargeForElapsed, microsToDollars } from '../../domain/money';
import { PROVIDERS, type ProviderInstance } from '../../providers/types';
import { IdleStopBody } from '../launch-schemas';
import { isoTimestamp } from '../schemas';

const STATUSES = [
  'provisioning',
  'running',
  'stopping',
  'stopped',
  'terminating',
  'terminated',
  'failed',
  'unknown',
] as const;

export const InstanceRecord = z.object({
  id: z.string().describe("the provider's own instance id (used in paths)"),
  provider: z.enum(PROVIDERS),
  name: z.string().nullable(),
  status: z.enum(STATUSES),
  provider_status: z.string().nullable(),
  gpu_type: z.string().nullable(),
  gpu_count: z.number().int(),
  price_per_hour: z.number().nullable().describe('dollars per hour for the whole instance'),
  spot: z.boolean(),
  region: z.string().nullable(),
  docker_image: z.string().nullable(),
  public_ip: z.string().nullable(),
  ssh: z.object({ host: z.string(), port: z.number(), user: z.string() }).nullable(),
  created_at: isoTimestamp.nullable(),
  managed: z.boolean().describe('true for instances launched through this service'),
  warnings: z.array(z.string()).optional(),
  end_reason: z.string().optional().describe('why the service itself stopped or ended the instance, when it did'),
  idle_stop: IdleStopBody.optional().describe(
    'the idle-stop rule the instance was launched with (beyond the spec); absent: none',
  ),
});
export type InstanceRecord = z.infer<typeof InstanceRecord>;

export function toInstanceRecord(row: InstanceRow): InstanceRecord {
  const warnings = [
    ...row.warnings,
    ...(row.lifecycle_warning ? [row.lifecycle_warning] : []),
    ...(row.key_warning ? [row.key_warning] : []),
  ];
  return {
    id: row.provider_instance_id ?? row.id,
    provider: row.provider,
    name: row.name,
    status: row.status,
    provider_status: row.provider_status,
    gpu_type: row.gpu_type,
    gpu_count: row.gpu_count,
    price_per_hour: row.price_per_hour_micros === null ? null : microsToDollars(row.price_per_hour_micros),
    spot: row.spot,
    region: row.region,
    docker_image: row.docker_image,
    public_ip: row.public_ip,
    ssh: row.ssh,
    created_at: row.created_at,
    managed: true,
    ...(warnings.length ? { warnings } : {}),
    ...(row.end_reason ? { end_reason: row.end_reason } : {}),
    ...(row.idle_stop ? { idle_stop: row.idle_stop } : {}),
  };
}

export function fromProvider(i: ProviderInstance, row: InstanceRow | undefined): InstanceRecord {
  const base = row ? toInstanceRecord(row) : null;
  return {
    id: i.id,
    provider: i.provider,
    name: base?.name ?? i.name,
    status: i.status,
    provider_status: i.providerStatus,
    gpu_type: i.gpuType ?? base?.gpu_type ?? null,
    gpu_count: i.gpuCount,
    // A managed instance shows the price it is metered at (fixed at launch), not what the provider says now.
    price_per_hour: base?.price_per_hour ?? i.pricePerHour ?? null,
    spot: i.spot,
    region: i.region,
    docker_image: i.dockerImage ?? base?.docker_image ?? null,
    public_ip: i.publicIp,
    ssh: i.ssh,
    created_at: base?.created_at ?? i.createdAt,
    managed: Boolean(row),
    ...(base?.warnings ? { warnings: base.warnings } : {}),
    ...(base?.end_reason ? { end_reason: base.end_reason } : {}),
    ...(base?.idle_stop ? { idle_stop: base.idle_stop } : {}),
  };
}

/** Why an instance ended, as one word a user can filter on; `end_reason` keeps the sentence. */
export const END_KINDS = [
  'terminated',
  'preempted',
  'idle_stopped',
  'boot_failed',
  'lost',
  'balance_depleted',
  'key_cap',
] as const;
export type EndKind = (typeof END_KINDS)[number];

/** The kind of an ended row, from its status, its end event and the reason the workflow wrote. */
export function endKindOf(row: Pick<InstanceRow, 'status' | 'end_reason'>, endEvent?: string): EndKind {
  const reason = (row.end_reason ?? '').toLowerCase();
  if (endEvent === 'spot.preempted' || reason.startsWith('spot capacity reclaimed')) return 'preempted';
  if (endEvent === 'instance.idle_stopped' || reason.startsWith('idle stop')) return 'idle_stopped';
  if (reason.startsWith('prepaid balance depleted')) return 'balance_depleted';
  if (reason.includes('key cap') || reason.includes('spend cap')) return 'key_cap';
  if (reason.startsWith('the provider ended the instance') || reason.startsWith('the provider no longer knows'))
    return 'lost';
  // A failed row with a provider instance: created, then it never came up (or its launch gave up on it).
  if (row.status === 'failed') return 'boot_failed';
  return 'terminated';
}

const TIMELINE_EVENTS = [
  'requested',
  'created',
  'running',
  'stopped',
  'idle_stopped',
  'preempted',
  'terminated',
  'failed',
] as const;
const TimelineEntry = z.object({
  event: z.enum(TIMELINE_EVENTS),
  at: isoTimestamp,
  reason: z.string().optional().describe('why, where the service or the provider said'),
});
type TimelineEntry = z.infer<typeof TimelineEntry>;

/** What each instance event is on the timeline. */
const TIMELINE_OF_EVENT: Record<string, (typeof TIMELINE_EVENTS)[number]> = {
  'instance.started': 'running',
  'instance.stopped': 'stopped',
  'instance.idle_stopped': 'idle_stopped',
  'spot.preempted': 'preempted',
  'instance.terminated': 'terminated',
  'instance.failed': 'failed',
};

const Money = z.number().describe('dollars');

export const InstanceDetail = InstanceRecord.extend({
  started_at: isoTimestamp.nullable().describe('when metering started (the provider reported it running)'),
  ended_at: isoTimestamp.nullable(),
  end_kind: z
    .enum(END_KINDS)
    .optional()
    .describe('present once the instance ended: why, as one word (`end_reason` has the sentence)'),
  timeline: z
    .array(TimelineEntry)
    .describe(
      'what happened to the instance, in the order it happened; `running` is at the start the provider reported, ' +
        'which can be a moment before its create answered (`created`)',
    ),
  cost: z
    .object({
      to_date: Money.describe('posted + accrued'),
      posted: Money.describe('what the ledger has charged the instance (the sum of its instance charges)'),
      accrued: Money.describe(
        'what it has run up since its last charge, charged at the next meter interval or at its end',
      ),
    })
    .describe('the cost of the instance so far, at `price_per_hour`'),
  charges: z.object({
    count: z.number().int(),
    latest: z
      .array(TransactionRecord)
      .describe('the newest charges, at most 50, newest first (all of them: GET /v1/billing/transactions)'),
  }),
  provider_view: z
    .object({
      status: z.string().nullable(),
      provider_status: z.string().nullable(),
      observed_at: isoTimestamp.nullable(),
    })
    .optional()
    .describe('what the provider last listed, when it differs from an ended record (the service keeps ending it)'),
});
export type InstanceDetail = z.infer<typeof InstanceDetail>;

/** What the record is read from besides the row. */
export interface DetailSources {
  costs: InstanceCosts;
  events: readonly EventRow[];
  /** The provider's last listing of the instance, if any round listed it, and when. */
  listed?: { instance: ProviderInstance; observedAt: string | null };
  now: Date;
}

const eventTime = (e: EventRow): string => {
  const at =
    typeof e.data.at === 'string' ? e.data.at : typeof e.data.started_at === 'string' ? e.data.started_at : null;
  return at !== null && !Number.isNaN(Date.parse(at)) ? new Date(at).toISOString() : e.created_at;
};

/**
 * The record of one instance: the row, its timeline, its cost to date (what the ledger posted plus what has
 * accrued since `metered_through` at the metering price, computed from the start as the charges are, so the two
 * add up to what the next charge would make them) and its latest charges. An ended row that the provider still
 * lists running in a round taken after its end is shown `terminating` with what the provider says: reconciliation
 * ends it.
 */
export function toInstanceDetail(row: InstanceRow, src: DetailSources): InstanceDetail {
  const record = toInstanceRecord(row);
  const price = src.costs.meter_price_micros;
  const accruedMicros =
    row.status === 'running' && row.started_at && row.metered_through && price !== null
      ? Math.max(
          0,
          chargeForElapsed(price, src.now.getTime() - Date.parse(row.started_at)) -
            chargeForElapsed(price, Date.parse(row.metered_through) - Date.parse(row.started_at)),
        )
      : 0;
  const timeline: TimelineEntry[] = [{ event: 'requested', at: row.created_at }];
  if (row.accepted_at) timeline.push({ event: 'created', at: row.accepted_at });
  let endEvent: string | undefined;
  for (const e of src.events) {
    const event = TIMELINE_OF_EVENT[e.type];
    if (!event) continue;
    if (event !== 'running' && event !== 'stopped') endEvent ??= e.type;
    const reason = typeof e.data.reason === 'string' ? e.data.reason : undefined;
    // An idle stop writes its own event and the stop or terminate it made; the timeline shows it once.
    if (
      (event === 'stopped' || event === 'terminated') &&
      timeline.some((t) => t.event === 'idle_stopped' && t.at === eventTime(e))
    )
      continue;
    timeline.push({ event, at: eventTime(e), ...(reason ? { reason } : {}) });
  }
  const ended = row.status === 'terminated' || row.status === 'failed';
  if (
    ended &&
    row.ended_at &&
    !timeline.some((t) => ['terminated', 'failed', 'preempted', 'idle_stopped'].includes(t.event))
  ) {
    timeline.push({
      event: row.status === 'failed' ? 'failed' : 'terminated',
      at: row.ended_at,
      ...(row.end_reason ? { reason: row.end_reason } : {}),
    });
  }
  // Only a round taken after the end counts: the round before it listed the instance running by definition.
  const listedSinceEnd =
    src.listed?.observedAt != null &&
    row.ended_at != null &&
    Date.parse(src.listed.observedAt) > Date.parse(row.ended_at);
  // A provider finishing the termination asked of it (Lambda's `terminating`) is not running on: only a listing
  // in any other state is.
  const stillListed =
    ended && src.listed && listedSinceEnd && !['terminated', 'terminating'].includes(src.listed.instance.status)
      ? src.listed
      : undefined;
  return {
    ...record,
    ...(stillListed
      ? {
          status: 'terminating' as const,
          provider_status: stillListed.instance.providerStatus,
          warnings: [
            ...(record.warnings ?? []),
            `Ended here, but ${row.provider} still lists it ` +
              `(${stillListed.instance.providerStatus ?? stillListed.instance.status}); the service keeps ` +
              `terminating it.`,
          ],
          provider_view: {
            status: stillListed.instance.status,
            provider_status: stillListed.instance.providerStatus,
            observed_at: stillListed.observedAt,
          },
        }
      : {}),
    price_per_hour: record.price_per_hour ?? (price === null ? null : microsToDollars(price)),
    started_at: row.started_at,
    ended_at: ended ? row.ended_at : null,
    ...(ended ? { end_kind: endKindOf(row, endEvent) } : {}),
    timeline,
    cost: {
      to_date: microsToDollars(src.costs.posted_micros + accruedMicros),
      posted: microsToDollars(src.costs.posted_micros),
      accrued: microsToDollars(accruedMicros),
    },
    charges: { count: src.costs.charge_count, latest: src.costs.charges.map(toTransactionRecord) },
  };
}

/** What an ended instance in `GET /v1/compute?status=ended` adds to its record (optional: live ones have none). */
export const EndedFields = {
  started_at: isoTimestamp.nullable().optional().describe('`status=ended`: when metering started (null: it never ran)'),
  ended_at: isoTimestamp.nullable().optional().describe('`status=ended`: when it ended'),
  end_kind: z
    .enum(END_KINDS)
    .optional()
    .describe('`status=ended`: why it ended, as one word (`end_reason` has the sentence)'),
  total_cost: Money.optional().describe('`status=ended`: what the ledger charged the instance in all'),
};

export function toEndedInstance(row: EndedInstanceRow) {
  return {
    ...toInstanceRecord(row),
    started_at: row.started_at,
    ended_at: row.ended_at,
    end_kind: endKindOf(row),
    total_cost: microsToDollars(row.posted_micros),
  };
}
