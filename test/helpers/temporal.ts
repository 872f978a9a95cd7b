/**
 * One Temporal environment and one workflow bundle per test file, on the run's real dev server;
 * a fresh task queue per test.
 */
import { createHash, randomBytes } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Logger as SdkLogger } from '@temporalio/common';
import {
  bundleWorkflowCode,
  NativeConnection,
  Runtime,
  DefaultLogger,
  type WorkflowBundleWithSourceMap,
  type Worker,
} from '@temporalio/worker';
import { createWorker, WORKFLOW_INTERCEPTOR_MODULES } from '../../src/worker';
import { createAlertMonitorClient } from '../../src/workflow-clients/alerts';
import type { WorkerDeps } from '../../src/worker';
import { KeyVault } from '../../src/domain/key-vault';
import { FAILURE_CONVERTER_PATH, temporalDataConverter } from '../../src/workflow-clients/payload-codec';

/**
 * The master key of every Temporal client and worker a test file makes (payloads are encrypted as in
 * production, so both sides need the same key). Fixed, so tests that spawn the real processes pass it on.
 */
export const TEST_TEMPORAL_VAULT = new KeyVault(
  'test-temporal',
  createHash('sha256').update('gpu-orchestrator test payload key').digest(),
);
export const TEST_DATA_CONVERTER = temporalDataConverter(TEST_TEMPORAL_VAULT);
/** MASTER_ENCRYPTION_KEY / _ID for a spawned API or worker that shares the test's Temporal payload keys. */
export const TEST_MASTER_KEY_ENV = {
  MASTER_ENCRYPTION_KEY: createHash('sha256').update('gpu-orchestrator test payload key').digest().toString('base64'),
  MASTER_ENCRYPTION_KEY_ID: 'test-temporal',
};

let bundle: Promise<WorkflowBundleOption> | undefined;

type WorkflowBundleOption = WorkflowBundleWithSourceMap | { codePath: string };

/**
 * The workflow bundle of this run: the one the global setup built (with the interceptors) when there is one,
 * else built here once per file.
 */
export function workflowBundle(): Promise<WorkflowBundleOption> {
  const codePath = process.env.TEST_WORKFLOW_BUNDLE;
  bundle ??= codePath
    ? Promise.resolve({ codePath })
    : bundleWorkflowCode({
        workflowsPath: require.resolve('../../workflows'),
        workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
        failureConverterPath: FAILURE_CONVERTER_PATH,
        logger: new DefaultLogger('WARN'),
      });
  return bundle;
}
let runtimeInstalled = false;

export interface TemporalTestEnv {
  env: TestWorkflowEnvironment;
  connection: NativeConnection;
  /** A worker on a fresh task queue, with the file's shared workflow bundle. */
  startWorker(
    deps: WorkerDeps,
    taskQueue?: string,
  ): Promise<{ worker: Worker; taskQueue: string; running: Promise<void> }>;
  close(): Promise<void>;
}

export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

/** `runtimeLogger`: where the SDK's own logs go in this file (default: errors only, to the console). */
export async function createTemporalTestEnv(options: { runtimeLogger?: SdkLogger } = {}): Promise<TemporalTestEnv> {
  if (!runtimeInstalled) {
    runtimeInstalled = true;
    // Tests provoke activity failures on purpose: by default only errors are printed.
    Runtime.install({ logger: options.runtimeLogger ?? new DefaultLogger('ERROR') });
  }
  const address = process.env.TEST_TEMPORAL_ADDRESS!;
  const env = await TestWorkflowEnvironment.createFromExistingServer({
    address,
    client: { dataConverter: TEST_DATA_CONVERTER },
  });
  const connection = await NativeConnection.connect({ address });
  const workers: { worker: Worker; running: Promise<void> }[] = [];
  const monitors: string[] = [];
  return {
    env,
    connection,
    async startWorker(deps, taskQueue = uniqueTaskQueue()) {
      const worker = await createWorker({
        connection,
        namespace: 'default',
        taskQueue,
        deps,
        dataConverter: TEST_DATA_CONVERTER,
        bundle: await workflowBundle(),
      });
      const running = worker.run();
      workers.push({ worker, running });
      // As at worker start-up in production: the worker's alert monitor runs from the start.
      if (deps.alertMonitor) {
        const monitor = createAlertMonitorClient({ client: env.client, taskQueue, settings: deps.alertMonitor });
        await monitor.ensureRunning();
        monitors.push(monitor.workflowId);
      }
      return { worker, taskQueue, running };
    },
    async close() {
      // Long-running monitors would otherwise outlive their worker on the shared server.
      await Promise.allSettled(monitors.map((id) => env.client.workflow.getHandle(id).terminate('test file finished')));
      for (const w of workers) if (w.worker.getState() === 'RUNNING') w.worker.shutdown();
      await Promise.allSettled(workers.map((w) => w.running));
      await connection.close();
      await env.teardown();
    },
  };
}
