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
  /**
   * Runway under which `billing.balance_low` is written (default 24 h). Always given: an input without it is
   * a run started before the spend watcher ({@link GraceOnlyDepletionInput}).
   */
  lowRunwayMs: number;
  /** Carried over continue-as-new: instances already asked to end in the open depletion episode. */
  endRequested?: string[];
}

/**
 * The input of runs started before `balanceDepletion` became the spend watcher (release 556d392^ and earlier,
 * same workflow type and id, no patch marker): started by the charge that found the balance at or below zero,
 * they wait out the grace period on a timer. Their histories replay, and they finish, on that logic.
 */
export interface GraceOnlyDepletionInput {
  accountId: string;
  graceMs: number;
  lowRunwayMs?: never;
}

/**
 * Whether a run was started before the spend watcher: decided by the input recorded in its first event (the
 * only difference between the two histories: neither records a marker), so replay and the live run agree.
 */
export function startedAsGraceOnly(
  input: BalanceDepletionInput | GraceOnlyDepletionInput,
): input is GraceOnlyDepletionInput {
  return input.lowRunwayMs === undefined;
}

export interface BalanceDepletionResult {
  /**
   * `instances_ended`: the grace ran out and this run asked the account's instances to end (it returns once none
   * is live); `idle`: no live instance and no open depletion episode left, nothing ended; `credited` (runs
   * started before the spend watcher only): a credit lifted the balance above zero during the grace.
   */
  outcome: 'instances_ended' | 'idle' | 'credited';
  /** Row ids (launch workflow ids) of the instances asked to stop or terminate. */
  endedInstanceIds: string[];
}
