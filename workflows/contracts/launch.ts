/**
 * Contract of the launch workflow family (`launchInstance`, one per managed instance, workflow id
 * `launch-<account>-<idempotency key>` = the instance's row id): its input, result, updates, signal and query.
 * A leaf: workflows, client modules, routes and activities (types only) import it; it imports nothing with I/O.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { LaunchIntent } from '../../src/db/queries/admission';
import type { InstanceRow } from '../../src/db/queries/instances';
import type { IdleStopRule } from '../../src/domain/idle-stop';
import type { ProviderId } from '../../src/providers/types';

export interface LaunchInput {
  /** The workflow id, also the instance's row id: `launch-<account>-<idempotency key>`. */
  instanceId: string;
  accountId: string;
  requestHash: string;
  provider: ProviderId;
  gpuType: string;
  gpuCount: number;
  spot: boolean;
  /** Name shown to the user. */
  name: string;
  /** Name at the provider: carries a tag derived from the workflow id, so a retried create finds it. */
  providerName: string;
  dockerImage?: string;
  volumeGb?: number;
  diskGb?: number;
  region?: string;
  sshKeyName?: string;
  onstartCmd?: string;
  warnings: string[];
  /**
   * The API key that launched it, or that made the schedule of a scheduled run (its spend counts toward that
   * key's cap); absent for keyless launches.
   */
  apiKeyId?: string;
  /** How often a running instance is polled (preemption) and charged; hours in production, short in tests. */
  pollIntervalMs: number;
  meterIntervalMs: number;
  /**
   * How long one activity attempt may take before Temporal retries it; default 30 s (two provider calls at
   * the default 10 s provider timeout, plus the database). Provider steps also heartbeat every second, so a
   * lost worker is noticed after `heartbeatTimeoutMs` (default 5 s) rather than after this.
   */
  activityTimeoutMs?: number;
  heartbeatTimeoutMs?: number;
  /** Longest gap between looks while an instance boots (metering starts within this of the real start); default 3 s. */
  bootPollMaxMs?: number;
  /**
   * A stop or terminate that cannot reach the provider (key removed or rejected, provider down) is tried again
   * after this, doubling up to `endRetryMaxMs`; defaults 5 s and 5 min.
   */
  endRetryInitialMs?: number;
  endRetryMaxMs?: number;
  /**
   * A RunPod pod that stops at the provider (not through us) is normally kept, `stopped`, under management;
   * with this set (scheduled runs: the job exited) it is charged, terminated and the workflow ends `lost`.
   */
  endWhenStoppedByProvider?: boolean;
  /** A workflow to tell (`instanceProgressSignal`) when the create is accepted and when the instance started. */
  progressWorkflowId?: string;
  /**
   * Set by the API on every launch it starts: the create is one local activity (`createAndRecord(input)`).
   * The input says so, so the run records no version marker for it (a `patched()` call costs a marker and an
   * upsert of `TemporalChangeVersion` per launch); runs without it (started earlier, and scheduled runs'
   * launches) decide by the `launch-one-step` patch as before.
   */
  createInOneStep?: true;
  /** Loop turns before the workflow continues as new (bounded history); default 500. */
  continueAsNewAfter?: number;
  /** The observer's interval while a spot instance runs (how late a preemption may be noticed); default 10 s. */
  spotPollIntervalMs?: number;
  /** The boot deadline (ms from the launch), replacing the learned or configured one (tests compress it). */
  bootDeadlineMs?: number;
  /**
   * Stop (runpod) or terminate (vastai) once every GPU reported utilization below the threshold for this many
   * minutes of observations (src/domain/idle-stop.ts); absent: never. Refused for lambda at the API.
   */
  idleStop?: IdleStopRule;
  /** The length of one idle-stop minute (IDLE_STOP_MINUTE; 60 s, compressed in tests). */
  idleStopMinuteMs?: number;
}

/** The timing knobs of a launch workflow: required intervals, optional tuning (tests compress them all). */
export type LaunchTiming = Pick<LaunchInput, 'pollIntervalMs' | 'meterIntervalMs'> &
  Partial<
    Pick<
      LaunchInput,
      | 'activityTimeoutMs'
      | 'heartbeatTimeoutMs'
      | 'bootPollMaxMs'
      | 'endRetryInitialMs'
      | 'endRetryMaxMs'
      | 'continueAsNewAfter'
      | 'spotPollIntervalMs'
      | 'bootDeadlineMs'
      | 'idleStopMinuteMs'
    >
  >;

/** Resolves once the provider accepted the create (or rejects with why it did not). Argument: request hash. */
export const launchAcceptedUpdate = defineUpdate<InstanceRow, [string]>('launchAccepted');
/** Stops (runpod) and resolves with the stopped record. */
export const stopInstanceUpdate = defineUpdate<InstanceRow>('stopInstance');
/**
 * Starts a stopped pod again and resolves with its record once the workflow has seen it running (metering
 * resumed), or as it stands when that takes longer than the boot deadline; fails with the provider's refusal.
 */
export const startInstanceUpdate = defineUpdate<InstanceRow>('startInstance');
/** Terminates and resolves with the terminated record (after the final charge). */
export const terminateInstanceUpdate = defineUpdate<InstanceRow | null>('terminateInstance');
export const instanceQuery = defineQuery<InstanceRow | null>('instance');

/** A stop or terminate asked for by the service itself (budget alert, depleted balance, schedule limit, idle stop). */
export interface EndInstanceRequest {
  /** `stop` on runpod, `terminate` elsewhere; a `stop` sent for another provider terminates. */
  action: 'stop' | 'terminate';
  /** Why, in words for the instance's record and events, e.g. "budget alert alert_… reached". */
  reason: string;
}
/** Fire-and-forget form of stop/terminate for other workflows and services: nobody waits on an answer. */
export const endInstanceSignal = defineSignal<[EndInstanceRequest]>('endInstance');

/**
 * What a launch tells the workflow that asked for it (`LaunchInput.progressWorkflowId`, a scheduled run): sent
 * when the provider accepted the create and when the instance started, so the run records both at once and
 * sets its timers from the provider's start instead of reading the row every observation interval.
 */
export interface InstanceProgress {
  /** The launch's row id (= its workflow id): a run ignores news of an earlier attempt. */
  rowId: string;
  instanceId: string | null;
  startedAtMs: number | null;
  pricePerHourMicros: number | null;
}
export const instanceProgressSignal = defineSignal<[InstanceProgress]>('instanceProgress');

export interface LaunchResult {
  instanceId: string;
  /**
   * `boot_failed`: the provider failed the boot, or it passed its deadline; terminated, never charged.
   * `idle_stopped`: terminated by its idle-stop rule (a runpod pod outside a schedule is stopped instead, and lives
   * on).
   */
  outcome: 'terminated' | 'preempted' | 'lost' | 'boot_failed' | 'idle_stopped';
  /** Why, for `boot_failed` and `idle_stopped`. */
  reason?: string;
}

/** What a continued-as-new (or adopted) run starts from. */
export interface LaunchCarried {
  row: InstanceRow;
  nextChargeAt: number;
  endReason?: string | null;
  /** Since when every GPU has been idle (idle stop's window); absent or null: not idle. */
  idleSinceMs?: number | null;
  /** A stop or terminate the provider kept refusing, carried on by the new run where the last one left it. */
  ending?: CarriedEnd;
}

/** A stop or terminate still being retried when its run continued as new. */
export interface CarriedEnd {
  action: 'stop' | 'terminate';
  /** The instance ran when the end was asked: it is metered until the provider confirms. */
  wasRunning: boolean;
  /** The wait before the next try (the backoff goes on from here). */
  retryWaitMs: number;
  /** The end is the idle stop's (its events say so). */
  idleStopping: 'stop' | 'terminate' | null;
}

/** The launch workflow's signature, for continue-as-new and typed starts. */
export type LaunchWorkflow = (input: LaunchInput, carried?: LaunchCarried) => Promise<LaunchResult>;

/** The instance row a launch reserves and records, as its input describes it (admission and the intent step). */
export function launchIntentOf(input: LaunchInput): LaunchIntent {
  return {
    id: input.instanceId,
    accountId: input.accountId,
    requestHash: input.requestHash,
    provider: input.provider,
    providerName: input.providerName,
    name: input.name,
    gpuType: input.gpuType,
    gpuCount: input.gpuCount,
    spot: input.spot,
    region: input.region ?? null,
    dockerImage: input.dockerImage ?? null,
    warnings: input.warnings,
    apiKeyId: input.apiKeyId ?? null,
    idleStop: input.idleStop ?? null,
  };
}

/** The launch workflow's id, also the instance's row id: one per (account, Idempotency-Key). */
export function launchWorkflowId(accountId: string, idempotencyKey: string): string {
  return `launch-${accountId}-${idempotencyKey}`;
}
