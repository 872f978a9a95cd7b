import {
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { JobOffer, JobView } from '../activities/jobs';
import type { AttemptEndReason } from '../src/db/queries/jobs';
import {
  endInstanceSignal,
  instanceProgressSignal,
  type InstanceProgress,
  type LaunchInput,
  type LaunchResult,
} from './contracts/launch';
import {
  cancelJobSignal,
  jobAttemptRowId,
  jobExitReportedSignal,
  jobStartCommandRef,
  type JobInput,
  type JobResult,
} from './contracts/jobs';
import { runSearchAttributes } from './contracts/search-attributes';
import { launchInstance } from './launch-instance';

const MS_PER_HOUR = 3_600_000;

/** The launch of attempt `n` on `offer`: ids derive from the job and the attempt, so a replayed step joins the same launch. */
function attemptLaunchInput(input: JobInput, job: JobView, offer: JobOffer, n: number): LaunchInput {
  return {
    instanceId: jobAttemptRowId(input.accountId, input.jobId, n),
    accountId: input.accountId,
    requestHash: `job:${input.jobId}:${n}`,
    provider: offer.provider,
    gpuType: job.spec.gpu,
    gpuCount: job.spec.gpu_count,
    spot: offer.spot,
    name: job.name,
    providerName: `job-${input.jobId.slice(4, 16)}-${n}`,
    dockerImage: job.dockerImage ?? undefined,
    // A reference: the create activity turns it into the wrapper with the attempt's token and env.
    onstartCmd: jobStartCommandRef(input.jobId, n),
    warnings: [],
    apiKeyId: job.apiKeyId ?? undefined,
    ...(job.spec.idle_stop ? { idleStop: job.spec.idle_stop } : {}),
    // The command's end is the attempt's end: a pod that exits is terminated, not kept stopped.
    endWhenStoppedByProvider: true,
    progressWorkflowId: workflowInfo().workflowId,
    ...input.timing.launch,
  };
}

function failureMessage(err: unknown): string {
  let cause: unknown = err;
  while (cause instanceof Error && 'cause' in cause && cause.cause && !(cause instanceof ApplicationFailure))
    cause = cause.cause;
  if (cause instanceof ApplicationFailure) return `${cause.type ?? 'error'}: ${cause.message}`;
  return cause instanceof Error ? cause.message : String(cause);
}

/**
 * One job, from its first attempt to its end. Workflow id `job-<job id>`. Each attempt is a `launchInstance`
 * child (abandoned on close: an instance never depends on the job workflow staying alive) on the cheapest
 * admitted offer the job allows at that moment; it ends at the earliest of: the command's exit report (the
 * instance is terminated at once), the provider ending it (preempted, or exited without a report: `lost`),
 * max_duration_hours after it started, the moment the job's cost would pass max_cost, a cancel. What follows
 * is the retry policy's: a preemption, an error exit, no capacity each start another attempt when `retry.on`
 * names them, attempts are left and `retry.within` has not passed; otherwise the job ends.
 */
export async function runJob(input: JobInput): Promise<JobResult> {
  const db = proxyActivities<Activities>({
    startToCloseTimeout: input.timing.launch.activityTimeoutMs ?? 30_000,
    retry: { initialInterval: '500 milliseconds', maximumInterval: '30 seconds' },
  });
  let cancelReason: string | null = null;
  setHandler(cancelJobSignal, ({ reason }) => {
    cancelReason ??= reason;
  });
  const reported = new Set<number>();
  setHandler(jobExitReportedSignal, ({ n }) => {
    reported.add(n);
  });
  let progress: InstanceProgress | null = null;
  setHandler(instanceProgressSignal, (p) => {
    progress = p;
  });

  const job = await db.readJob(input.jobId);
  const { spec } = job;
  const retryUntil = Date.now() + spec.retry.within_ms;
  let backoffMs = input.timing.backoffInitialMs;
  let preemptions = 0;
  let n = job.attempts;

  const finish = async (
    status: JobResult['status'],
    exitCode: number | null,
    error: string | null,
  ): Promise<JobResult> => {
    await db.finishJob({ jobId: input.jobId, status, exitCode, error });
    return { status, exitCode };
  };
  /** Whether another attempt may start for `event`; says so (`job.retrying`) when it may. */
  const mayRetry = async (
    event: 'no_capacity' | 'preemption' | 'error',
    why: string,
    countsAttempt: boolean,
  ): Promise<boolean> => {
    if (!spec.retry.on.includes(event) || Date.now() >= retryUntil) return false;
    if (countsAttempt && n >= spec.retry.max_attempts) return false;
    await db.jobRetrying({ jobId: input.jobId, reason: why, attempt: n, key: `${event}:${n}:${backoffMs}` });
    return true;
  };
  const waitBackoff = async () => {
    await condition(() => cancelReason !== null, Math.max(1, Math.min(backoffMs, retryUntil - Date.now())));
    backoffMs = Math.min(backoffMs * 2, input.timing.backoffMaxMs);
  };

  for (;;) {
    if (cancelReason) return finish('cancelled', null, cancelReason);
    const spentMicros = await db.jobCostMicros(input.jobId);
    if (spec.max_cost_micros !== null && spentMicros >= spec.max_cost_micros) {
      return finish('failed', null, `max_cost (${spec.max_cost_micros / 1_000_000}) reached across ${n} attempt(s)`);
    }
    const spotAllowed =
      spec.spot_policy !== 'on-demand' &&
      (spec.retry.on_demand_after_preemptions === null || preemptions < spec.retry.on_demand_after_preemptions);
    const offers = await db.findJobOffers({
      jobId: input.jobId,
      spot: spotAllowed,
      onDemand: spec.spot_policy !== 'spot',
    });
    let admitted: { offer: JobOffer; launch: LaunchInput } | null = null;
    const refusals: string[] = [];
    for (const offer of offers) {
      const launch = attemptLaunchInput(input, job, offer, n + 1);
      const refusal = await db.admitJobAttempt({
        jobId: input.jobId,
        n: n + 1,
        launch,
        pricePerHourMicros: offer.pricePerHourMicros,
      });
      if (refusal === null) {
        admitted = { offer, launch };
        break;
      }
      refusals.push(`${offer.provider}${offer.spot ? ' (spot)' : ''}: ${refusal}`);
      // Money and keys are the account's, not the offer's: the next offer would meet the same refusal.
      if (!refusal.startsWith('limit_reached')) break;
    }
    if (!admitted) {
      const why =
        offers.length === 0
          ? `no available ${spec.gpu} offer among ${spec.providers.join(', ')} within the job's limits`
          : refusals.join('; ');
      const noCapacity = offers.length === 0;
      if (noCapacity && (await mayRetry('no_capacity', why, false))) {
        await waitBackoff();
        continue;
      }
      return finish(
        'failed',
        null,
        noCapacity && spec.retry.on.includes('no_capacity') ? `${why} (retried until retry.within passed)` : why,
      );
    }

    n += 1;
    const { offer, launch } = admitted;
    const rowId = launch.instanceId;
    const child = await startChild(launchInstance, {
      workflowId: rowId,
      args: [launch],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: runSearchAttributes({
        accountId: input.accountId,
        provider: offer.provider,
        jobId: input.jobId,
      }),
    });
    let result: LaunchResult | null = null;
    let failure: unknown = null;
    let settled = false;
    child.result().then(
      (r) => {
        result = r;
        settled = true;
      },
      (err: unknown) => {
        failure = err;
        settled = true;
      },
    );

    let instanceId: string | null = null;
    let startedAtMs: number | null = null;
    let price = offer.pricePerHourMicros;
    let ending: { reason: AttemptEndReason; detail: string } | null = null;
    for (;;) {
      const p = progress as InstanceProgress | null;
      if (p !== null) {
        progress = null;
        if (p.rowId === rowId) {
          if (p.instanceId && instanceId === null) {
            instanceId = p.instanceId;
            price = p.pricePerHourMicros ?? price;
            await db.markJobAttemptLaunched({ jobId: input.jobId, n, instanceId, pricePerHourMicros: price });
          }
          if (p.startedAtMs !== null && startedAtMs === null) {
            startedAtMs = p.startedAtMs;
            await db.markJobAttemptStarted({
              jobId: input.jobId,
              n,
              startedAtMs,
              first: n === 1 || job.attempts + 1 === n,
            });
          }
        }
        continue;
      }
      if (settled) break;
      if (reported.has(n)) {
        ending = { reason: 'exited', detail: 'the command exited' };
        break;
      }
      if (cancelReason) {
        ending = { reason: 'cancelled', detail: cancelReason };
        break;
      }
      const now = Date.now();
      let wakeAt = Infinity;
      if (startedAtMs !== null && spec.max_duration_hours !== null) {
        const deadline = startedAtMs + spec.max_duration_hours * MS_PER_HOUR;
        if (now >= deadline) {
          ending = { reason: 'max_duration', detail: `max_duration_hours (${spec.max_duration_hours}) reached` };
          break;
        }
        wakeAt = Math.min(wakeAt, deadline);
      }
      if (startedAtMs !== null && spec.max_cost_micros !== null && price > 0) {
        // What earlier attempts spent is gone; what remains of max_cost sets this attempt's stop timer.
        const deadline = startedAtMs + Math.floor(((spec.max_cost_micros - spentMicros) * MS_PER_HOUR) / price);
        if (now >= deadline) {
          ending = { reason: 'max_cost', detail: `max_cost (${spec.max_cost_micros / 1_000_000}) reached` };
          break;
        }
        wakeAt = Math.min(wakeAt, deadline);
      }
      await condition(
        () => settled || cancelReason !== null || reported.has(n) || progress !== null,
        wakeAt === Infinity ? undefined : Math.max(1, wakeAt - now),
      );
    }

    if (ending) {
      // By workflow id alone: it reaches the launch's current run even after it continued as new.
      await getExternalWorkflowHandle(rowId).signal(endInstanceSignal, {
        action: 'terminate',
        reason: `job ${input.jobId}: ${ending.detail}`,
      });
      await condition(() => settled);
    }
    // The report in the database is the word on how the command ended, whichever way the instance ended.
    const attempt = await db.readJobAttempt({ jobId: input.jobId, n });
    const outcome = (result as LaunchResult | null)?.outcome;
    if (attempt.exitCode !== null) ending = { reason: 'exited', detail: `exit code ${attempt.exitCode}` };
    else if (!ending) {
      if (failure) ending = { reason: instanceId === null ? 'refused' : 'ended', detail: failureMessage(failure) };
      else if (outcome === 'preempted')
        ending = { reason: 'preempted', detail: 'spot capacity reclaimed by the provider' };
      else if (outcome === 'boot_failed')
        ending = { reason: 'boot_failed', detail: (result as LaunchResult | null)?.reason ?? 'the boot failed' };
      else if (outcome === 'lost') ending = { reason: 'lost', detail: 'the instance ended without an exit report' };
      else ending = { reason: 'ended', detail: 'the instance was ended outside the job' };
    }
    await db.finishJobAttempt({
      jobId: input.jobId,
      n,
      reason: ending.reason,
      detail: ending.detail,
      exitCode: attempt.exitCode,
    });

    switch (ending.reason) {
      case 'exited':
        if (attempt.exitCode === 0) return finish('succeeded', 0, null);
        if (await mayRetry('error', `the command exited with ${attempt.exitCode}`, true)) continue;
        return finish('failed', attempt.exitCode, `the command exited with ${attempt.exitCode}`);
      case 'cancelled':
        return finish('cancelled', null, ending.detail);
      case 'max_cost':
      case 'max_duration':
        return finish('failed', null, ending.detail);
      case 'preempted':
        preemptions += 1;
        if (await mayRetry('preemption', ending.detail, true)) continue;
        return finish('failed', null, `attempt ${n} was preempted and the retry policy allows no other`);
      case 'refused':
      case 'boot_failed':
        if (await mayRetry('no_capacity', ending.detail, true)) {
          await waitBackoff();
          continue;
        }
        return finish('failed', null, ending.detail);
      default:
        if (await mayRetry('error', ending.detail, true)) continue;
        return finish('failed', null, `attempt ${n}: ${ending.detail}`);
    }
  }
}
