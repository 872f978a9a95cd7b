/**
 * Keeps each schedules row and its Temporal Schedule (same id) in step. The row is the truth: it is what the
 * API shows and what every firing reads, so whatever goes wrong between the two steps ends with the Temporal
 * Schedule made to match the row (or removed when the row is gone), never the other way round.
 *
 * - create: the row commits first (with the account's limit), then the Temporal Schedule is made idempotently.
 *   When the engine refuses or cannot be reached, the row is taken back before the error is answered (and the
 *   Schedule, should an ambiguous failure have made it). A crash between the steps leaves a row without a
 *   Schedule: {@link ScheduleSync.reconcile} makes it.
 * - update: row and Schedule change under the row's lock in one transaction: an engine failure rolls the row
 *   back. If the commit fails after the engine took the change, the Schedule is put back as the row is; should
 *   that fail too (or the process die), reconcile puts it back.
 * - delete: the engine first, the row last, under the row's lock: a failure leaves the row and a retried
 *   DELETE finishes (a crash in between leaves a live row whose Schedule reconcile makes again).
 * - reconcile (worker start-up and every RECONCILE_INTERVAL): a live row whose Schedule is missing or out of
 *   step (the Schedule's note names the row version it was made from, `scheduleNote`) gets it made again; a
 *   Temporal Schedule of our task queue without a live row is deleted. Rows changed within `settleMs` are
 *   left to the request changing them.
 */
import type { CommonQueryMethods } from 'slonik';
import type { LimitQueries } from '../db/queries/limits';
import type { ScheduleFields, ScheduleQueries, ScheduleRow } from '../db/queries/schedules';
import { NotFoundError } from '../errors';
import type { Logger } from '../logger';
import { inStepWith, type ScheduleClient } from './schedules';

/** How long reconciliation leaves a just-changed row to the request changing it. */
export const DEFAULT_RECONCILE_SETTLE_MS = 60_000;

export interface ScheduleReconciliation {
  /** Rows whose Schedule was missing and was made. */
  created: string[];
  /** Rows whose Schedule was brought in line with the row. */
  aligned: string[];
  /** Temporal Schedules deleted because no live row has their id. */
  removed: string[];
  /** Rows that could not be repaired this time (the next pass tries again). */
  failed: string[];
}

export function createScheduleSync(deps: {
  queries: ScheduleQueries;
  limits: Pick<LimitQueries, 'assertWithinLimits'>;
  engine: ScheduleClient;
  logger?: Logger;
}) {
  const { queries, engine } = deps;

  async function findForUpdateOr404(tx: CommonQueryMethods, accountId: string, id: string): Promise<ScheduleRow> {
    const row = await queries.findForUpdate(tx, accountId, id);
    if (!row) throw new NotFoundError(`No schedule ${id}.`);
    return row;
  }

  /** Takes back a row whose Schedule could not be made; what cannot be undone now, reconcile removes. */
  async function takeBack(row: ScheduleRow): Promise<void> {
    await engine.delete(row.id).catch(() => undefined);
    await queries.transaction(async (tx) => {
      for (const workflowId of await queries.liveRunWorkflowIds(row.account_id, row.id, tx)) {
        await engine.cancelRun(workflowId, `the schedule ${row.id} could not be created`).catch(() => undefined);
      }
      await queries.discard(tx, row.account_id, row.id);
    });
  }

  return {
    /** Creates the row and its Temporal Schedule; on failure neither is left (see the module comment). */
    async create(accountId: string, fields: ScheduleFields, apiKeyId: string | null): Promise<ScheduleRow> {
      const row = await queries.transaction(async (tx) => {
        await deps.limits.assertWithinLimits(tx, accountId, [{ name: 'schedules' }]);
        return queries.insert(tx, accountId, fields, apiKeyId);
      });
      try {
        await engine.ensure(row, { fresh: true });
      } catch (err) {
        await takeBack(row).catch((cleanup: unknown) =>
          deps.logger?.warn('a schedule row outlived its failed create; reconciliation will make its Schedule', {
            schedule_id: row.id,
            err: cleanup,
          }),
        );
        throw err;
      }
      return row;
    },

    /**
     * Applies `change` (the new fields from the row as it is, or a thrown refusal) to the row and the Schedule
     * together: when the engine refuses or cannot be reached, neither changes. `apiKeyId` becomes the schedule's key.
     */
    async update(
      accountId: string,
      id: string,
      apiKeyId: string | null,
      change: (current: ScheduleRow) => ScheduleFields,
    ): Promise<ScheduleRow> {
      let previous: ScheduleRow | null = null;
      let inEngine = false;
      try {
        return await queries.transaction(async (tx) => {
          const current = await findForUpdateOr404(tx, accountId, id);
          previous = current;
          const updated = await queries.update(tx, accountId, id, change(current), apiKeyId);
          await engine.ensure(updated);
          inEngine = true;
          return updated;
        });
      } catch (err) {
        // The engine took the change but the row did not commit: put the engine back as the row still is.
        const before = previous as ScheduleRow | null;
        if (inEngine && before) await engine.ensure(before).catch(() => undefined);
        throw err;
      }
    },

    /** Deletes the Schedule, ends live runs (`cancelled`), then marks the row deleted; a failure leaves the row. */
    async delete(accountId: string, id: string): Promise<void> {
      await queries.transaction(async (tx) => {
        const row = await findForUpdateOr404(tx, accountId, id);
        // Deleting a deleted Temporal Schedule and signalling an ended run are no-ops: a retry finishes the job.
        await engine.delete(row.id);
        for (const workflowId of await queries.liveRunWorkflowIds(accountId, row.id, tx)) {
          await engine.cancelRun(workflowId, `the schedule ${row.id} was deleted`);
        }
        await queries.markDeleted(tx, accountId, row.id);
      });
    },

    /** Repairs drift between the rows and Temporal (see the module comment). Safe to run anywhere, any time. */
    async reconcile({
      settleMs = DEFAULT_RECONCILE_SETTLE_MS,
    }: { settleMs?: number } = {}): Promise<ScheduleReconciliation> {
      const result: ScheduleReconciliation = { created: [], aligned: [], removed: [], failed: [] };
      // Temporal first: a row always commits before its Schedule is made, so a listed Schedule's row is found below.
      const listed = await engine.listSchedules();
      const live = await queries.listLive();
      const settledBefore = Date.now() - settleMs;
      for (const seen of live) {
        const schedule = listed.get(seen.id);
        if (Date.parse(seen.updated_at) > settledBefore || (schedule && inStepWith(seen, schedule))) continue;
        try {
          await queries.transaction(async (tx) => {
            // Under the row's lock: a PUT in flight finishes first, and the Schedule gets the row as it is then.
            const row = await queries.findForUpdate(tx, seen.account_id, seen.id);
            if (!row) return;
            await engine.ensure(row);
            (schedule ? result.aligned : result.created).push(row.id);
          });
        } catch (err) {
          result.failed.push(seen.id);
          deps.logger?.warn('could not bring a Temporal Schedule in line with its row', { schedule_id: seen.id, err });
        }
      }
      const liveIds = new Set(live.map((r) => r.id));
      for (const [id, schedule] of listed) {
        // Only our own task queue's: another deployment may share the namespace (with its own database).
        if (liveIds.has(id) || schedule.taskQueue !== engine.taskQueue) continue;
        try {
          await engine.delete(id);
          result.removed.push(id);
        } catch (err) {
          result.failed.push(id);
          deps.logger?.warn('could not delete a Temporal Schedule that has no schedule row', { schedule_id: id, err });
        }
      }
      return result;
    },
  };
}
export type ScheduleSync = ReturnType<typeof createScheduleSync>;
