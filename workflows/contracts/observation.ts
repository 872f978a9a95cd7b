/**
 * Contract of the observation family: the (account, provider) observer `observeProviderInstances` (workflow id
 * `observe-<account>-<provider>`) and what it and the launch workflows say to each other. A leaf, so the two
 * workflow files do not import each other.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { ProviderId, ProviderInstance } from '../../src/providers/types';

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

/** Launch workflow → observer: watch this instance (row id); wakes the observer when the instance is new to it. */
export const watchInstanceSignal = defineSignal<[string]>('watchInstance');

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
  /** Longest interval while an instance boots (looks 1 s, 2 s, … apart up to this; metering starts within it of the real start; 3 s). */
  bootMs: number;
  /** Longest wait after failures (429s, provider down, key gone); default 10 min. */
  maxBackoffMs?: number;
  activityTimeoutMs?: number;
  /** Rounds before continuing as new (bounded history); default 300. */
  continueAsNewAfter?: number;
  /** Carried over a continue-as-new. */
  carried?: { backoffMs: number; status: ObserverStatus };
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
  /** The last round's failure (`provider_rate_limited: …`), null once a round succeeds. */
  lastFailure: string | null;
}
export const observerStatusQuery = defineQuery<ObserverStatus>('status');
