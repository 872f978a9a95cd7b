/**
 * Contract of the jobs family: one `runJob` workflow per job (workflow id `job-<job id>`), its attempts launched
 * as `launchInstance` children. A leaf: it imports nothing with I/O.
 */
import { defineSignal } from '@temporalio/workflow';
import type { LaunchTiming } from './launch';

export const jobWorkflowId = (jobId: string): string => `job-${jobId}`;
/** Attempt `n`'s launch workflow id, also its instance row id. */
export const jobAttemptRowId = (accountId: string, jobId: string, n: number): string =>
  `launch-${accountId}-${jobId}-${n}`;
/**
 * What the launch carries as the start command of an attempt: a reference, resolved into the real command (the
 * wrapper, the attempt's exit token, the env) only by the create activity, so neither reaches workflow history.
 */
export const jobStartCommandRef = (jobId: string, n: number): string => `gpuo-job-attempt:${jobId}:${n}`;
export const JOB_START_COMMAND_REF = /^gpuo-job-attempt:(job_[A-Za-z0-9]+):(\d+)$/;

export interface JobTiming {
  launch: LaunchTiming;
  /** No capacity: the first wait before looking again (1 min), doubling up to `backoffMaxMs` (10 min). */
  backoffInitialMs: number;
  backoffMaxMs: number;
}

export interface JobInput {
  jobId: string;
  accountId: string;
  timing: JobTiming;
}

export interface JobResult {
  status: 'succeeded' | 'failed' | 'cancelled';
  exitCode: number | null;
}

/** Why an attempt's instance is ended after its command reported its exit (the instance's `end_reason`). */
export const exitEndReason = (jobId: string): string => `job ${jobId}: the command exited`;

/** The job's instance said how the command ended (the exit endpoint, after the token matched). */
export const jobExitReportedSignal = defineSignal<[{ n: number; exitCode: number }]>('jobExitReported');
/** POST /v1/jobs/{id}/cancel. */
export const cancelJobSignal = defineSignal<[{ reason: string }]>('cancelJob');
