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

/** The observer of an account's instances at one provider. */
export function observerWorkflowId(accountId: string, provider: string): string {
  return `observe-${accountId}-${provider}`;
}
