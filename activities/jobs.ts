/**
 * Side effects of the runJob workflow: the job's and its attempts' rows and events, the offers an attempt may
 * launch on, and each attempt's admission (the launch library's rule and lock). Every activity is safe to retry
 * (rows are keyed by the job and attempt number, events by a dedupe key).
 */
import { randomBytes } from 'node:crypto';
import { createJobQueries, type AttemptEndReason, type AttemptRow, type JobSpec } from '../src/db/queries/jobs';
import { TEMPLATES } from '../src/domain/templates';
import { admitScheduledRun } from '../src/launch/admission';
import { launchableOffer } from '../src/launch/policy';
import { jobProviderReadiness } from '../src/jobs/providers';
import type { ProviderId } from '../src/providers/types';
import { launchIntentOf, type LaunchInput } from '../workflows/contracts/launch';
import type { ActivityDeps } from './deps';
import { noteJobAttemptOnRun } from './schedules';

export interface JobView {
  name: string;
  apiKeyId: string | null;
  spec: JobSpec;
  dockerImage: string | null;
  /** Attempts recorded so far (a job workflow that started again after a reset continues from there). */
  attempts: number;
}

export interface JobOffer {
  provider: ProviderId;
  spot: boolean;
  /** The whole instance's price (per GPU × gpu_count). */
  pricePerHourMicros: number;
}

const money = (micros: number) => micros / 1_000_000;

/** What a schedule's run shows of its job's attempt. */
const runAttemptOf = (a: AttemptRow) => ({
  provider: a.provider,
  instanceRowId: a.instance_row_id,
  instanceId: a.instance_id,
  pricePerHourMicros: a.price_per_hour_micros,
});

/**
 * An attempt ran from `startedAtMs`: its `started_at`, the job `running` (unless it has ended) with `job.started`
 * once per attempt, and a schedule's run `running` with `schedule.run.started`. Safe to repeat.
 */
export async function noteJobAttemptStarted(
  deps: ActivityDeps,
  input: { jobId: string; n: number; startedAtMs: number },
): Promise<void> {
  const jobs = createJobQueries(deps.pool);
  await jobs.markAttemptStarted(input.jobId, input.n, new Date(input.startedAtMs));
  const job = await jobs.findForWorkflow(input.jobId);
  if (!job) throw new Error(`job ${input.jobId} not found`);
  const attempt = (await jobs.attempt(input.jobId, input.n))!;
  await jobs.setStatus(input.jobId, 'running', {
    event: {
      type: 'job.started',
      dedupeKey: `job.started:${input.jobId}:${input.n}`,
      data: {
        job_id: job.id,
        name: job.name,
        attempt: input.n,
        provider: attempt.provider,
        instance_id: attempt.instance_id,
        spot: attempt.spot,
      },
    },
  });
  await noteJobAttemptOnRun(deps, input.jobId, runAttemptOf(attempt), input.startedAtMs);
}

export function createJobActivities(deps: ActivityDeps) {
  const jobs = createJobQueries(deps.pool);
  const jobOf = async (jobId: string) => {
    const job = await jobs.findForWorkflow(jobId);
    if (!job) throw new Error(`job ${jobId} not found`);
    return job;
  };

  return {
    async readJob(jobId: string): Promise<JobView> {
      const job = await jobOf(jobId);
      const template = TEMPLATES.find((t) => t.slug === job.spec.template);
      return {
        name: job.name,
        apiKeyId: job.api_key_id,
        spec: job.spec,
        dockerImage: job.spec.docker_image ?? template?.docker_image ?? null,
        attempts: (await jobs.attempts(jobId)).length,
      };
    },

    /** What the job's attempts were charged so far (the ledger), in micro-dollars. */
    async jobCostMicros(jobId: string): Promise<number> {
      return (await jobOf(jobId)).cost_micros;
    },

    /**
     * The offers an attempt may launch on now, cheapest first (those this job was refused on last): allowed and
     * connected providers (Lambda only while the account has a default SSH key), the job's price cap.
     */
    async findJobOffers(input: { jobId: string; spot: boolean; onDemand: boolean }): Promise<JobOffer[]> {
      const job = await jobOf(input.jobId);
      const { spec } = job;
      const connected: ProviderId[] = [];
      const readiness = { credentials: deps.credentials, sshKeys: deps.queries.sshKeys };
      for (const provider of spec.providers) {
        if ((await jobProviderReadiness(readiness, job.account_id, provider)) === 'ready') connected.push(provider);
      }
      const offers = await deps.queries.schedules.findRunOffers(spec.gpu, connected, true, new Date());
      // An offer this job's create was refused on (no capacity, a failed boot) goes after the others: the next
      // attempt tries another offer first, as a scheduled run always has.
      const offerKey = (o: { provider: ProviderId; spot: boolean }) => `${o.provider}:${o.spot}`;
      const refused = new Set(
        (await jobs.attempts(input.jobId))
          .filter((a) => a.end_reason === 'refused' || a.end_reason === 'boot_failed')
          .map(offerKey),
      );
      return offers
        .filter(launchableOffer)
        .filter((o) => (o.spot ? input.spot : input.onDemand))
        .map((o) => ({ provider: o.provider, spot: o.spot, pricePerHourMicros: o.pricePerHourMicros * spec.gpu_count }))
        .filter(
          (o) => spec.max_price_per_hour_micros === null || o.pricePerHourMicros <= spec.max_price_per_hour_micros,
        )
        .sort((a, b) => a.pricePerHourMicros - b.pricePerHourMicros || a.provider.localeCompare(b.provider))
        .sort((a, b) => Number(refused.has(offerKey(a))) - Number(refused.has(offerKey(b))));
    },

    /**
     * Attempt `n`'s admission, by the rule and lock of an API launch (balance, live-instance limit, the cap of
     * the key that made the job); when admitted, its instance row is reserved and the attempt recorded.
     * Returns the refusal (`type: message`), or null.
     */
    async admitJobAttempt(input: {
      jobId: string;
      n: number;
      launch: LaunchInput;
      pricePerHourMicros: number;
    }): Promise<string | null> {
      const refusal = await admitScheduledRun(
        { pool: deps.pool, windowMs: deps.admissionWindowMs, maxLive: deps.limits?.live_instances },
        {
          accountId: input.launch.accountId,
          pricePerHourMicros: input.pricePerHourMicros,
          intent: launchIntentOf(input.launch),
        },
      );
      if (refusal) return `${refusal.type}: ${refusal.message}`;
      await jobs.upsertAttempt({
        jobId: input.jobId,
        n: input.n,
        accountId: input.launch.accountId,
        instanceRowId: input.launch.instanceId,
        provider: input.launch.provider,
        spot: input.launch.spot,
        pricePerHourMicros: input.pricePerHourMicros,
        // A placeholder nobody holds; the create sets the real token's hash.
        tokenHash: randomBytes(32),
      });
      return null;
    },

    async markJobAttemptLaunched(input: {
      jobId: string;
      n: number;
      instanceId: string;
      pricePerHourMicros: number;
    }): Promise<void> {
      await jobs.markAttemptLaunched(input.jobId, input.n, input.instanceId, input.pricePerHourMicros);
      const attempt = (await jobs.attempt(input.jobId, input.n))!;
      await noteJobAttemptOnRun(deps, input.jobId, runAttemptOf(attempt));
    },

    /** The attempt runs; the first attempt to run makes the job `running` (`job.started`). */
    async markJobAttemptStarted(input: {
      jobId: string;
      n: number;
      startedAtMs: number;
      first: boolean;
    }): Promise<void> {
      await noteJobAttemptStarted(deps, input);
    },

    async readJobAttempt(input: { jobId: string; n: number }): Promise<{ exitCode: number | null }> {
      const attempt = await jobs.attempt(input.jobId, input.n);
      return { exitCode: attempt?.reported_at ? attempt.exit_code : null };
    },

    /** Ends the attempt once and writes `job.attempt_ended` with its reason, exit code and cost. */
    async finishJobAttempt(input: {
      jobId: string;
      n: number;
      reason: AttemptEndReason;
      detail: string;
      exitCode: number | null;
    }): Promise<void> {
      // An instance that ran, whose start this attempt never heard of (its end came first, e.g. a terminate sent
      // straight by the exit report): the attempt started when the instance did, before it ends.
      const before = await jobs.attempt(input.jobId, input.n);
      if (before && !before.started_at && !before.ended_at) {
        const row = await deps.queries.instances.findById(before.instance_row_id);
        if (row?.started_at) {
          await noteJobAttemptStarted(deps, {
            jobId: input.jobId,
            n: input.n,
            startedAtMs: Date.parse(row.started_at),
          });
        }
      }
      const attempt = await jobs.finishAttempt(input.jobId, input.n, {
        reason: input.reason,
        detail: input.detail,
        endedAt: new Date(),
      });
      const job = await jobOf(input.jobId);
      await jobs.event(job.account_id, {
        type: 'job.attempt_ended',
        dedupeKey: `job.attempt_ended:${input.jobId}:${input.n}`,
        data: {
          job_id: job.id,
          attempt: input.n,
          provider: attempt.provider,
          instance_id: attempt.instance_id,
          reason: attempt.end_reason,
          detail: attempt.end_detail,
          exit_code: attempt.reported_at ? attempt.exit_code : null,
          cost: money(attempt.cost_micros),
        },
      });
    },

    async jobRetrying(input: { jobId: string; reason: string; attempt: number; key: string }): Promise<void> {
      const job = await jobOf(input.jobId);
      await jobs.setStatus(input.jobId, 'retrying', {
        event: {
          type: 'job.retrying',
          dedupeKey: `job.retrying:${input.jobId}:${input.key}`,
          data: { job_id: job.id, after_attempt: input.attempt, reason: input.reason },
        },
      });
    },

    async finishJob(input: {
      jobId: string;
      status: 'succeeded' | 'failed' | 'cancelled';
      exitCode: number | null;
      error: string | null;
    }): Promise<void> {
      const job = await jobOf(input.jobId);
      const attempts = (await jobs.attempts(input.jobId)).length;
      await jobs.setStatus(input.jobId, input.status, {
        exitCode: input.exitCode,
        error: input.error,
        event: {
          type: `job.${input.status}`,
          dedupeKey: `job.end:${input.jobId}`,
          data: {
            job_id: job.id,
            name: job.name,
            status: input.status,
            exit_code: input.exitCode,
            error: input.error,
            attempts,
            cost: money(job.cost_micros),
          },
        },
      });
    },
  };
}
