/**
 * Contract of balance enforcement (`balanceDepletion`, one per account while its balance is at or below zero,
 * workflow id `balance-depleted-<account>`): input, result and signals. A leaf.
 */
import { defineSignal } from '@temporalio/workflow';

/** One depletion workflow per account at a time. */
export function depletionWorkflowId(accountId: string): string {
  return `balance-depleted-${accountId}`;
}

/** Default grace period between a depleted balance and ending the account's instances (BALANCE_GRACE_PERIOD). */
export const DEFAULT_BALANCE_GRACE_MS = 30 * 60_000;

/** A credit landed on the account: the workflow re-reads the balance and stands down if it is above zero. */
export const balanceCreditedSignal = defineSignal('balanceCredited');
/** A charge left the balance at or below zero (the signal of signal-with-start; the grace already runs). */
export const balanceChargedSignal = defineSignal('balanceCharged');

export interface BalanceDepletionInput {
  accountId: string;
  /** How long the account's instances keep running after the balance reached zero; default 30 min. */
  graceMs: number;
}

export interface BalanceDepletionResult {
  outcome: 'credited' | 'instances_ended';
  /** Row ids (launch workflow ids) of the instances asked to stop or terminate. */
  endedInstanceIds: string[];
}

