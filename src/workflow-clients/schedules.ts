/**
 * Client side of the schedules family: each schedule is a real Temporal Schedule (id = the schedule's
 * `sched_…` id) whose action starts the scheduleRun workflow, and live runs are ended by signal. Every call
 * goes through {@link withEngine}: an unreachable Temporal is 503 `service_unavailable`.
 */
import {
  ScheduleAlreadyRunning,
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
import type { Payload } from '@temporalio/common';
import { decodeMapFromPayloads } from '@temporalio/common/lib/internal-non-workflow';
import { runSearchAttributes } from '../../workflows/contracts/search-attributes';
import { scheduleRun } from '../../workflows/schedule-run';
import { withEngine } from './engine';

/** A schedule's Temporal Schedule id (`sched_…`, = the row id), not one of the service's own (`pricing-refresh`, …). */
const isScheduleId = (id: string): boolean => /^sched_[1-9A-HJ-NP-Za-km-z]+$/.test(id);

/** The Temporal spec for a schedule's cron: calendars whose union is classic cron's firing set (UTC). */
export function scheduleSpec(row: Pick<ScheduleRow, 'cron'>, startAt?: Date): ScheduleSpec {
  return { calendars: toTemporalCalendars(row.cron), timezone: 'UTC', ...(startAt ? { startAt } : {}) };
}

/**
 * The Schedule's note names the row version it was made from (and says when the API paused it), so
 * reconciliation sees from a listing alone which Schedules are out of step with their rows.
 */
export function scheduleNote(row: Pick<ScheduleRow, 'status' | 'updated_at'>): string {
  return `${row.status === 'paused' ? 'paused through the API; ' : ''}row ${row.updated_at}`;
}

/** What a listing tells of one schedule's Temporal Schedule. */
export interface ListedSchedule {
  paused: boolean;
  note: string;
  /** The task queue its creator named in the memo (absent on Schedules made before it was recorded). */
  taskQueue: string | null;
}

/** True when the listed Schedule was made from this version of the row. */
export function inStepWith(row: ScheduleRow, listed: ListedSchedule): boolean {
  return listed.paused === (row.status === 'paused') && listed.note === scheduleNote(row);
}

export function createScheduleClient(deps: {
  temporal: { client: Client; taskQueue: string };
  timing: ScheduleRunTiming;
  /** The runs' jobs' wait for capacity (1 min doubling to 10 min); tests compress it. */
  jobBackoff?: ScheduleRunInput['jobBackoff'];
  /** How long a call waits for the engine before the answer is 503 (AnswerBounds.engineMs); default 10 s. */
  engineMs?: number;
}) {
  const { client, taskQueue } = deps.temporal;
  const engine = <T>(fn: () => Promise<T>) => withEngine(client, fn, deps.engineMs);
  const memoTaskQueue = async (fields: Record<string, Payload> | null | undefined): Promise<string | null> => {
    try {
      const queue = (await decodeMapFromPayloads(client.options.loadedDataConverter, fields))?.task_queue;
      return typeof queue === 'string' ? queue : null;
    } catch {
      return null; // not readable with this process's keys: not ours to touch
    }
  };

  function action(row: ScheduleRow): ScheduleOptionsStartWorkflowAction<typeof scheduleRun> {
    const input: ScheduleRunInput = {
      scheduleId: row.id,
      accountId: row.account_id,
      launch: deps.timing,
      ...(deps.jobBackoff ? { jobBackoff: deps.jobBackoff } : {}),
    };
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

  async function create(row: ScheduleRow): Promise<void> {
    await engine(() =>
      client.schedule.create({
        scheduleId: temporalScheduleId(row.id),
        spec: scheduleSpec(row),
        action: action(row),
        policies,
        state: { paused: row.status === 'paused', note: scheduleNote(row) },
        memo: { account_id: row.account_id, name: row.name, task_queue: taskQueue },
      }),
    );
  }

  async function update(row: ScheduleRow): Promise<void> {
    await engine(() =>
      client.schedule.getHandle(temporalScheduleId(row.id)).update((previous) => ({
        ...previous,
        spec: scheduleSpec(row),
        action: action(row),
        policies,
        state: { ...previous.state, paused: row.status === 'paused', note: scheduleNote(row) },
      })),
    );
  }

  return {
    /** The task queue this client's Schedules start their runs on. */
    taskQueue,
    create,

    /** Brings the Temporal Schedule in line with `row` (spec, action, paused) in one update. */
    update,

    /**
     * Makes the Temporal Schedule match `row` whether or not it exists yet: updated when it does, created when
     * it does not (another creator winning the race is fine: then it is updated). Safe to repeat. `fresh`
     * (a row just inserted) tries the create first.
     */
    async ensure(row: ScheduleRow, { fresh = false }: { fresh?: boolean } = {}): Promise<void> {
      if (!fresh) {
        try {
          await update(row);
          return;
        } catch (err) {
          if (!(err instanceof ScheduleNotFoundError)) throw err;
        }
      }
      try {
        await create(row);
      } catch (err) {
        if (!(err instanceof ScheduleAlreadyRunning)) throw err;
        await update(row);
      }
    },

    /**
     * Every schedule's Temporal Schedule in the namespace by id (the service's own Schedules left out). Read page
     * by page from the raw API so that one memo this process cannot decode (another deployment's keys in a shared
     * namespace) is listed with an unknown task queue, which reconcile never deletes, instead of failing the list.
     */
    async listSchedules(): Promise<Map<string, ListedSchedule>> {
      return engine(async () => {
        const listed = new Map<string, ListedSchedule>();
        let nextPageToken: Uint8Array | undefined;
        do {
          const page = await client.workflowService.listSchedules({
            namespace: client.options.namespace,
            nextPageToken,
          });
          for (const raw of page.schedules ?? []) {
            if (!raw.scheduleId || !isScheduleId(raw.scheduleId)) continue;
            listed.set(raw.scheduleId, {
              paused: raw.info?.paused === true,
              note: raw.info?.notes ?? '',
              taskQueue: await memoTaskQueue(raw.memo?.fields),
            });
          }
          nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
        } while (nextPageToken);
        return listed;
      });
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
      await engine(() =>
        client.schedule.getHandle(temporalScheduleId(scheduleId)).trigger(ScheduleOverlapPolicy.ALLOW_ALL),
      );
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
