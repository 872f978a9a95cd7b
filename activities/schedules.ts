/**
 * Side effects of the scheduleRun workflow: the run's rows and events, the offers it may launch on, and the
 * state of its instance. Every activity is safe to retry (run rows are keyed by the workflow id, events by
 * a dedupe key).
 */
import type { FinalRunStatus, RunOffer, RunRow, ScheduleRow } from '../src/db/queries/schedules';
import { TEMPLATES } from '../src/domain/templates';
import { PROVIDERS, type ProviderId } from '../src/providers/types';
import type { ActivityDeps } from './deps';
import type { LaunchIntent } from '../src/db/queries/admission';
import { admitScheduledRun } from '../src/launch/admission';
import { launchableOffer } from '../src/launch/policy';

/**
 * Providers a scheduled job can run on: both run a container image and a startup command (runpod as the
 * container's args, vastai as `onstart`). Lambda launches bare VMs with no image and no startup command in
 * its API, so it cannot run a schedule's job.
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

export function createScheduleActivities(deps: ActivityDeps) {
  const { schedules, instances } = deps.queries;

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
