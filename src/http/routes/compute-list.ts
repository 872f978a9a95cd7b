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
import { fromProvider, InstanceRecord, toInstanceRecord } from '../records/instances';
import type { ApiRouter } from '../route';
import { isoTimestamp } from '../schemas';

/** `fresh`: the last round succeeded; `stale`: it failed (the last good view is shown); `pending`: no round has answered yet. */
const VIEW_STATUSES = ['fresh', 'stale', 'pending'] as const;
type ViewStatus = (typeof VIEW_STATUSES)[number];

const ListedInstance = InstanceRecord.extend({
  observed_at: isoTimestamp.nullable().describe('when the provider last reported this instance (its create answer for one not listed yet)'),
  stale: z.literal(true).optional().describe("present when the provider's last round failed: this is its last good view"),
  gpu_utilization: z.array(z.number()).nullable().describe('percent per GPU as the provider last reported it (runpod, vastai); null where not reported'),
});
type ListedInstance = z.infer<typeof ListedInstance>;

const ProviderView = z.object({
  provider: z.enum(PROVIDERS),
  observed_at: isoTimestamp.nullable().describe("when the provider answered the last good round (the list is as of then)"),
  status: z.enum(VIEW_STATUSES),
});
type ProviderView = z.infer<typeof ProviderView>;

const ListError = z.object({ provider: z.enum(PROVIDERS), code: z.string(), message: z.string() });
type ListError = z.infer<typeof ListError>;

const ListQuery = z
  .object({ refresh: z.enum(['true', 'false']).optional().describe('true: ask the providers for a round now (answered within a few seconds)') })
  .strict();

const ListResponse = z.object({ data: z.array(ListedInstance), errors: z.array(ListError).optional(), providers: z.array(ProviderView).optional() });

const viewStatus = (v: FleetViewRow | undefined): ViewStatus => (v?.failed_at ? 'stale' : v?.observed_at ? 'fresh' : 'pending');

/**
 * The list from the views of the connected providers and the account's rows. A managed instance shows its row
 * (its workflow keeps the status, the observer the address), so one just launched is there before any round
 * lists it and one just terminated shows `terminating`/`terminated` at once; an unmanaged one shows what the
 * provider listed. An ended row is shown only while the view still lists its instance.
 */
export function fleetList(connected: readonly ProviderId[], views: readonly FleetViewRow[], rows: readonly InstanceRow[]) {
  const rowByKey = new Map(rows.filter((r) => r.provider_instance_id).map((r) => [`${r.provider}:${r.provider_instance_id}`, r]));
  const data: ListedInstance[] = [];
  const errors: ListError[] = [];
  const providers: ProviderView[] = [];
  for (const provider of connected) {
    const view = views.find((v) => v.provider === provider);
    const status = viewStatus(view);
    providers.push({ provider, observed_at: view?.observed_at ?? null, status });
    if (status === 'stale') errors.push({ provider, code: view!.error_code ?? 'provider_unavailable', message: view!.error_message ?? 'The provider could not be reached.' });
    const mark = (record: ListedInstance): ListedInstance => (status === 'stale' ? { ...record, stale: true } : record);
    const listed = new Set<string>();
    for (const i of view?.instances ?? []) {
      listed.add(i.id);
      if (i.status === 'terminated') continue;
      const row = rowByKey.get(`${provider}:${i.id}`);
      data.push(mark({ ...(row ? managedRecord(row, i) : fromProvider(i, undefined)), observed_at: view!.observed_at, gpu_utilization: i.gpuUtilization ?? null }));
    }
    // Managed instances no round has listed yet (just launched), or that a stale view predates.
    for (const row of rows) {
      if (row.provider !== provider || !row.provider_instance_id || listed.has(row.provider_instance_id)) continue;
      if (row.status === 'terminated' || row.status === 'failed') continue;
      data.push(mark({ ...toInstanceRecord(row), observed_at: row.created_at, gpu_utilization: null }));
    }
  }
  data.sort(newestFirst);
  return { data, errors, providers };
}

/** Newest first by ISO timestamp (a plain comparison: localeCompare costs more than the rest of a 1,000-instance list). */
function newestFirst(a: { created_at: string | null }, b: { created_at: string | null }): number {
  const x = a.created_at ?? '';
  const y = b.created_at ?? '';
  return x < y ? 1 : x > y ? -1 : 0;
}

/** A managed instance: its row, with what only the provider knows (GPU name it reports, spot) from the view. */
function managedRecord(row: InstanceRow, i: ProviderInstance): InstanceRecord {
  const record = toInstanceRecord(row);
  return { ...record, public_ip: record.public_ip ?? i.publicIp, ssh: record.ssh ?? i.ssh, provider_status: record.provider_status ?? i.providerStatus };
}

/** Accounts whose last list answer is kept (serialized), least recently listed dropped first. */
const MAX_CACHED_ANSWERS = 1_000;
const JSON_TYPE = { 'Content-Type': 'application/json; charset=utf-8' };

export interface ComputeListDeps {
  instances: Pick<InstanceQueries, 'listForAccount'>;
  /** Which providers the account connected (the list needs no key opened). */
  providerKeys: Pick<ProviderKeyQueries, 'listProviderKeys'>;
  /** The fleet view the list reads, and the observers' lease and refresh. */
  fleet: { views: FleetViewQueries; client: FleetClient };
}

export function registerComputeListRoute(api: ApiRouter, deps: ComputeListDeps): void {
  /** The last answer per account with what it was built from: a dashboard polling an unchanged fleet costs no rebuild. */
  const answers = new Map<string, { version: string; body: string }>();
  api.add({
    method: 'get',
    path: '/v1/compute',
    tag: 'Compute',
    summary: "All instances visible through the account's connected provider keys",
    description:
      'Served from what the observers last listed at each provider (no provider call per request): each record has `observed_at`, ' +
      '`providers` says per provider when it was observed and whether that view is `fresh`, `stale` (its last round failed; the ' +
      'provider is also in `errors`) or `pending`. `?refresh=true` asks for a round now and answers when it ends or within a few seconds.',
    auth: true,
    query: ListQuery,
    responses: { 200: { description: 'Instances', schema: ListResponse } },
    handler: async ({ accountId, query }) => {
      const { fleet } = deps;
      const connected = (await deps.providerKeys.listProviderKeys(accountId)).map((k) => k.provider);
      let meta = await fleet.views.listMeta(accountId);
      // A first list (no round ever answered) waits for one, like a refresh.
      const refreshing = connected.filter((p) => query.refresh === 'true' || viewStatus(meta.find((v) => v.provider === p)) === 'pending');
      await fleet.client.keepWatching(accountId, meta, connected, refreshing);
      if (refreshing.length) {
        await fleet.client.refresh(accountId, refreshing);
        meta = await fleet.views.listMeta(accountId);
      }
      const rows = await deps.instances.listForAccount(accountId);
      // Nothing changed since this account's last answer (same rounds, same rows): the same body, unbuilt.
      const version = JSON.stringify([connected, meta.map((v) => [v.provider, v.observed_at, v.failed_at, v.error_code]), rows]);
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
}
