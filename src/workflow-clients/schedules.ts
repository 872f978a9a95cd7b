/**
 * Client side of the schedules family: each schedule is a real Temporal Schedule (id = the schedule's
 * `sched_…` id) whose action starts the scheduleRun workflow, and live runs are ended by signal. Every call
 * goes through {@link withEngine}: an unreachable Temporal is 503 `service_unavailable`.
 */
import {
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  WorkflowNotFoundError,
  type Client,
  type ScheduleDescription,
  type ScheduleOptionsStartWorkflowAction,
  type ScheduleSpec,
} from '@temporalio/client';
import type { ScheduleRow } from '../db/queries/schedules';
import { toTemporalCalendars } from './cron-calendars';
import {
  cancelScheduleRunSignal,
  runWorkflowIdPrefix,
  temporalScheduleId,
  type ScheduleRunInput,
  type ScheduleRunTiming,
} from '../../workflows/contracts/schedules';
import { runSearchAttributes } from '../../workflows/contracts/search-attributes';
import { scheduleRun } from '../../workflows/schedule-run';
import { withEngine } from './engine';

/** The Temporal spec for a schedule's cron: calendars whose union is classic cron's firing set (UTC). */
export function scheduleSpec(row: Pick<ScheduleRow, 'cron'>, startAt?: Date): ScheduleSpec {
  return { calendars: toTemporalCalendars(row.cron), timezone: 'UTC', ...(startAt ? { startAt } : {}) };
}

export function createScheduleClient(deps: {
  temporal: { client: Client; taskQueue: string };
  timing: ScheduleRunTiming;
  /** How long a call waits for the engine before the answer is 503 (AnswerBounds.engineMs); default 10 s. */
  engineMs?: number;
}) {
  const { client, taskQueue } = deps.temporal;
  const engine = <T>(fn: () => Promise<T>) => withEngine(client, fn, deps.engineMs);

  function action(row: ScheduleRow): ScheduleOptionsStartWorkflowAction<typeof scheduleRun> {
    const input: ScheduleRunInput = { scheduleId: row.id, accountId: row.account_id, launch: deps.timing };
    return {
      type: 'startWorkflow',
      workflowType: scheduleRun,
      workflowId: runWorkflowIdPrefix(row.id),
      taskQueue,
      args: [input],
      typedSearchAttributes: runSearchAttributes({ accountId: row.account_id, scheduleId: row.id }),
    };
  }

  // ALLOW_ALL: every firing starts its run workflow, which records `skipped` itself when the previous run is live.
  const policies = { overlap: ScheduleOverlapPolicy.ALLOW_ALL, catchupWindow: '1 minute' } as const;

  return {
    async create(row: ScheduleRow): Promise<void> {
      await engine(() =>
        client.schedule.create({
          scheduleId: temporalScheduleId(row.id),
          spec: scheduleSpec(row),
          action: action(row),
          policies,
          state: { paused: row.status === 'paused', note: row.status === 'paused' ? 'paused through the API' : undefined },
          memo: { account_id: row.account_id, name: row.name },
        }),
      );
    },

    /** Brings the Temporal Schedule in line with `row` (spec, action, paused) in one update. */
    async update(row: ScheduleRow): Promise<void> {
      await engine(() =>
        client.schedule.getHandle(temporalScheduleId(row.id)).update((previous) => ({
          ...previous,
          spec: scheduleSpec(row),
          action: action(row),
          policies,
          state: { ...previous.state, paused: row.status === 'paused', note: row.status === 'paused' ? 'paused through the API' : '' },
        })),
      );
    },

    /** Deletes the Temporal Schedule; one already gone is fine. */
    async delete(scheduleId: string): Promise<void> {
      try {
        await engine(() => client.schedule.getHandle(temporalScheduleId(scheduleId)).delete());
      } catch (err) {
        if (!(err instanceof ScheduleNotFoundError)) throw err;
      }
    },

    /** Starts a run now, through the schedule's own action (same workflow, same overlap rule). */
    async trigger(scheduleId: string): Promise<void> {
      await engine(() => client.schedule.getHandle(temporalScheduleId(scheduleId)).trigger(ScheduleOverlapPolicy.ALLOW_ALL));
    },

    async describe(scheduleId: string): Promise<ScheduleDescription> {
      return engine(() => client.schedule.getHandle(temporalScheduleId(scheduleId)).describe());
    },

    /** Ends a live run: its instance is terminated and the run recorded `cancelled`. A finished run is left alone. */
    async cancelRun(workflowId: string, reason: string): Promise<void> {
      try {
        await engine(() => client.workflow.getHandle(workflowId).signal(cancelScheduleRunSignal, { reason }));
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
    },
  };
}
export type ScheduleClient = ReturnType<typeof createScheduleClient>;
