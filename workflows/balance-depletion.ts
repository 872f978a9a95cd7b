import {
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  balanceChargedSignal,
  balanceCreditedSignal,
  spendChangedSignal,
  startedAsGraceOnly,
  type BalanceDepletionInput,
  type BalanceDepletionResult,
  type GraceOnlyDepletionInput,
} from './contracts/billing';
import { endInstanceSignal } from './contracts/launch';

/** Why, in the words the instance's record and events carry. */
export function depletionReason(graceMs: number): string {
  const minutes = graceMs / 60_000;
  const grace = minutes >= 1 ? `${Math.round(minutes * 10) / 10} min` : `${Math.round(graceMs / 100) / 10} s`;
  return `prepaid balance depleted: no top-up within the ${grace} grace period`;
}

/**
 * Longest wait without a look at the account: a lost signal (an activity that could not reach the engine)
 * costs at most this much lateness. Charges, starts, ends and credits signal; this is only the safety net.
 */
export const SPEND_RECHECK_MS = 3_600_000;

const ENFORCEMENT_ACTIVITY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  // Enforcement must not give up on a database hiccup: retry until it gets through.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};

/**
 * The per-account spend workflow: workflow id `balance-depleted-<account>`, started with signal-with-start by
 * whatever changes the account's burn or balance (an instance starting or ending, a charge, a credit, a
 * reversal). Each signal makes it read the account again (`reviewAccountSpend`, which also writes
 * `billing.balance_low` and `billing.balance_depleted` once per episode) and set one timer:
 *
 * - at the moment the available balance (balance − uncharged usage) reaches zero at the current burn, or the
 *   moment the runway drops under BALANCE_LOW_RUNWAY when that comes first;
 * - once depleted, at the end of the grace period, counted from the episode's start as the database recorded
 *   it (so a restart, a replay or a continue-as-new never moves it). A credit that lifts the available balance
 *   above zero closes the episode and nothing is ended. At the end every live managed instance gets
 *   `endInstance` (stop on runpod, terminate elsewhere) through its own launch workflow, which charges it to
 *   the end the provider confirmed;
 * - with nothing accruing, only the safety-net look.
 *
 * It finishes when the account has no live instance left; the next start signals a new run.
 */
export async function balanceDepletion(
  input: BalanceDepletionInput | GraceOnlyDepletionInput,
): Promise<BalanceDepletionResult> {
  if (startedAsGraceOnly(input)) return graceOnlyRun(input);
  const { reviewAccountSpend, listLiveManagedInstances } = proxyActivities<Activities>(ENFORCEMENT_ACTIVITY_OPTIONS);
  const lowRunwayMs = input.lowRunwayMs;
  let changed = false;
  const onChange = () => {
    changed = true;
  };
  setHandler(spendChangedSignal, onChange);
  setHandler(balanceCreditedSignal, onChange);
  setHandler(balanceChargedSignal, onChange);

  const endRequested = new Set(input.endRequested ?? []);
  for (;;) {
    changed = false;
    const spend = await reviewAccountSpend(input.accountId, { graceMs: input.graceMs, lowRunwayMs });
    if (spend.depletedForMs === null) endRequested.clear();
    if (spend.liveInstances === 0) {
      return { outcome: endRequested.size > 0 ? 'instances_ended' : 'idle', endedInstanceIds: [...endRequested] };
    }

    let waitMs = SPEND_RECHECK_MS;
    if (spend.depletedForMs !== null) {
      const graceLeft = input.graceMs - spend.depletedForMs;
      if (graceLeft <= 0) {
        await endLiveInstances(input, endRequested, listLiveManagedInstances);
      } else {
        waitMs = graceLeft;
      }
    } else if (spend.accruingBurnMicros > 0) {
      const untilZero = Math.ceil((spend.availableMicros * 3_600_000) / spend.accruingBurnMicros);
      const untilLow = spend.lowNotified ? Infinity : untilZero - lowRunwayMs;
      waitMs = Math.max(1, Math.min(untilZero, untilLow > 0 ? untilLow : Infinity, SPEND_RECHECK_MS));
    }

    if (workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof balanceDepletion>({ ...input, endRequested: [...endRequested] });
    }
    await condition(() => changed, waitMs);
  }
}

/**
 * A run started before the spend watcher (its input has no `lowRunwayMs`), as that release ran it, command for
 * command: wait out the grace period from the run's start; a credit (its older `balanceCredited` signal, or
 * today's `spendChanged` with cause `credit`) that lifts the balance above zero ends it with nothing touched;
 * otherwise every live managed instance is asked to end. Kept until no such run is open (docs/operations.md,
 * "Deploys").
 */
async function graceOnlyRun(input: GraceOnlyDepletionInput): Promise<BalanceDepletionResult> {
  const { getBalanceMicros, listLiveManagedInstances } = proxyActivities<Activities>(ENFORCEMENT_ACTIVITY_OPTIONS);
  let credited = false;
  setHandler(balanceCreditedSignal, () => {
    credited = true;
  });
  setHandler(balanceChargedSignal, () => undefined);
  setHandler(spendChangedSignal, (change) => {
    if (change?.cause === 'credit') credited = true;
  });

  const deadline = Date.now() + input.graceMs;
  for (let remaining = input.graceMs; remaining > 0; remaining = deadline - Date.now()) {
    if (!(await condition(() => credited, remaining))) break;
    credited = false;
    if ((await getBalanceMicros(input.accountId)) > 0) return { outcome: 'credited', endedInstanceIds: [] };
  }
  // A credit whose signal never arrived (API crashed after committing it) still counts.
  if ((await getBalanceMicros(input.accountId)) > 0) return { outcome: 'credited', endedInstanceIds: [] };
  const endRequested = new Set<string>();
  await endLiveInstances(input, endRequested, listLiveManagedInstances);
  return { outcome: 'instances_ended', endedInstanceIds: [...endRequested] };
}

/**
 * Asks every live managed instance not yet asked in this episode to end; a finished launch workflow has nothing left.
 */
async function endLiveInstances(
  input: { accountId: string; graceMs: number },
  endRequested: Set<string>,
  listLive: Activities['listLiveManagedInstances'],
): Promise<void> {
  const reason = depletionReason(input.graceMs);
  for (const instance of await listLive(input.accountId)) {
    if (endRequested.has(instance.id)) continue;
    try {
      await getExternalWorkflowHandle(instance.id).signal(endInstanceSignal, {
        action: instance.provider === 'runpod' ? 'stop' : 'terminate',
        reason,
      });
      endRequested.add(instance.id);
    } catch {
      // Its launch workflow has already finished: nothing left running to end.
    }
  }
}
