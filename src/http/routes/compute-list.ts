/**
 * `GET /v1/compute`, served from the fleet view (what the observers' last rounds listed at each provider)
 * merged with the managed rows (which launch, stop and terminate write at once): no provider call per request.
 * `?refresh=true` asks for a round now and answers when it lands or after a short bound.
 */
import { z } from 'zod';
import type { FleetViewQueries, FleetViewRow } from '../../db/queries/fleet-views';
import type { InstanceQueries, InstanceRow } from '../../db/queries/instances';
import type { ProviderKeyQueries } from '../../db/queries/provider-keys';
import { PROVIDERS, type ProviderId, type ProviderInstance } from '../../providers/types';
import type { FleetClient } from '../../workflow-clients/fleet';
import type { EventQueries } from '../../db/queries/events';
import { decodeEndedCursor } from '../../db/queries/instances';
import { NotFoundError } from '../../errors';
import {
  EndedFields,
  fromProvider,
  InstanceDetail,
  InstanceRecord,
  toEndedInstance,
  toInstanceDetail,
  toInstanceRecord,
} from '../records/instances';
import type { ApiRouter } from '../route';
import { isoTimestamp } from '../schemas';
import { pathId } from '../text';

/**
 * `fresh`: the last round succeeded; `stale`: it failed (the last good view is shown); `pending`: no round has answered
 * yet.
 */
const VIEW_STATUSES = ['fresh', 'stale', 'pending'] as const;
type ViewStatus = (typeof VIEW_STATUSES)[number];

const ListedInstance = InstanceRecord.extend({
  observed_at: isoTimestamp
    .nullable()
    .describe('when the provider last reported this instance (its create answer for one not listed yet)'),
  stale: z
    .literal(true)
    .optional()
    .describe("present when the provider's last round failed: this is its last good view"),
  gpu_utilization: z
    .array(z.number())
    .nullable()
    .describe('percent per GPU as the provider last reported it (runpod, vastai); null where not reported'),
  ...EndedFields,
});
type ListedInstance = z.infer<typeof ListedInstance>;

const ProviderView = z.object({
  provider: z.enum(PROVIDERS),
  observed_at: isoTimestamp
    .nullable()
    .describe('when the provider answered the last good round (the list is as of then)'),
  status: z.enum(VIEW_STATUSES),
});
type ProviderView = z.infer<typeof ProviderView>;

const ListError = z.object({ provider: z.enum(PROVIDERS), code: z.string(), message: z.string() });
type ListError = z.infer<typeof ListError>;

const ListQuery = z
  .object({
    refresh: z
      .enum(['true', 'false'])
      .optional()
      .describe('true: ask the providers for a round now (answered within a few seconds)'),
    status: z
      .enum(['ended'])
      .optional()
      .describe('`ended`: the ended instances instead (paged, newest first, with why and what they cost)'),
    // No schema default: a generated client would send it on every live list, which takes no limit.
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(200)
      .optional()
      .describe('page size of `status=ended`, 1-200 (default 50)'),
    cursor: z
      .string()
      .refine(
        (c) => decodeEndedCursor(c) !== null,
        'is not a cursor from this list; pass next_cursor from the previous page',
      )
      .optional()
      .describe('`status=ended`: next_cursor of the previous page'),
  })
  .strict()
  .refine((q) => q.status === 'ended' || (q.limit === undefined && q.cursor === undefined), {
    message: 'limit and cursor page the ended list: pass them with status=ended',
    path: ['status'],
  })
  .refine((q) => q.status !== 'ended' || q.refresh === undefined, {
    message: 'refresh applies to the live list, not status=ended',
    path: ['refresh'],
  });

const ListResponse = z.object({
  data: z.array(ListedInstance),
  errors: z.array(ListError).optional(),
  providers: z.array(ProviderView).optional(),
  has_more: z.boolean().optional().describe('`status=ended`: whether another page follows'),
  next_cursor: z
    .string()
    .nullable()
    .optional()
    .describe('`status=ended`: pass as `cursor` for the next page; null on the last page'),
});

const InstanceParams = z.object({ provider_instance_id: pathId(128) }).strict();
/** Charges the record shows (the count covers all of them). */
const RECORD_CHARGES = 50;

const isEnded = (row: InstanceRow) => row.status === 'terminated' || row.status === 'failed';

const viewStatus = (v: FleetViewRow | undefined): ViewStatus =>
  v?.failed_at ? 'stale' : v?.observed_at ? 'fresh' : 'pending';

/**
 * The list from the views of the connected providers and the account's rows. A managed instance shows its row
 * (its workflow keeps the status, the observer the address), so one just launched is there before any round
 * lists it and one just terminated shows `terminating`/`terminated` at once; an unmanaged one shows what the
 * provider listed. An ended row is never shown (the ended list and the record show it).
 */
export function fleetList(
  connected: readonly ProviderId[],
  views: readonly FleetViewRow[],
  rows: readonly InstanceRow[],
) {
  const rowByKey = new Map(
    rows.filter((r) => r.provider_instance_id).map((r) => [`${r.provider}:${r.provider_instance_id}`, r]),
  );
  const data: ListedInstance[] = [];
  const errors: ListError[] = [];
  const providers: ProviderView[] = [];
  for (const provider of connected) {
    const view = views.find((v) => v.provider === provider);
    const status = viewStatus(view);
    providers.push({ provider, observed_at: view?.observed_at ?? null, status });
    if (status === 'stale')
      errors.push({
        provider,
        code: view!.error_code ?? 'provider_unavailable',
        message: view!.error_message ?? 'The provider could not be reached.',
      });
    const mark = (record: ListedInstance): ListedInstance => (status === 'stale' ? { ...record, stale: true } : record);
    const listed = new Set<string>();
    for (const i of view?.instances ?? []) {
      listed.add(i.id);
      if (i.status === 'terminated') continue;
      const row = rowByKey.get(`${provider}:${i.id}`);
      // Ended here (terminate answered, or the launch failed): out of the live list at once, whatever a round
      // listed before; if the provider still runs it, its record (GET /v1/compute/{id}) says so and
      // reconciliation keeps ending it.
      if (row && isEnded(row)) continue;
      data.push(
        mark({
          ...(row ? managedRecord(row, i) : fromProvider(i, undefined)),
          observed_at: view!.observed_at,
          gpu_utilization: i.gpuUtilization ?? null,
        }),
      );
    }
    // Managed instances no round has listed yet (just launched), or that a stale view predates.
    for (const row of rows) {
      if (row.provider !== provider || !row.provider_instance_id || listed.has(row.provider_instance_id)) continue;
      if (isEnded(row)) continue;
      data.push(mark({ ...toInstanceRecord(row), observed_at: row.created_at, gpu_utilization: null }));
    }
  }
  data.sort(newestFirst);
  return { data, errors, providers };
}

/**
 * Newest first by ISO timestamp (a plain comparison: localeCompare costs more than the rest of a 1,000-instance list).
 */
function newestFirst(a: { created_at: string | null }, b: { created_at: string | null }): number {
  const x = a.created_at ?? '';
  const y = b.created_at ?? '';
  return x < y ? 1 : x > y ? -1 : 0;
}

/** A managed instance: its row, with what only the provider knows (GPU name it reports, spot) from the view. */
function managedRecord(row: InstanceRow, i: ProviderInstance): InstanceRecord {
  const record = toInstanceRecord(row);
  return {
    ...record,
    public_ip: record.public_ip ?? i.publicIp,
    ssh: record.ssh ?? i.ssh,
    provider_status: record.provider_status ?? i.providerStatus,
  };
}

/** Accounts whose last list answer is kept (serialized), least recently listed dropped first. */
const MAX_CACHED_ANSWERS = 1_000;
const JSON_TYPE = { 'Content-Type': 'application/json; charset=utf-8' };

export interface ComputeListDeps {
  instances: Pick<InstanceQueries, 'listForAccount' | 'findByProviderId' | 'findCosts' | 'listEnded'>;
  /** An instance's events: its record's timeline. */
  events: Pick<EventQueries, 'listForInstance'>;
  /** Which providers the account connected (the list needs no key opened). */
  providerKeys: Pick<ProviderKeyQueries, 'listProviderKeys'>;
  /** The fleet view the list reads, and the observers' lease and refresh. */
  fleet: { views: FleetViewQueries; client: FleetClient };
}

export function registerComputeListRoute(api: ApiRouter, deps: ComputeListDeps): void {
  /**
   * The last answer per account with what it was built from: a dashboard polling an unchanged fleet costs no rebuild.
   */
  const answers = new Map<string, { version: string; body: string }>();
  api.add({
    method: 'get',
    path: '/v1/compute',
    tag: 'Compute',
    summary: "All instances visible through the account's connected provider keys",
    description:
      'Served from what the observers last listed at each provider (no provider call per request): each record has ' +
      '`observed_at`, `providers` says per provider when it was observed and whether that view is `fresh`, `stale` ' +
      '(its last round failed; the provider is also in `errors`) or `pending`. `?refresh=true` asks for a round now ' +
      'and answers when it ends or within a few seconds. An instance leaves this list once it ended (terminate ' +
      'answered). `?status=ended` lists the ended instances instead, paged (`limit`, `cursor`), newest first, each ' +
      'with `started_at`, `ended_at`, `end_kind`, `end_reason` and `total_cost`.',
    auth: true,
    query: ListQuery,
    responses: { 200: { description: 'Instances', schema: ListResponse } },
    handler: async ({ accountId, query }) => {
      if (query.status === 'ended') {
        const ended = await deps.instances.listEnded(accountId, { limit: query.limit ?? 50, cursor: query.cursor });
        // Ended instances have no provider observation: `observed_at` and `gpu_utilization` are null.
        const data: ListedInstance[] = ended.data.map((r) => ({
          ...toEndedInstance(r),
          observed_at: null,
          gpu_utilization: null,
        }));
        return { body: { data, has_more: ended.has_more, next_cursor: ended.next_cursor } };
      }
      const { fleet } = deps;
      const connected = (await deps.providerKeys.listProviderKeys(accountId)).map((k) => k.provider);
      let meta = await fleet.views.listMeta(accountId);
      // A first list (no round ever answered) waits for one, like a refresh.
      const refreshing = connected.filter(
        (p) => query.refresh === 'true' || viewStatus(meta.find((v) => v.provider === p)) === 'pending',
      );
      await fleet.client.keepWatching(accountId, meta, connected, refreshing);
      if (refreshing.length) {
        await fleet.client.refresh(accountId, refreshing);
        meta = await fleet.views.listMeta(accountId);
      }
      const rows = await deps.instances.listForAccount(accountId);
      // Nothing changed since this account's last answer (same rounds, same rows): the same body, unbuilt.
      const version = JSON.stringify([
        connected,
        meta.map((v) => [v.provider, v.observed_at, v.failed_at, v.error_code]),
        rows,
      ]);
      const cached = answers.get(accountId);
      if (cached?.version === version) return { body: cached.body, headers: JSON_TYPE };
      const { data, errors, providers } = fleetList(connected, await fleet.views.listForAccount(accountId), rows);
      const body = JSON.stringify({ data, ...(errors.length ? { errors } : {}), providers });
      answers.delete(accountId);
      answers.set(accountId, { version, body });
      if (answers.size > MAX_CACHED_ANSWERS) answers.delete(answers.keys().next().value!);
      return { body, headers: JSON_TYPE };
    },
  });

  api.add({
    method: 'get',
    path: '/v1/compute/{provider_instance_id}',
    tag: 'Compute',
    summary: 'One instance: its record, timeline, cost to date and charges',
    description:
      'A managed instance of this account, live or ended: what happened to it and when (`timeline`), ' +
      'what it cost so far ' +
      "(`cost.to_date` = the ledger's charges `cost.posted` + `cost.accrued` since its last charge), " +
      'its latest charges and the ' +
      'price it runs at. An instance ended here that its provider still lists shows `terminating` with ' +
      '`provider_view`.',
    auth: true,
    params: InstanceParams,
    responses: { 200: { description: 'The instance record', schema: InstanceDetail } },
    errors: [404],
    handler: async ({ accountId, params }) => {
      const row = await deps.instances.findByProviderId(accountId, params.provider_instance_id);
      if (!row) throw new NotFoundError(`No instance ${params.provider_instance_id} in this account.`);
      const [costs, events] = await Promise.all([
        deps.instances.findCosts(accountId, row, RECORD_CHARGES),
        deps.events.listForInstance(accountId, params.provider_instance_id),
      ]);
      let listed: { instance: ProviderInstance; observedAt: string | null } | undefined;
      if (isEnded(row)) {
        const view = (await deps.fleet.views.listForAccount(accountId)).find((v) => v.provider === row.provider);
        // Only a round after the end counts: one from before it lists the instance as it was then.
        const after = view?.observed_at && row.ended_at && view.observed_at > row.ended_at;
        const instance = after ? view.instances.find((i) => i.id === row.provider_instance_id) : undefined;
        if (instance) listed = { instance, observedAt: view!.observed_at };
      }
      return { body: toInstanceDetail(row, { costs, events, listed, now: new Date() }) };
    },
  });
}
