import { condition, getExternalWorkflowHandle, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { balanceChargedSignal, balanceCreditedSignal, type BalanceDepletionInput, type BalanceDepletionResult } from './contracts/billing';
import { endInstanceSignal } from './contracts/launch';

/** Why, in the words the instance's record and events carry. */
export function depletionReason(graceMs: number): string {
  const minutes = graceMs / 60_000;
  const grace = minutes >= 1 ? `${Math.round(minutes * 10) / 10} min` : `${Math.round(graceMs / 100) / 10} s`;
  return `prepaid balance depleted: no top-up within the ${grace} grace period`;
}

/**
 * One per account while its balance is at or below zero: workflow id `balance-depleted-<account>`, started
 * (or signalled) by the charge that found the balance there. Waits out the grace period; a credit that
 * brings the balance above zero ends it without touching anything. Otherwise every live managed instance of
 * the account gets `endInstance` (stop on runpod, terminate elsewhere) with the reason, through its own
 * launch workflow, which charges up to the end and records the reason.
 */
export async function balanceDepletion(input: BalanceDepletionInput): Promise<BalanceDepletionResult> {
  const { getBalanceMicros, listLiveManagedInstances } = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    // Enforcement must not give up on a database hiccup: retry until it gets through.
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  let credited = false;
  setHandler(balanceCreditedSignal, () => {
    credited = true;
  });
  setHandler(balanceChargedSignal, () => undefined);

  const deadline = Date.now() + input.graceMs;
  for (let remaining = input.graceMs; remaining > 0; remaining = deadline - Date.now()) {
    if (!(await condition(() => credited, remaining))) break;
    credited = false;
    if ((await getBalanceMicros(input.accountId)) > 0) return { outcome: 'credited', endedInstanceIds: [] };
  }
  // A credit whose signal never arrived (API crashed after committing it) still counts.
  if ((await getBalanceMicros(input.accountId)) > 0) return { outcome: 'credited', endedInstanceIds: [] };

  const reason = depletionReason(input.graceMs);
  const live = await listLiveManagedInstances(input.accountId);
  const ended: string[] = [];
  for (const instance of live) {
    try {
      await getExternalWorkflowHandle(instance.id).signal(endInstanceSignal, {
        action: instance.provider === 'runpod' ? 'stop' : 'terminate',
        reason,
      });
      ended.push(instance.id);
    } catch {
      // Its launch workflow has already finished: nothing left running to end.
    }
  }
  return { outcome: 'instances_ended', endedInstanceIds: ended };
}
