/**
 * Client side of the balance-depletion workflow family: started by metering when a charge leaves the
 * balance at or below zero, signalled by the Stripe webhook when a credit lands.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { balanceDepletion } from '../../workflows/balance-depletion';
import { balanceChargedSignal, balanceCreditedSignal, depletionWorkflowId } from '../../workflows/contracts/billing';
import { runSearchAttributes } from '../../workflows/contracts/search-attributes';
import { withEngine } from './engine';

export function createBillingClient(temporal: { client: Client; taskQueue: string }) {
  const { client, taskQueue } = temporal;
  return {
    /** Starts the grace period for a depleted balance, or joins the one already running. */
    async watchDepletedBalance(accountId: string, graceMs: number): Promise<void> {
      await withEngine(client, () =>
        client.workflow.signalWithStart(balanceDepletion, {
          workflowId: depletionWorkflowId(accountId),
          taskQueue,
          args: [{ accountId, graceMs }],
          typedSearchAttributes: runSearchAttributes({ accountId }),
          signal: balanceChargedSignal,
        }),
      );
    },

    /** Tells a running grace period that credit arrived; nothing to do when none runs. */
    async notifyCredited(accountId: string): Promise<void> {
      try {
        await withEngine(client, () => client.workflow.getHandle(depletionWorkflowId(accountId)).signal(balanceCreditedSignal));
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
    },
  };
}
export type BillingClient = ReturnType<typeof createBillingClient>;
