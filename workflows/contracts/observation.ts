/**
 * Contract of the observation family: the (account, provider) observer `observeProviderInstances` (workflow id
 * `observe-<account>-<provider>`) and what it and the launch workflows say to each other. A leaf, so the two
 * workflow files do not import each other.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { ProviderId, ProviderInstance } from '../../src/providers/types';
import type { LaunchInput } from './launch';

/** What the provider said about one instance, and when (metering moves use this moment). */
export interface ProviderObservation {
  /** The provider no longer knows the instance, or reports it terminated. */
  gone: boolean;
  instance: ProviderInstance | null;
  /** When the provider answered (ms since the epoch). */
  atMs: number;
}

/** Observer → launch workflow: what the provider says about its instance, sent when the workflow must act. */
export const providerObservedSignal = defineSignal<[ProviderObservation]>('providerObserved');

/**
 * What became of one observation the observer's round sent to a launch workflow itself (the worker's port
 * `tellInstanceObserved`): `delivered`; `ended`, the workflow has finished; `undelivered`, the engine could not
 * be reached in time, and the round hands the change to the observer workflow, which signals it durably.
 */
export type ObservationDelivery = 'delivered' | 'ended' | 'undelivered';

/** Launch workflow → observer: watch this instance (row id); wakes the observer when the instance is new to it. */
export const watchInstanceSignal = defineSignal<[string]>('watchInstance');

/**
 * API → observer: someone lists the account's instances. `refresh` asks for a round now (GET
 * /v1/compute?refresh=true, or a first list): a round that starts after `requestedAtMs` answers it, so
 * concurrent requests share one round. Without `refresh` it only keeps an ending observer going for the viewer.
 */
export interface ObserveNowRequest {
  refresh: boolean;
  requestedAtMs: number;
}
export const observeNowSignal = defineSignal<[ObserveNowRequest]>('observeNow');

/**
 * Shortest time between the starts of two rounds that new instances ask for (`bootMs` if shorter): during a
 * burst of launches the instances recorded meanwhile share one round instead of a round each.
 */
export const WAKE_GAP_MS = 1_000;

/** The observer of an account's instances at one provider. */
export function observerWorkflowId(accountId: string, provider: string): string {
  return `observe-${accountId}-${provider}`;
}

export interface ObserverInput {
  accountId: string;
  provider: ProviderId;
  /** Interval while all is steady (INSTANCE_OBSERVE_INTERVAL, 60 s). */
  steadyMs: number;
  /** Interval while a spot instance runs (INSTANCE_OBSERVE_SPOT_INTERVAL, 10 s). */
  spotMs: number;
  /**
   * Longest interval while an instance boots (looks 1 s, 2 s, … apart up to this; metering starts within it of the real
   * start; 3 s).
   */
  bootMs: number;
  /**
   * Shortest time between the starts of two rounds a refresh asks for (`observeNow`), so that clients asking
   * for fresh lists cannot take the provider past its rate limit; default 2 s.
   */
  refreshMinGapMs?: number;
  /** Longest wait after failures (429s, provider down, key gone); default 10 min. */
  maxBackoffMs?: number;
  activityTimeoutMs?: number;
  /** Rounds before continuing as new (bounded history); default 300. */
  continueAsNewAfter?: number;
  /** Carried over a continue-as-new. */
  carried?: { backoffMs: number; status: ObserverStatus };
}

/**
 * The observer a launch makes sure of (its intervals are the launch's): the same input whether the launch's
 * own activity signals-with-start it or the workflow starts it as a child.
 */
export function observerInputOf(
  launch: Pick<
    LaunchInput,
    'accountId' | 'provider' | 'pollIntervalMs' | 'spotPollIntervalMs' | 'bootPollMaxMs' | 'activityTimeoutMs'
  >,
): ObserverInput {
  return {
    accountId: launch.accountId,
    provider: launch.provider,
    steadyMs: launch.pollIntervalMs,
    spotMs: launch.spotPollIntervalMs ?? 10_000,
    bootMs: launch.bootPollMaxMs ?? 3_000,
    activityTimeoutMs: launch.activityTimeoutMs ?? 30_000,
  };
}

export interface ObserverStatus {
  /** Managed instances watched after the last round. */
  watched: number;
  /** The wait chosen after the last round. */
  intervalMs: number;
  rounds: number;
  /** Provider calls made (list calls plus rare confirming looks). */
  providerCalls: number;
  signalsSent: number;
  /** Rounds made early because a list asked for a refresh (several requests share one). */
  refreshRounds?: number;
  /** The last round's failure (`provider_rate_limited: …`), null once a round succeeds. */
  lastFailure: string | null;
}
export const observerStatusQuery = defineQuery<ObserverStatus>('status');
