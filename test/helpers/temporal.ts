/**
 * One Temporal environment and one workflow bundle per test file, on the run's real dev server;
 * a fresh task queue per test.
 */
import { randomBytes } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, NativeConnection, Runtime, DefaultLogger, type WorkflowBundleWithSourceMap, type Worker } from '@temporalio/worker';
import { createWorker, WORKFLOW_INTERCEPTOR_MODULES } from '../../src/worker';
import { createAlertMonitorClient } from '../../src/workflow-clients/alerts';
import type { WorkerDeps } from '../../src/worker';

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
        logger: new DefaultLogger('WARN'),
      });
  return bundle;
}
let runtimeInstalled = false;

export interface TemporalTestEnv {
  env: TestWorkflowEnvironment;
  connection: NativeConnection;
  /** A worker on a fresh task queue, with the file's shared workflow bundle. */
  startWorker(deps: WorkerDeps, taskQueue?: string): Promise<{ worker: Worker; taskQueue: string; running: Promise<void> }>;
  close(): Promise<void>;
}

export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

export async function createTemporalTestEnv(): Promise<TemporalTestEnv> {
  if (!runtimeInstalled) {
    runtimeInstalled = true;
    Runtime.install({ logger: new DefaultLogger('ERROR') }); // tests provoke activity failures on purpose
  }
  const address = process.env.TEST_TEMPORAL_ADDRESS!;
  const env = await TestWorkflowEnvironment.createFromExistingServer({ address });
  const connection = await NativeConnection.connect({ address });
  const workers: { worker: Worker; running: Promise<void> }[] = [];
  const monitors: string[] = [];
  return {
    env,
    connection,
    async startWorker(deps, taskQueue = uniqueTaskQueue()) {
      const worker = await createWorker({ connection, namespace: 'default', taskQueue, deps, bundle: await workflowBundle() });
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
