/**
 * Client side of the per-account spend workflow (`balanceDepletion`): told (signal-with-start) by the
 * activities when an instance starts or ends or a charge is posted, and by the Stripe webhook when a credit
 * lands or is reversed.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { balanceDepletion } from '../../workflows/balance-depletion';
import {
  DEFAULT_BALANCE_GRACE_MS,
  DEFAULT_BALANCE_LOW_RUNWAY_MS,
  depletionWorkflowId,
  spendChangedSignal,
  type SpendChange,
} from '../../workflows/contracts/billing';
import { runSearchAttributes } from '../../workflows/contracts/search-attributes';
import { coalescing } from './coalesce';
import { withEngine } from './engine';

/** BALANCE_GRACE_PERIOD and BALANCE_LOW_RUNWAY, as the workflow is started with them. */
export interface SpendWatchSettings {
  graceMs: number;
  lowRunwayMs: number;
}

export function createBillingClient(temporal: { client: Client; taskQueue: string }, settings?: SpendWatchSettings) {
  const { client, taskQueue } = temporal;
  // The workflow reads the account afresh on any signal: the signals of one account's burst (instances starting
  // together, an hour's meter ticks) are merged, each caller still covered by a signal sent after its change.
  const signalWithStart = coalescing(async (accountId: string, change: SpendChange) => {
    await withEngine(client, () =>
      client.workflow.signalWithStart(balanceDepletion, {
        workflowId: depletionWorkflowId(accountId),
        taskQueue,
        args: [
          {
            accountId,
            graceMs: settings?.graceMs ?? DEFAULT_BALANCE_GRACE_MS,
            lowRunwayMs: settings?.lowRunwayMs ?? DEFAULT_BALANCE_LOW_RUNWAY_MS,
          },
        ],
        typedSearchAttributes: runSearchAttributes({ accountId }),
        signal: spendChangedSignal,
        signalArgs: [change],
      }),
    );
  });
  return {
    /**
     * The worker's call: tells the account's spend workflow that its burn or balance moved, starting it (with
     * this worker's settings) when none runs; it reads the account and finishes at once when nothing is live.
     * Calls made while this worker's signal for the account is under way share the next one.
     */
    async notifySpendChanged(accountId: string, change: SpendChange): Promise<void> {
      await signalWithStart(accountId, change);
    },

    /**
     * The API's call (a Stripe credit or reversal): signals the spend workflow when one runs. None runs when the
     * account has nothing live, and then a credit has nothing to cancel or recompute (the next start reads the
     * account afresh; a reversal that crosses zero is recorded by the ledger itself).
     */
    async notifyBalanceMoved(accountId: string, change: SpendChange): Promise<void> {
      try {
        await withEngine(client, () =>
          client.workflow.getHandle(depletionWorkflowId(accountId)).signal(spendChangedSignal, change),
        );
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
    },
  };
}
export type BillingClient = ReturnType<typeof createBillingClient>;
