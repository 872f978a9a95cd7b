/**
 * What the launch workflow's phases share: its settings, its activity proxies, and the state its handlers and
 * loops read and write (the record as it stands and what has been asked of the workflow).
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { InstanceRow } from '../../src/db/queries/instances';
import type { CarriedEnd, LaunchInput, LaunchWorkflow } from '../contracts/launch';
import type { ProviderObservation } from '../contracts/observation';
import type { Refusal } from './refusal';

const CONTINUE_AS_NEW_AFTER = 500;

export interface LaunchState {
  row: InstanceRow | null;
  refused: Refusal | null;
  stopRequested: boolean;
  terminateRequested: boolean;
  endReason: string | null;
  /** The observer's latest word on this instance (batched observation); taken by the loop that acts on it. */
  observed: ProviderObservation | null;
  nextChargeAt: number;
  /** Idle stop: since when every GPU has reported idle (null: not idle, or no rule). */
  idleSinceMs: number | null;
  /** The idle stop's pending end (its end also emits `instance.idle_stopped`); null: none pending. */
  idleStopping: 'stop' | 'terminate' | null;
  /** An end the previous run was still retrying: taken by the first request this run carries out. */
  carriedEnd: CarriedEnd | null;
  /**
   * A start update's progress: `requested` until the loop has asked the provider (`refused` says why it said
   * no), `pending` until the update has its answer (no continue-as-new meanwhile: its handler must finish).
   */
  start: { requested: boolean; pending: number; refused: Refusal | null };
}

export interface LaunchSettings {
  startToCloseTimeout: number;
  bootPollMaxMs: number;
  endRetryInitialMs: number;
  endRetryMaxMs: number;
  /** Without a word from the observer for this long while booting, the workflow makes sure one runs. */
  bootSilenceMs: number;
}

function launchActivities(input: LaunchInput) {
  const startToCloseTimeout = input.activityTimeoutMs ?? 30_000;
  const heartbeatTimeout = input.heartbeatTimeoutMs ?? 5_000;
  const fewAttempts = {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 3,
  };
  return {
    /** One short look before an end (catchUpStart): never holds the end up for long. */
    glance: proxyActivities<Activities>({
      startToCloseTimeout: Math.min(startToCloseTimeout, 3_000),
      retry: { maximumAttempts: 1 },
    }),
    /** A few quick attempts per round; the workflow's own loop keeps trying ends for as long as it takes. */
    ending: proxyActivities<Activities>({ startToCloseTimeout, heartbeatTimeout, retry: fewAttempts }),
    // The launch answer waits on these steps, so they run as local activities: no task-queue round trip
    // per step. All are idempotent, so re-running them after a lost worker is safe.
    launching: proxyLocalActivities<Activities>({
      startToCloseTimeout,
      localRetryThreshold: '10 seconds',
      retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 6 },
    }),
    /** Database steps of the boot as local activities (no task-queue round trip); they never give up either. */
    localDb: proxyLocalActivities<Activities>({
      startToCloseTimeout: '30 seconds',
      retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds' },
    }),
    /** Database steps never give up: the database coming back is only a matter of time. */
    db: proxyActivities<Activities>({
      startToCloseTimeout: '30 seconds',
      retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds' },
    }),
  };
}

/** Everything a phase works with. */
export interface LaunchContext {
  input: LaunchInput;
  /** The workflow id, also the instance's row id. */
  id: string;
  s: LaunchState;
  acts: ReturnType<typeof launchActivities>;
  settings: LaunchSettings;
  /**
   * Runs whose create was one local activity (`createAndRecord(input)`, patch `launch-one-step`): what it also
   * answered. Null in runs that created otherwise (older histories), were continued as new, or were adopted.
   */
  launched: { bootDeadlineMs: number | null; observerTold: boolean } | null;
}

export function launchContext(input: LaunchInput, s: LaunchState): LaunchContext {
  const bootPollMaxMs = input.bootPollMaxMs ?? 3_000;
  return {
    input,
    id: input.instanceId,
    s,
    acts: launchActivities(input),
    launched: null,
    settings: {
      startToCloseTimeout: input.activityTimeoutMs ?? 30_000,
      bootPollMaxMs,
      endRetryInitialMs: input.endRetryInitialMs ?? 5_000,
      endRetryMaxMs: input.endRetryMaxMs ?? 300_000,
      bootSilenceMs: Math.max(10 * bootPollMaxMs, 30_000),
    },
  };
}

export const requested = (s: LaunchState): boolean => s.terminateRequested || s.stopRequested;

/**
 * Marks runs whose stop or terminate, refused by the provider round after round, continues as new with the
 * end carried: without it, each round (about 15 events) stayed in one history until the engine's cap
 * terminated the workflow.
 */
export const END_RETRY_CONTINUES_PATCH = 'launch-end-retry-continues';

/** True when an end that has been retried `round` times should go on in a new run (bounded history). */
export function endRetryDue(c: LaunchContext, round: number): boolean {
  if (!(round >= (c.input.continueAsNewAfter ?? CONTINUE_AS_NEW_AFTER) || workflowInfo().continueAsNewSuggested))
    return false;
  return patched(END_RETRY_CONTINUES_PATCH);
}

/**
 * Goes on with a refused end in a new run. Handlers are not awaited: a stop or terminate update waits for the
 * end itself, and its caller has long been answered 202 (the record says the end is pending).
 */
export async function continueEndAsNew(c: LaunchContext, ending: CarriedEnd): Promise<never> {
  return continueAsNew<LaunchWorkflow>(c.input, {
    row: c.s.row!,
    nextChargeAt: c.s.nextChargeAt,
    endReason: c.s.endReason,
    idleSinceMs: c.s.idleSinceMs,
    ending,
  });
}

/** Continues as new (bounded history) after `continueAsNewAfter` loop turns or when Temporal suggests it. */
export async function continueAsNewIfDue(c: LaunchContext, turn: number): Promise<void> {
  if (
    requested(c.s) ||
    c.s.start.pending > 0 ||
    !(turn >= (c.input.continueAsNewAfter ?? CONTINUE_AS_NEW_AFTER) || workflowInfo().continueAsNewSuggested)
  )
    return;
  await condition(allHandlersFinished);
  await continueAsNew<LaunchWorkflow>(c.input, {
    row: c.s.row!,
    nextChargeAt: c.s.nextChargeAt,
    endReason: c.s.endReason,
    idleSinceMs: c.s.idleSinceMs,
  });
}
