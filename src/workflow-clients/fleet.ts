/**
 * Client side of the observers (`observe-<account>-<provider>`) for the fleet view: a list keeps the
 * account's observers going while someone looks, and `?refresh=true` (or a first list) asks them for a round
 * now and waits, within a short bound, for that round to land in the view. Requests for the same account and
 * provider in this process share one signal and one wait; the observer makes requests from several processes
 * share one round and spaces refresh rounds by the provider's rate limit.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { FleetViewQueries, FleetViewRow } from '../db/queries/fleet-views';
import type { Logger } from '../logger';
import type { ProviderId } from '../providers/types';
import {
  observeNowSignal,
  observerWorkflowId,
  providerObservedSignal,
  WAKE_GAP_MS,
  watchInstanceSignal,
  type ObservationDelivery,
  type ObserverInput,
  type ProviderObservation,
} from '../../workflows/contracts/observation';
import { runSearchAttributes } from '../../workflows/contracts/search-attributes';
import { observeProviderInstances } from '../../workflows/observe-instances';
import { withEngine } from './engine';

export interface FleetSettings {
  /** How long a list keeps the observers going (`FLEET_VIEW_LEASE`, 5 min). */
  viewLeaseMs: number;
  /** How long a refresh waits for its round before answering with what is known (`FLEET_REFRESH_WAIT`, 5 s). */
  refreshWaitMs: number;
  /** Shortest gap between refresh rounds per provider, from its rate limit (RunPod and Vast.ai 2 s, Lambda 5 s). */
  refreshMinGapMs: Record<ProviderId, number>;
}

export const DEFAULT_FLEET_SETTINGS: FleetSettings = {
  viewLeaseMs: 5 * 60_000,
  refreshWaitMs: 5_000,
  // RunPod: 60 list requests a minute per key; Vast.ai: about 1-2 requests a second before 429; Lambda: about
  // 1 request a second (reference/provider-apis.md): a refresh round never takes more than a share of those.
  refreshMinGapMs: { runpod: 2_000, vastai: 2_000, lambda: 5_000 },
};

/** The observer's intervals (the same a launch hands it): steady, spot, boot looks, activity timeout. */
export type ObserverTiming = Pick<ObserverInput, 'steadyMs' | 'spotMs' | 'bootMs' | 'activityTimeoutMs'>;

const POLL_MS = 50;

/**
 * Tells the observer of the input's account and provider about a new instance (row id), starting it when it
 * does not run (signal-with-start): what a launch does once its create is recorded. During a burst this process
 * sends one such signal per observer and {@link WAKE_GAP_MS} (`bootMs` if shorter): an instance recorded
 * meanwhile joins the next round, which comes within that gap because the instance told about last still boots.
 * Throws when the engine cannot be reached (the launch workflow then makes sure of the observer itself).
 */
export function createInstanceWatch(temporal: { client: Client; taskQueue: string }) {
  const { client, taskQueue } = temporal;
  const lastSentMs = new Map<string, number>();
  return async (input: ObserverInput, instanceId: string): Promise<void> => {
    const workflowId = observerWorkflowId(input.accountId, input.provider);
    const now = Date.now();
    if (now - (lastSentMs.get(workflowId) ?? -Infinity) < Math.min(WAKE_GAP_MS, input.bootMs)) return;
    if (lastSentMs.size > 10_000) lastSentMs.clear(); // bounded: forgetting only costs a signal
    lastSentMs.set(workflowId, now); // before the call: launches at the same moment share it too
    try {
      await withEngine(client, () =>
        client.workflow.signalWithStart(observeProviderInstances, {
          workflowId,
          taskQueue,
          args: [input],
          signal: watchInstanceSignal,
          signalArgs: [instanceId],
          typedSearchAttributes: runSearchAttributes({ accountId: input.accountId, provider: input.provider }),
        }),
      );
    } catch (err) {
      lastSentMs.delete(workflowId);
      throw err;
    }
  };
}

/** How long one `providerObserved` signal waits for the engine before the observer workflow is left to send it. */
const DELIVERY_DEADLINE_MS = 5_000;

/**
 * Tells an instance's launch workflow (workflow id = row id) what the provider said: the signal the observer's
 * round sends from its activity, so the observer workflow's history does not carry a signal command and its
 * answer per change. `ended`: the workflow has finished (nothing left to act on). `undelivered`: the engine
 * could not be reached or did not answer in time; the round then hands the change to the observer workflow,
 * which signals it durably itself.
 */
export function createObservationDelivery(temporal: { client: Client }, deadlineMs = DELIVERY_DEADLINE_MS) {
  const { client } = temporal;
  return async (rowId: string, observation: ProviderObservation): Promise<ObservationDelivery> => {
    try {
      await withEngine(
        client,
        () => client.workflow.getHandle(rowId).signal(providerObservedSignal, observation),
        deadlineMs,
      );
      return 'delivered';
    } catch (err) {
      return err instanceof WorkflowNotFoundError ? 'ended' : 'undelivered';
    }
  };
}

export function createFleetClient(deps: {
  temporal: { client: Client; taskQueue: string };
  views: FleetViewQueries;
  timing: ObserverTiming;
  settings?: Partial<FleetSettings>;
  logger: Logger;
}) {
  const { client, taskQueue } = deps.temporal;
  const settings = { ...DEFAULT_FLEET_SETTINGS, ...deps.settings };
  const inFlight = new Map<string, Promise<void>>();

  /** Signals the observer, starting it when it does not run; an unreachable engine is logged, never thrown. */
  async function observeNow(
    accountId: string,
    provider: ProviderId,
    refresh: boolean,
    requestedAtMs: number,
  ): Promise<boolean> {
    const input: ObserverInput = {
      accountId,
      provider,
      ...deps.timing,
      refreshMinGapMs: settings.refreshMinGapMs[provider],
    };
    try {
      await withEngine(client, () =>
        client.workflow.signalWithStart(observeProviderInstances, {
          workflowId: observerWorkflowId(accountId, provider),
          taskQueue,
          args: [input],
          signal: observeNowSignal,
          signalArgs: [{ refresh, requestedAtMs }],
          typedSearchAttributes: runSearchAttributes({ accountId, provider }),
        }),
      );
      return true;
    } catch (err) {
      deps.logger.warn('fleet view: could not reach the observer', { accountId, provider, err });
      return false;
    }
  }

  /** Whether the view has heard from the provider (a good round or a failure) since `sinceMs`. */
  const answered = (view: FleetViewRow | undefined, sinceMs: number) =>
    Boolean(
      view &&
      ((view.observed_at && Date.parse(view.observed_at) >= sinceMs) ||
        (view.failed_at && Date.parse(view.failed_at) >= sinceMs)),
    );

  async function refreshOne(accountId: string, provider: ProviderId): Promise<void> {
    const requestedAtMs = Date.now();
    if (!(await observeNow(accountId, provider, true, requestedAtMs))) return;
    const deadline = requestedAtMs + settings.refreshWaitMs;
    while (Date.now() < deadline) {
      const views = await deps.views.listForAccount(accountId);
      if (
        answered(
          views.find((v) => v.provider === provider),
          requestedAtMs,
        )
      )
        return;
      await new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(1, deadline - Date.now()))));
    }
  }

  return {
    settings,

    /**
     * Marks the account's view as looked at and wakes the observers of `providers` whose lease had run out (a
     * first list, or a viewer back after a pause); they keep their normal cadence while the lease lasts.
     */
    async keepWatching(
      accountId: string,
      views: readonly FleetViewRow[],
      providers: readonly ProviderId[],
      /** Providers about to be refreshed: their signal comes with the refresh. */
      refreshing: readonly ProviderId[] = [],
    ): Promise<void> {
      const now = Date.now();
      const leaseOf = (p: ProviderId) => {
        const until = views.find((v) => v.provider === p)?.viewed_until;
        return until ? Date.parse(until) : 0;
      };
      // Written once per half lease, not on every list.
      const renew = providers.filter((p) => leaseOf(p) < now + settings.viewLeaseMs / 2);
      if (renew.length === 0) return;
      await deps.views.markViewed(accountId, renew, new Date(now + settings.viewLeaseMs));
      await Promise.all(
        renew
          .filter((p) => leaseOf(p) < now && !refreshing.includes(p))
          .map((p) => observeNow(accountId, p, false, now)),
      );
    },

    /**
     * Asks the observers of `providers` for a round now and resolves when each has answered (its round ended,
     * well or not) or after `refreshWaitMs`, whichever comes first. Never throws for the engine or a provider.
     */
    async refresh(accountId: string, providers: readonly ProviderId[]): Promise<void> {
      await Promise.all(
        providers.map((provider) => {
          const key = `${accountId}:${provider}`;
          let pending = inFlight.get(key);
          if (!pending) {
            pending = refreshOne(accountId, provider).finally(() => inFlight.delete(key));
            inFlight.set(key, pending);
          }
          return pending;
        }),
      );
    },
  };
}
export type FleetClient = ReturnType<typeof createFleetClient>;
