/**
 * What the (account, provider) observer and the launch workflows say to each other. A module of its own, so
 * the two workflow files do not import each other.
 */
import { defineSignal } from '@temporalio/workflow';
import type { ProviderObservation } from '../activities/observation';

/** Observer → launch workflow: what the provider says about its instance, sent when the workflow must act. */
export const providerObservedSignal = defineSignal<[ProviderObservation]>('providerObserved');

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

/** The observer of an account's instances at one provider. */
export function observerWorkflowId(accountId: string, provider: string): string {
  return `observe-${accountId}-${provider}`;
}
