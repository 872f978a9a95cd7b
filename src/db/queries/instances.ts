/**
 * The `instances` table's queries, one module per concern merged into one object: a launch's own rows
 * (instance-launch-rows.ts), adopted and re-managed rows (instance-adoption.ts), status changes
 * (instance-status.ts), charges (instance-charges.ts) and reads (instance-reads.ts). The row itself is in
 * instance-row.ts.
 */
import type { Pool } from '../pool';
import { createInstanceAdoptionQueries } from './instance-adoption';
import { createInstanceChargeQueries } from './instance-charges';
import { createInstanceLaunchQueries } from './instance-launch-rows';
import { createInstanceReadQueries } from './instance-reads';
import { createInstanceStatusQueries } from './instance-status';

export { ENDED_STATUSES, EndedInstanceRow, InstanceRow } from './instance-row';
export { decodeEndedCursor, encodeEndedCursor, type InstanceCosts } from './instance-reads';

export function createInstanceQueries(pool: Pool) {
  return {
    ...createInstanceLaunchQueries(pool),
    ...createInstanceAdoptionQueries(pool),
    ...createInstanceStatusQueries(pool),
    ...createInstanceChargeQueries(pool),
    ...createInstanceReadQueries(pool),
  };
}
export type InstanceQueries = ReturnType<typeof createInstanceQueries>;
