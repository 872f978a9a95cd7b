/** Builds a Temporal worker for our task queue. Used by the worker process, the local default and tests. */
import { createServer, type Server } from 'node:http';
import type { KeyVault } from './domain/key-vault';
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
import { Client } from '@temporalio/client';
import { createActivities } from '../activities';
import type { ActivityDeps, ActivityQueries, WorkflowPorts } from '../activities/deps';
import { DEFAULT_ALERT_MONITOR, type AlertMonitorSettings } from '../workflows/contracts/alerts';
import { DEFAULT_BALANCE_GRACE_MS, DEFAULT_BALANCE_LOW_RUNWAY_MS } from '../workflows/contracts/billing';
import type { WorkflowMetricsSinks } from '../workflows/interceptors';
import type { Pool } from './db/pool';
import { createAlertQueries } from './db/queries/alerts';
import { createInstanceQueries } from './db/queries/instances';
import { createLedgerQueries } from './db/queries/ledger';
import { createPricingQueries } from './db/queries/pricing';
import { createScheduleQueries } from './db/queries/schedules';
import { createSshKeyQueries } from './db/queries/ssh-keys';
import { createWebhookQueries } from './db/queries/webhooks';
import type { Logger } from './logger';
import { createAlertMonitorClient } from './workflow-clients/alerts';
import { createBillingClient } from './workflow-clients/billing';
import { createInstanceWatch, createObservationDelivery } from './workflow-clients/fleet';
import { createInstanceClient } from './workflow-clients/instances';
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
    for (const [k, v] of Object.entries(meta ?? {}))
      fields[k === 'message' || k === 'level' || k === 'time' ? `sdk_${k}` : k] = v;
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

/** What a worker is built from: the activities' deps without what this composition root builds itself. */
export interface WorkerDeps extends Omit<ActivityDeps, 'queries' | 'workflows'> {
  /**
   * The client and task queue that spend workflows and reconciliation's adoptions start on. Without it nothing
   * watches an account's spend and reconciliation fails (some tests).
   */
  temporal?: { client: Client; taskQueue: string };
  /** The alert monitor that pricing refreshes and charges signal; default id `alert-monitor`, 5 min tick. */
  alertMonitor?: AlertMonitorSettings;
  /** Grace between a depleted balance and ending the account's instances (BALANCE_GRACE_PERIOD; 30 min). */
  balanceGraceMs?: number;
  /** Runway under which `billing.balance_low` is written (BALANCE_LOW_RUNWAY; 24 h). */
  balanceLowRunwayMs?: number;
  /** The master key vault: webhook signing secrets are sealed with it at rest and opened to sign. */
  vault: KeyVault;
}

/** Each query module the activities use, built once. */
export function createActivityQueries(pool: Pool, vault: KeyVault): ActivityQueries {
  return {
    instances: createInstanceQueries(pool),
    ledger: createLedgerQueries(pool),
    alerts: createAlertQueries(pool),
    schedules: createScheduleQueries(pool),
    sshKeys: createSshKeyQueries(pool),
    pricing: createPricingQueries(pool),
    webhooks: createWebhookQueries(pool, vault),
  };
}

/**
 * The activities' ports, from the client modules. The alert monitor and stop requests go through the worker's
 * own client and task queue; depletion and adoption through `deps.temporal` when given.
 */
export function createWorkflowPorts(
  deps: WorkerDeps,
  own: { client: Client; taskQueue: string },
  instances: ActivityQueries['instances'],
): WorkflowPorts {
  const monitor = createAlertMonitorClient({ ...own, settings: deps.alertMonitor ?? DEFAULT_ALERT_MONITOR });
  const ownInstances = createInstanceClient({ temporal: own, instances });
  const ports: WorkflowPorts = {
    notifyAlertMonitor: (due) => monitor.notify(due),
    watchInstance: createInstanceWatch(own),
    tellInstanceObserved: createObservationDelivery(own),
    requestInstanceEnd: (rowId, request) => ownInstances.requestEnd(rowId, request),
  };
  if (deps.temporal) {
    const billing = createBillingClient(deps.temporal, {
      graceMs: deps.balanceGraceMs ?? DEFAULT_BALANCE_GRACE_MS,
      lowRunwayMs: deps.balanceLowRunwayMs ?? DEFAULT_BALANCE_LOW_RUNWAY_MS,
    });
    const adoption = createInstanceClient({ temporal: deps.temporal, instances });
    ports.watchAccountSpend = (accountId, change) => billing.notifySpendChanged(accountId, change);
    ports.instanceWorkflows = {
      isManaged: (rowId) => adoption.isManaged(rowId),
      manage: (input, row) => adoption.manage(input, row),
    };
  }
  return ports;
}

export async function createWorker(opts: {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: WorkerDeps;
  /**
   * `temporalDataConverter(vault)` (src/workflow-clients/payload-codec.ts): the same keys as every client's. A
   * pre-built bundle must be built with its `failureConverterPath` ({@link FAILURE_CONVERTER_PATH}).
   */
  dataConverter: DataConverter;
  /** A pre-built bundle must include {@link WORKFLOW_INTERCEPTOR_MODULES} (`workflowInterceptorModules`). */
  bundle?: WorkerOptions['workflowBundle'];
}): Promise<Worker> {
  const queries = createActivityQueries(opts.deps.pool, opts.deps.vault);
  // The same client the SDK gives activities (`Context.current().client`): this worker's connection, namespace
  // and data converter (payload encryption).
  const own = {
    client: new Client({ connection: opts.connection, namespace: opts.namespace, dataConverter: opts.dataConverter }),
    taskQueue: opts.taskQueue,
  };
  const activityDeps: ActivityDeps = {
    ...opts.deps,
    queries,
    workflows: createWorkflowPorts(opts.deps, own, queries.instances),
  };
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    dataConverter: opts.dataConverter,
    ...(opts.bundle ? { workflowBundle: opts.bundle } : { workflowsPath: require.resolve('../workflows') }),
    activities: createActivities(activityDeps),
    interceptors: { activity: [activityMetrics], workflowModules: WORKFLOW_INTERCEPTOR_MODULES },
    sinks: metricsSinks,
  });
}

/**
 * The worker's only port: `GET /metrics` (Prometheus text; with `opsToken`, only for
 * `Authorization: Bearer <OPS_TOKEN>`, 401 otherwise) and, on any other path, liveness
 * (200 `{"status":"ok"}` while the worker polls, 503 otherwise).
 */
export function serveWorkerHealth(
  worker: Worker,
  port: number,
  host: string,
  logger: Logger,
  opsToken?: string,
): Server {
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
