import type { JobInput, JobResult } from './contracts/jobs';
import { admitNextAttempt } from './job/admission';
import { JobAttempt, type AttemptEnding } from './job/attempt';
import { jobActivities, JobRun, JobSignals } from './job/run';

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
  const db = jobActivities(input);
  const signals = new JobSignals();
  const run = new JobRun(input, await db.readJob(input.jobId), signals, db);
  for (;;) {
    const result = await attemptOnce(run);
    if (result !== 'again') return result;
  }
}

/** One turn of the job: admission, an attempt and the retry policy's word on it; `again` for another turn. */
async function attemptOnce(run: JobRun): Promise<JobResult | 'again'> {
  const { input, spec, signals, db } = run;
  if (signals.cancelReason) return run.finish('cancelled', null, signals.cancelReason);
  const spentMicros = await db.jobCostMicros(input.jobId);
  if (spec.max_cost_micros !== null && spentMicros >= spec.max_cost_micros) {
    return run.finish(
      'failed',
      null,
      `max_cost (${spec.max_cost_micros / 1_000_000}) reached across ${run.n} attempt(s)`,
    );
  }
  const admission = await admitNextAttempt(run);
  if (!admission.admitted) {
    const { why, noCapacity } = admission;
    if (noCapacity && (await run.mayRetry('no_capacity', why, false))) {
      await run.waitBackoff();
      return 'again';
    }
    const retried = noCapacity && spec.retry.on.includes('no_capacity');
    return run.finish('failed', null, retried ? `${why} (retried until retry.within passed)` : why);
  }

  run.n += 1;
  const attempt = await JobAttempt.start(run, admission.admitted.offer, admission.admitted.launch);
  await attempt.watch(spentMicros);
  return afterAttempt(run, await attempt.conclude());
}

/** The retry policy's word on an attempt that ended: the job's result, or `again` for another attempt. */
async function afterAttempt(
  run: JobRun,
  ending: AttemptEnding & { exitCode: number | null },
): Promise<JobResult | 'again'> {
  switch (ending.reason) {
    case 'exited':
      if (ending.exitCode === 0) return run.finish('succeeded', 0, null);
      if (await run.mayRetry('error', `the command exited with ${ending.exitCode}`, true)) return 'again';
      return run.finish('failed', ending.exitCode, `the command exited with ${ending.exitCode}`);
    case 'cancelled':
      return run.finish('cancelled', null, ending.detail);
    case 'max_cost':
    case 'max_duration':
      return run.finish('failed', null, ending.detail);
    case 'preempted':
      run.preemptions += 1;
      if (await run.mayRetry('preemption', ending.detail, true)) return 'again';
      return run.finish('failed', null, `attempt ${run.n} was preempted and the retry policy allows no other`);
    case 'refused':
    case 'boot_failed':
      if (await run.mayRetry('no_capacity', ending.detail, true)) {
        await run.waitBackoff();
        return 'again';
      }
      return run.finish('failed', null, ending.detail);
    default:
      if (await run.mayRetry('error', ending.detail, true)) return 'again';
      return run.finish('failed', null, `attempt ${run.n}: ${ending.detail}`);
  }
}
