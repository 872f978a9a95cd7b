/**
 * Activities: every side effect of a workflow (provider APIs, Postgres, Stripe). `createActivities(deps)`
 * merges one group per concern; workflows see only the type.
 */
import type { Pool } from '../src/db/pool';
import type { Logger } from '../src/logger';
import { createHealthActivities } from './health';

export interface ActivityDeps {
  pool: Pool;
  logger: Logger;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createHealthActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
