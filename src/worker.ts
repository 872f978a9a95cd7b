/** Builds a Temporal worker for our task queue. Used by the worker process, the local default and tests. */
import { createServer, type Server } from 'node:http';
import type { DataConverter, LogLevel as SdkLogLevel, LogMetadata, Logger as SdkLogger } from '@temporalio/common';
import {
  makeTelemetryFilterString,
  NativeConnection,
  Runtime,
  Worker,
  type ActivityInterceptorsFactory,
  type InjectedSinks,
  type WorkerOptions,
} from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import type { WorkflowMetricsSinks } from '../workflows/interceptors';
import type { Logger } from './logger';
import { recordActivityExecution, recordWorkflowCompletion, renderMetrics } from './metrics';
import { bearerMatches } from './http/ops-token';

let runtimeInstalled = false;

/** The workflow interceptor modules: pass them to `bundleWorkflowCode` when building a bundle yourself. */
export const WORKFLOW_INTERCEPTOR_MODULES = [require.resolve('../workflows/interceptors')];

const SDK_LEVEL_RANK: Record<SdkLogLevel, number> = { TRACE: 0, DEBUG: 1, INFO: 2, WARN: 3, ERROR: 4 };

/**
 * The Temporal SDK's logger, writing through ours: one JSON line per SDK message, metadata as fields
 * (errors as `{name, message}`, their stack only when our level is debug). Messages below `minimum` are dropped.
 */
export function temporalLoggerFor(logger: Logger, minimum: SdkLogLevel = 'WARN'): SdkLogger {
  const sdk = logger.child({ component: 'temporal' });
  const log = (level: SdkLogLevel, message: string, meta?: LogMetadata) => {
    if (SDK_LEVEL_RANK[level] < SDK_LEVEL_RANK[minimum]) return;
    const fields: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(meta ?? {})) fields[k === 'message' || k === 'level' || k === 'time' ? `sdk_${k}` : k] = v;
    if (level === 'ERROR') sdk.error(message, fields);
    else if (level === 'WARN') sdk.warn(message, fields);
    else if (level === 'INFO') sdk.info(message, fields);
    else sdk.debug(message, fields);
  };
  return {
    log,
    trace: (m, meta) => log('TRACE', m, meta),
    debug: (m, meta) => log('DEBUG', m, meta),
    info: (m, meta) => log('INFO', m, meta),
    warn: (m, meta) => log('WARN', m, meta),
    error: (m, meta) => log('ERROR', m, meta),
  };
}

/**
 * Installs the Temporal runtime once per process with its logging routed through `logger`: the TS side of the
 * SDK (activity and workflow failure logs included) and the native core (forwarded instead of printed).
 * Keeps the SDK at warnings unless asked otherwise (its info lines are noise for operators).
 */
export function installTemporalRuntime(logger: Logger, level: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' = 'WARN'): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({
    logger: temporalLoggerFor(logger, level),
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: level, other: level }), forward: {} } },
  });
}

/** Counts every activity attempt by type and outcome (gpuo_activity_executions_total). */
const activityMetrics: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    async execute(input, next) {
      const started = performance.now();
      const type = ctx.info.activityType;
      try {
        const result = await next(input);
        recordActivityExecution(type, 'completed', (performance.now() - started) / 1000);
        return result;
      } catch (err) {
        const outcome = ctx.cancellationSignal.aborted ? 'cancelled' : 'failed';
        recordActivityExecution(type, outcome, (performance.now() - started) / 1000);
        throw err;
      }
    },
  },
});

const metricsSinks: InjectedSinks<WorkflowMetricsSinks> = {
  metrics: {
    workflowEnded: {
      fn: (info, outcome) => recordWorkflowCompletion(info.workflowType, outcome),
      callDuringReplay: false,
    },
  },
};

export async function createWorker(opts: {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /**
   * `temporalDataConverter(vault)` (src/temporal/payload-codec.ts): the same keys as every client's. A
   * pre-built bundle must be built with its `failureConverterPath` ({@link FAILURE_CONVERTER_PATH}).
   */
  dataConverter: DataConverter;
  /** A pre-built bundle must include {@link WORKFLOW_INTERCEPTOR_MODULES} (`workflowInterceptorModules`). */
  bundle?: WorkerOptions['workflowBundle'];
}): Promise<Worker> {
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    dataConverter: opts.dataConverter,
    ...(opts.bundle ? { workflowBundle: opts.bundle } : { workflowsPath: require.resolve('../workflows') }),
    activities: createActivities(opts.deps),
    interceptors: { activity: [activityMetrics], workflowModules: WORKFLOW_INTERCEPTOR_MODULES },
    sinks: metricsSinks,
  });
}

/**
 * The worker's only port: `GET /metrics` (Prometheus text; with `opsToken`, only for
 * `Authorization: Bearer <OPS_TOKEN>`, 401 otherwise) and, on any other path, liveness
 * (200 `{"status":"ok"}` while the worker polls, 503 otherwise).
 */
export function serveWorkerHealth(worker: Worker, port: number, host: string, logger: Logger, opsToken?: string): Server {
  return createServer((req, res) => {
    if (req.method === 'GET' && req.url?.split('?')[0] === '/metrics') {
      if (opsToken && !bearerMatches(req.headers.authorization ?? '', opsToken)) {
        res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' });
        res.end('Authorization: Bearer <OPS_TOKEN> required\n');
        return;
      }
      renderMetrics().then(
        ({ contentType, body }) => {
          res.writeHead(200, { 'content-type': contentType });
          res.end(body);
        },
        (err: unknown) => {
          logger.error('metrics scrape failed', { err });
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end('metrics unavailable\n');
        },
      );
      return;
    }
    const running = worker.getState() === 'RUNNING';
    res.writeHead(running ? 200 : 503, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: running ? 'ok' : worker.getState().toLowerCase() }));
  }).listen(port, host);
}
