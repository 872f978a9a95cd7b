import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { RunningPostgres } from '../src/local/embedded-postgres';

export default async function globalTeardown(): Promise<void> {
  const services = (globalThis as Record<string, unknown>).__gpuoTestServices as
    | { pg: RunningPostgres; temporal: TestWorkflowEnvironment }
    | undefined;
  if (!services) return;
  await Promise.allSettled([services.temporal.teardown(), services.pg.stop()]);
}
