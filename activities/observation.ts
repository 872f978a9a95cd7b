/**
 * Batched observation: one provider list call per (account, provider) and interval tells every managed
 * instance's workflow what changed at the provider, instead of one poll per instance. The activity compares
 * the provider's list with the rows and tells each workflow that must act what the provider said (a signal
 * through the worker's port); what the engine could not take in time goes back to the observer workflow
 * (workflows/observe-instances.ts), which signals it durably itself.
 */
import { createFleetViewQueries } from '../src/db/queries/fleet-views';
import type { InstanceRow } from '../src/db/queries/instances';
import { bootFailure } from '../src/domain/boot-deadlines';
import { ProviderRequestError } from '../src/errors';
import type { ProviderId, ProviderInstance } from '../src/providers/types';
import { keyMayEnd, keyMismatchWarning, providerKeyFingerprint } from '../src/domain/provider-key-fingerprint';
import { providerFailureType, type FailureType } from '../workflows/contracts/failures';
import type { ObservationDelivery, ProviderObservation } from '../workflows/contracts/observation';
import type { ActivityDeps } from './deps';

export interface ObservationRound {
  /** Row ids of the managed instances watched (live rows that have a provider id). */
  watchedIds: string[];
  /** Some instance has not started yet, or is still being created: the observer looks again soon. */
  booting: boolean;
  /**
   * A live row without a provider id yet: a launch between its intent and its recorded create. The observer
   * does not end while one is there (the launch may not tell it again: a process tells an observer at most once
   * per `WAKE_GAP_MS`), and looks again soon.
   */
  launching?: boolean;
  /** A spot instance runs: the observer looks often enough to notice a preemption quickly. */
  spotRunning: boolean;
  /**
   * Instances whose workflow must act, with what the provider said, that the round did not deliver itself: the
   * observer workflow signals these (all of them when the worker has no port to deliver, or in rounds recorded
   * before the round delivered).
   */
  changes: ObservedChange[];
  /** Changes the round delivered itself (signals the launch workflows received). */
  delivered?: number;
  /**
   * Why the provider could not be asked this round; `code` is the API error code a list shows in `errors`
   * (with `publicMessage`), `retryAfterMs` the provider's own wait (429).
   */
  failure?: { kind: FailureType; code?: string; message: string; publicMessage?: string; retryAfterMs?: number };
  /** Provider calls made: one list, plus one look per instance missing from the list (a rare confirmation). */
  providerCalls: number;
  /** Someone lists the account's instances (GET /v1/compute lately): the observer keeps its cadence for them. */
  viewed?: boolean;
}

export interface ObservedChange {
  instanceId: string;
  observation: ProviderObservation;
}

/** Signals sent at once by one round. */
const DELIVERY_CONCURRENCY = 32;

/**
 * Tells each change's workflow, a few at a time. Returns how many were delivered and the changes the engine
 * did not take (for the observer workflow to send); a workflow that has ended is dropped, as nothing is left
 * to act on. Once the engine has not taken one, the later batches are not tried (each would wait out its
 * deadline): they go back to the observer workflow too.
 */
export async function deliverChanges(
  changes: ObservedChange[],
  tell: (rowId: string, observation: ProviderObservation) => Promise<ObservationDelivery>,
): Promise<{ delivered: number; undelivered: ObservedChange[] }> {
  let delivered = 0;
  const undelivered: ObservedChange[] = [];
  for (let i = 0; i < changes.length; i += DELIVERY_CONCURRENCY) {
    if (undelivered.length > 0) {
      undelivered.push(...changes.slice(i));
      break;
    }
    const batch = changes.slice(i, i + DELIVERY_CONCURRENCY);
    const outcomes = await Promise.all(
      batch.map((c) => tell(c.instanceId, c.observation).catch((): ObservationDelivery => 'undelivered')),
    );
    outcomes.forEach((outcome, j) => {
      if (outcome === 'delivered') delivered++;
      else if (outcome === 'undelivered') undelivered.push(batch[j]!);
    });
  }
  return { delivered, undelivered };
}

/** Instances missing from a list are confirmed one by one: at most this many per round, this many at once. */
const CONFIRMATIONS_PER_ROUND = 25;
const CONFIRMATION_CONCURRENCY = 5;

/** Statuses in which the workflow is itself moving the instance: an observation would only race it. */
const MOVING = new Set(['stopping', 'terminating']);

/** Whether the workflow of `row` must hear about `seen`: the moves the launch workflow makes on an observation. */
function needsAction(row: InstanceRow, seen: ProviderObservation): boolean {
  const status = seen.instance?.status;
  // Before the start, anything that means the boot failed ends the launch at once (src/domain/boot-deadlines.ts).
  if (!row.started_at && row.status !== 'stopped') return status === 'running' || bootFailure(seen) !== null;
  // An idle-stop rule needs every utilization reading (or none: a missing one moves nothing), so the workflow's window
  // sees them all.
  if (row.status === 'running')
    return (
      seen.gone ||
      status === 'stopped' ||
      (row.idle_stop !== null && status === 'running' && seen.instance?.gpuUtilization != null)
    );
  if (row.status === 'stopped') return seen.gone || status === 'running';
  return false;
}

/**
 * Whether the provider's word differs from the row in what `refreshObserved` writes (its own condition, on the
 * row the round just read): a steady fleet then costs no statement per instance and round, only a comparison.
 */
function observedFieldsDiffer(row: InstanceRow, i: ProviderInstance): boolean {
  if (row.provider_status !== i.providerStatus) return true;
  if (i.publicIp !== null && row.public_ip !== i.publicIp) return true;
  return i.ssh !== null && (row.ssh?.host !== i.ssh.host || row.ssh.port !== i.ssh.port || row.ssh.user !== i.ssh.user);
}

export function createObservationActivities(deps: ActivityDeps) {
  const { instances } = deps.queries;
  const views = createFleetViewQueries(deps.pool);

  return {
    /**
     * One observation round for an account and provider: the live managed rows, one list call with the
     * account's key, a confirming look for each instance the list lacks (a list is not trusted to prove an
     * instance gone), and field refreshes written only where something differs. Provider failures are
     * returned, not thrown: the observer decides how long to wait (a 429's `Retry-After`, backoff otherwise).
     * Every list is also the account's fleet view (GET /v1/compute reads it); a failed round marks it stale.
     * Without managed instances the provider is asked only while someone looks at the list.
     */
    async observeAccountProvider(input: { accountId: string; provider: ProviderId }): Promise<ObservationRound> {
      const live = await instances.listLive(input.accountId, input.provider);
      const rows = live.filter((r) => r.provider_instance_id !== null);
      const launching = rows.length < live.length;
      const round: ObservationRound = {
        watchedIds: rows.map((r) => r.id),
        booting: launching || rows.some((r) => !r.started_at && r.status !== 'stopped'),
        launching,
        spotRunning: rows.some((r) => r.spot && r.status === 'running'),
        changes: [],
        providerCalls: 0,
        viewed: await views.isViewed(input.accountId, input.provider),
      };
      if (rows.length === 0 && !round.viewed) return round;
      const apiKey = await deps.credentials.findApiKey(input.accountId, input.provider);
      if (apiKey === null) {
        const message = `No ${input.provider} API key is connected to this account.`;
        round.failure = {
          kind: 'provider_not_connected',
          code: 'provider_not_connected',
          message,
          publicMessage: message,
        };
        await views.recordFailure(
          input.accountId,
          input.provider,
          { code: 'provider_not_connected', message },
          new Date(),
        );
        return round;
      }
      const adapter = deps.adapters[input.provider];
      let listed: ProviderInstance[];
      try {
        round.providerCalls++;
        listed = await adapter.listInstances(apiKey);
      } catch (err) {
        round.failure = failureOf(err);
        await views.recordFailure(
          input.accountId,
          input.provider,
          {
            code: round.failure.code ?? round.failure.kind,
            message: round.failure.publicMessage ?? round.failure.message,
          },
          new Date(),
        );
        return round;
      }
      const atMs = Date.now();
      await views.recordRound(input.accountId, input.provider, listed, new Date(atMs));
      const byId = new Map(listed.map((i) => [i.id, i]));
      // The key sees these: it belongs to their provider account, so its "not found" counts for them from now on.
      const fingerprint = providerKeyFingerprint(input.provider, apiKey);
      const seenByKey = rows.filter(
        (r) => byId.has(r.provider_instance_id!) && (r.provider_key_fingerprint !== fingerprint || r.key_warning),
      );
      await instances.bindCreatingKey(
        seenByKey.map((r) => r.id),
        fingerprint,
      );
      const missing: InstanceRow[] = [];
      for (const row of rows) {
        if (MOVING.has(row.status)) continue;
        const instance = byId.get(row.provider_instance_id!);
        if (!instance) {
          missing.push(row);
          continue;
        }
        const observation: ProviderObservation = { gone: instance.status === 'terminated', instance, atMs };
        if (needsAction(row, observation)) round.changes.push({ instanceId: row.id, observation });
        else if (!observation.gone && observedFieldsDiffer(row, instance))
          await instances.refreshObserved(row.id, instance);
      }
      // Confirmations, a few at a time and at most CONFIRMATIONS_PER_ROUND per round (the rest next round), so
      // a mass disappearance cannot make one round outlast its timeout.
      const confirm = missing.slice(0, CONFIRMATIONS_PER_ROUND);
      for (let i = 0; i < confirm.length; i += CONFIRMATION_CONCURRENCY) {
        await Promise.all(
          confirm.slice(i, i + CONFIRMATION_CONCURRENCY).map(async (row) => {
            round.providerCalls++;
            let instance: ProviderInstance | null;
            try {
              instance = await adapter.getInstance(apiKey, row.provider_instance_id!);
            } catch {
              return; // not confirmed either way: next round
            }
            if (instance && (row.provider_key_fingerprint !== fingerprint || row.key_warning)) {
              await instances.bindCreatingKey([row.id], fingerprint);
            } else if (!instance && !keyMayEnd(row, fingerprint)) {
              // Not found by a key that did not create it: proves nothing. The instance keeps its status and its meter.
              await instances.setKeyWarning(row.id, keyMismatchWarning(input.provider));
              return;
            }
            const observation: ProviderObservation = {
              gone: !instance || instance.status === 'terminated',
              instance,
              atMs: Date.now(),
            };
            if (needsAction(row, observation)) round.changes.push({ instanceId: row.id, observation });
          }),
        );
      }
      const tell = deps.workflows.tellInstanceObserved;
      if (tell && round.changes.length > 0) {
        const { delivered, undelivered } = await deliverChanges(round.changes, tell);
        round.delivered = delivered;
        round.changes = undelivered;
      }
      return round;
    },
  };
}

function failureOf(err: unknown): NonNullable<ObservationRound['failure']> {
  if (err instanceof ProviderRequestError) {
    const apiError = err.toApiError();
    return {
      kind: providerFailureType(err.kind),
      code: apiError.code,
      message: err.message,
      publicMessage: apiError.message,
      ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return {
    kind: 'provider_unavailable',
    code: 'provider_unavailable',
    message,
    publicMessage: `The provider could not be reached: ${message}`,
  };
}
