/**
 * Side effects of the scheduleRun workflow: the run's rows and events, the offers it may launch on, and the
 * state of its instance. Every activity is safe to retry (run rows are keyed by the workflow id, events by
 * a dedupe key).
 */
import { createHash } from 'node:crypto';
import { createJobQueries } from '../src/db/queries/jobs';
import type { FinalRunStatus, RunOffer, RunRow, ScheduleRow } from '../src/db/queries/schedules';
import { randomToken } from '../src/domain/ids';
import { runEndOfJob, scheduleRunJobSpec } from '../src/jobs/schedule-runs';
import { TEMPLATES } from '../src/domain/templates';
import { PROVIDERS, type ProviderId } from '../src/providers/types';
import type { ActivityDeps } from './deps';
import type { LaunchIntent } from '../src/db/queries/admission';
import { admitScheduledRun } from '../src/launch/admission';
import { launchableOffer } from '../src/launch/policy';

/**
 * Providers a scheduled run launches on: RunPod and Vast.ai. One-off jobs also run on Lambda (the image under
 * Docker on the VM, which needs the account's default SSH key); a schedule's runs stay on the providers they
 * ran on before, so the offers and costs a schedule was set up with do not change under it (docs/api.md).
 */
export const SCHEDULE_PROVIDERS: readonly ProviderId[] = ['runpod', 'vastai'];

export interface BegunRun {
  run: RunRow;
  schedule: ScheduleRow;
  /** The container image the job runs: the template's, or the schedule's own for `custom`. */
  dockerImage: string;
}

export interface RunInstanceState {
  /** Set once the provider accepted the create. */
  instanceId: string | null;
  status: string | null;
  startedAtMs: number | null;
  pricePerHourMicros: number | null;
  spot: boolean;
  /** Why the service itself ended the instance, when it did (a key's spend cap, a budget, a balance depletion). */
  endReason?: string | null;
}

/**
 * The run's admission, by the same rule and lock as an API launch (`admitScheduledRun`, the launch library):
 * the balance, and the cap of the key that made the schedule (`intent.apiKeyId`). When admitted, the launch's
 * row is written as its reservation before the launch workflow starts. Returns the run's failure reason, its
 * failure type first (`insufficient_balance: …` for the balance or the key's cap, `api_key_unusable: …` for a key
 * revoked or expired since, `limit_reached: …`), or null when admitted (or when the launch exists already: a
 * replayed step).
 */
export async function admitRun(
  deps: ActivityDeps,
  input: { accountId: string; pricePerHourMicros: number; intent?: LaunchIntent },
): Promise<string | null> {
  const refusal = await admitScheduledRun(
    { pool: deps.pool, windowMs: deps.admissionWindowMs, maxLive: deps.limits?.live_instances },
    input,
  );
  return refusal && `${refusal.type}: ${refusal.message}`;
}

/**
 * Keeps the run that job `jobId` carries out (if any) in step with the job's latest attempt: the provider took its
 * create (provider, instance, price), and, with `startedAtMs`, it runs (`running`, `schedule.run.started` once).
 * Called by the job's activities; a job made through the API has no run and nothing changes.
 */
export async function noteJobAttemptOnRun(
  deps: ActivityDeps,
  jobId: string,
  attempt: { provider: ProviderId; instanceRowId: string; instanceId: string | null; pricePerHourMicros: number },
  startedAtMs?: number,
): Promise<void> {
  const { schedules } = deps.queries;
  const run = await schedules.findLiveRunOfJob(jobId);
  if (!run) return;
  await schedules.markRunLaunched(run.id, attempt);
  if (startedAtMs !== undefined) await schedules.markRunRunning(run.id, new Date(startedAtMs));
}

export function createScheduleActivities(deps: ActivityDeps) {
  const { schedules, instances } = deps.queries;
  const jobs = createJobQueries(deps.pool);

  /** The connected providers of the account that can run a job, and whether any has an offer for `gpu` now. */
  async function jobProviders(accountId: string, gpu: string, preferSpot: boolean) {
    const connected: ProviderId[] = [];
    for (const provider of PROVIDERS) {
      // A schedule's runs stay on the providers they always ran on (SCHEDULE_PROVIDERS).
      if (!SCHEDULE_PROVIDERS.includes(provider)) continue;
      if ((await deps.credentials.findApiKey(accountId, provider)) !== null) connected.push(provider);
    }
    const offers = (await schedules.findRunOffers(gpu, connected, preferSpot, new Date())).filter(launchableOffer);
    return { connected, offered: offers.length > 0 };
  }

  return {
    /** Records the run (`launching`, or `skipped` while another run is live); null when the schedule is gone. */
    async beginScheduleRun(input: {
      workflowId: string;
      scheduleId: string;
      accountId: string;
      scheduledAtMs: number;
    }): Promise<BegunRun | null> {
      const begun = await schedules.beginRun({ ...input, scheduledAt: new Date(input.scheduledAtMs) });
      if (!begun) return null;
      const { schedule } = begun;
      const template = TEMPLATES.find((t) => t.slug === schedule.template);
      const dockerImage = schedule.template === 'custom' ? schedule.docker_image : template?.docker_image;
      return { ...begun, dockerImage: dockerImage ?? '' };
    },

    /** Offers the run may launch on, in the order to try them (connected providers that can run the job). */
    async findScheduleRunOffers(input: { accountId: string; gpu: string; preferSpot: boolean }): Promise<RunOffer[]> {
      const connected: ProviderId[] = [];
      for (const provider of PROVIDERS) {
        if (!SCHEDULE_PROVIDERS.includes(provider)) continue;
        if ((await deps.credentials.findApiKey(input.accountId, provider)) !== null) connected.push(provider);
      }
      const offers = await schedules.findRunOffers(input.gpu, connected, input.preferSpot, new Date());
      // Spot only where the provider sells it: the same rule an API launch is held to.
      return offers.filter(launchableOffer);
    },

    /** The run's spend admission and reservation (see `admitRun`); the run's failure reason when refused. */
    async checkScheduleRunBalance(input: {
      accountId: string;
      pricePerHourMicros: number;
      intent?: LaunchIntent;
    }): Promise<string | null> {
      return admitRun(deps, input);
    },

    /** What the run needs to know about its instance: accepted yet, running since when, at what price. */
    async readRunInstance(instanceRowId: string): Promise<RunInstanceState> {
      const row = await instances.findById(instanceRowId);
      if (!row) return { instanceId: null, status: null, startedAtMs: null, pricePerHourMicros: null, spot: false };
      return {
        instanceId: row.provider_instance_id,
        status: row.status,
        startedAtMs: row.started_at ? Date.parse(row.started_at) : null,
        pricePerHourMicros: row.price_per_hour_micros,
        spot: row.spot,
        endReason: row.end_reason,
      };
    },

    async markScheduleRunLaunched(input: {
      runId: string;
      provider: ProviderId;
      instanceRowId: string;
      instanceId: string | null;
      pricePerHourMicros: number | null;
    }): Promise<RunRow> {
      return schedules.markRunLaunched(input.runId, input);
    },

    async markScheduleRunRunning(input: { runId: string; startedAtMs: number }): Promise<RunRow> {
      return schedules.markRunRunning(input.runId, new Date(input.startedAtMs));
    },

    /**
     * Makes the run's job from the schedule as it is now (once: a retried step finds the job made before, by the
     * run's idempotency key) and names it on the run. Returns the job's id, why the run fails without one (no
     * connected provider that runs jobs has an offer for the GPU), or that the schedule was deleted meanwhile.
     */
    async makeScheduleRunJob(input: {
      runId: string;
    }): Promise<{ jobId: string } | { error: string } | { cancelled: string }> {
      const run = await schedules.findRun(input.runId);
      if (!run) throw new Error(`run ${input.runId} not found`);
      if (run.job_id) return { jobId: run.job_id };
      const schedule = await schedules.find(run.account_id, run.schedule_id);
      if (!schedule) return { cancelled: `the schedule ${run.schedule_id} was deleted` };
      const { connected, offered } = await jobProviders(schedule.account_id, schedule.gpu, schedule.prefer_spot);
      if (!offered) {
        return {
          error:
            `no available offer for ${schedule.gpu} on a connected provider that can run the job ` +
            `(${SCHEDULE_PROVIDERS.join(', ')})`,
        };
      }
      const idempotencyKey = `schedule-run:${run.id}`;
      const { job } = await jobs.insert({
        id: `job_${randomToken(128)}`,
        accountId: schedule.account_id,
        apiKeyId: schedule.api_key_id,
        idempotencyKey,
        requestHash: createHash('sha256').update(idempotencyKey).digest('hex'),
        name: schedule.name,
        spec: scheduleRunJobSpec(schedule, connected),
        envSealed: null,
      });
      await schedules.attachJob(run.id, job.id);
      return { jobId: job.id };
    },

    /** Ends the run as its job ended (the mapping in src/jobs/schedule-runs.ts), once. */
    async finishScheduleRunOfJob(input: { runId: string; jobId: string }): Promise<RunRow> {
      const job = await jobs.findForWorkflow(input.jobId);
      if (!job) throw new Error(`job ${input.jobId} not found`);
      const attempts = await jobs.attempts(input.jobId);
      const last = attempts.at(-1) ?? null;
      const instance = last ? await instances.findById(last.instance_row_id) : null;
      const end = runEndOfJob(job, last, instance?.end_reason ?? null);
      return schedules.finishRun(input.runId, end.status, {
        stopReason: end.stopReason,
        error: end.error,
        endedAt: job.ended_at ? new Date(job.ended_at) : new Date(),
      });
    },

    async finishScheduleRun(input: {
      runId: string;
      status: FinalRunStatus;
      stopReason?: string | null;
      error?: string | null;
      endedAtMs: number;
    }): Promise<RunRow> {
      return schedules.finishRun(input.runId, input.status, { ...input, endedAt: new Date(input.endedAtMs) });
    },
  };
}
