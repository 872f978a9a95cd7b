/**
 * Contract of the per-account spend workflow (`balanceDepletion`, workflow id `balance-depleted-<account>`, one
 * per account with live instances or an open depletion episode): input, result and signals. A leaf.
 */
import { defineSignal } from '@temporalio/workflow';

/** One spend workflow per account at a time (the id predates the workflow's wider role and is kept). */
export function depletionWorkflowId(accountId: string): string {
  return `balance-depleted-${accountId}`;
}

/** Default grace period between a depleted balance and ending the account's instances (BALANCE_GRACE_PERIOD). */
export const DEFAULT_BALANCE_GRACE_MS = 30 * 60_000;
/** Default runway under which `billing.balance_low` is written (BALANCE_LOW_RUNWAY). */
export const DEFAULT_BALANCE_LOW_RUNWAY_MS = 24 * 3_600_000;

/**
 * Something changed the account's burn or balance (an instance started or ended, a charge, a credit, a
 * reversal): the workflow reads the account again and moves its timer. The signal of signal-with-start.
 */
export const spendChangedSignal = defineSignal<[SpendChange?]>('spendChanged');
/** Older names of the same news, still handled: a credit landed; a charge was posted. */
export const balanceCreditedSignal = defineSignal('balanceCredited');
export const balanceChargedSignal = defineSignal('balanceCharged');

/** What changed (for the workflow's history; the workflow always re-reads the account). */
export interface SpendChange {
  cause: 'instance_started' | 'instance_ended' | 'charge' | 'credit' | 'reversal';
}

export interface BalanceDepletionInput {
  accountId: string;
  /** How long the account's instances keep running after the available balance reached zero; default 30 min. */
  graceMs: number;
  /** Runway under which `billing.balance_low` is written; default 24 h. */
  lowRunwayMs?: number;
  /** Carried over continue-as-new: instances already asked to end in the open depletion episode. */
  endRequested?: string[];
}

export interface BalanceDepletionResult {
  /**
   * `instances_ended`: the grace ran out and this run asked the account's instances to end (it returns once none
   * is live); `idle`: no live instance and no open depletion episode left, nothing ended.
   */
  outcome: 'instances_ended' | 'idle';
  /** Row ids (launch workflow ids) of the instances asked to stop or terminate. */
  endedInstanceIds: string[];
}
