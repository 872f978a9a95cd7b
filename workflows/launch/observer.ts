/** The launch workflow's side of batched observation: making sure the observer runs, and taking its word. */
import {
  ChildWorkflowCancellationType,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  sleep,
  startChild,
} from '@temporalio/workflow';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import {
  observerInputOf,
  observerWorkflowId,
  watchInstanceSignal,
  type ObserverInput,
  type ProviderObservation,
} from '../contracts/observation';
import { ACCOUNT_ID_ATTRIBUTE, PROVIDER_ATTRIBUTE } from '../contracts/search-attributes';
import type { LaunchContext, LaunchState } from './state';

/**
 * Makes sure the observer of this account and provider runs and knows this instance: a signal when it runs
 * (it wakes for an instance new to it), else a start as an abandoned child (it outlives this workflow).
 * Races with an observer that is just ending are settled by trying again; never throws.
 */
export async function ensureObserver(c: LaunchContext): Promise<void> {
  const { input } = c;
  const observerId = observerWorkflowId(input.accountId, input.provider);
  const observerInput: ObserverInput = observerInputOf(input);
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await getExternalWorkflowHandle(observerId).signal(watchInstanceSignal, c.id);
      return;
    } catch {
      // not running: start it
    }
    try {
      await startChild('observeProviderInstances', {
        workflowId: observerId,
        args: [observerInput],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        cancellationType: ChildWorkflowCancellationType.ABANDON,
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        typedSearchAttributes: [
          { key: ACCOUNT_ID_ATTRIBUTE, value: input.accountId },
          { key: PROVIDER_ATTRIBUTE, value: input.provider },
        ],
      });
      return;
    } catch {
      await sleep(Math.min(1000 * 2 ** attempt, 10_000)); // started by another launch meanwhile, or the engine is busy
    }
  }
}

/** The observer's word, taken: what the loops act on in batched mode. */
export function takeObservation(s: LaunchState): ProviderObservation | null {
  const taken = s.observed;
  s.observed = null;
  return taken;
}
