/** Builds a Temporal worker for our task queue. Used by the worker process, the local default and tests. */
import { NativeConnection, Runtime, Worker, DefaultLogger, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';

let runtimeInstalled = false;

/** Keeps the SDK's own logging at warnings unless asked otherwise (its info lines are noise for operators). */
export function installTemporalRuntime(level: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' = 'WARN'): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ logger: new DefaultLogger(level) });
}

export async function createWorker(opts: {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  bundle?: WorkerOptions['workflowBundle'];
}): Promise<Worker> {
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    ...(opts.bundle ? { workflowBundle: opts.bundle } : { workflowsPath: require.resolve('../workflows') }),
    activities: createActivities(opts.deps),
  });
}
