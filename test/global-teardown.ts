import { rm } from 'node:fs/promises';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { RunningPostgres } from '../src/local/embedded-postgres';

export default async function globalTeardown(): Promise<void> {
  const services = (globalThis as Record<string, unknown>).__gpuoTestServices as
    { pg: RunningPostgres; temporal: TestWorkflowEnvironment; dir: string } | undefined;
  if (!services) return;
  await Promise.allSettled([services.temporal.teardown(), services.pg.stop()]);
  // The run's folder (Postgres's data, the workflow bundle): 80 MB a run, which filled /tmp after a few hundred.
  await rm(services.dir, { recursive: true, force: true });
}
