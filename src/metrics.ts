/**
 * Prometheus metrics (prom-client): one registry per process, served as text at `GET /metrics` by the API's
 * operations listener (OPS_HOST:OPS_PORT, src/http/ops.ts; never the API port) and by the worker (its health
 * port, WORKER_HEALTH_PORT). Every series is named `gpuo_…`;
 * label values come from closed sets (declared route templates, workflow and activity type names, provider
 * ids, outcome words), never from ids, so the number of series stays bounded.
 *
 * Recording functions are plain calls other modules make (`recordHttpRequest`, `recordProviderCall`,
 * `recordWebhookDelivery`, `recordLedgerEntry`, ...): a scrape reads memory only, never the database.
 */
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry, prefix: 'gpuo_' });

const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The HTTP series are kept in plain records and rendered at scrape time: the hot path (GET /v1/pricing at
 * ~20k req/s) pays one Map lookup and a few increments, where a labelled prom-client histogram validates and
 * hashes its labels on every observation (≈3 µs per request measured here, a tenth of the request).
 */
interface HttpSeries {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); index LATENCY_BUCKETS.length is +Inf. */
  perBucket: number[];
}
const httpSeries = new Map<string, HttpSeries>();

interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}
/** A metric prom-client's registry renders: its `get()` is all the registry asks for. */
function registerRendered(
  name: string,
  help: string,
  type: 'counter' | 'histogram',
  values: () => MetricValue[],
): void {
  metricsRegistry.registerMetric({
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
  } as unknown as Parameters<Registry['registerMetric']>[0]);
}

registerRendered(
  'gpuo_http_requests_total',
  'HTTP requests answered by the API, by method, declared route template and status.',
  'counter',
  () => [...httpSeries.values()].map((s) => ({ labels: s.labels, value: s.count })),
);
registerRendered(
  'gpuo_http_request_duration_seconds',
  'Time from receiving a request to its response, by method, route template and status.',
  'histogram',
  () =>
    [...httpSeries.values()].flatMap((s) => {
      let cumulative = 0;
      const name = 'gpuo_http_request_duration_seconds';
      return [
        ...LATENCY_BUCKETS.map((le, i) => {
          cumulative += s.perBucket[i]!;
          return { metricName: `${name}_bucket`, labels: { ...s.labels, le }, value: cumulative };
        }),
        { metricName: `${name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count },
        { metricName: `${name}_sum`, labels: s.labels, value: s.sum },
        { metricName: `${name}_count`, labels: s.labels, value: s.count },
      ];
    }),
);

const workflowCompletions = new Counter({
  name: 'gpuo_workflow_completions_total',
  help:
    'Workflow runs that ended on this worker, by workflow type and outcome (completed, failed, continued_as_new, ' +
    'cancelled, task_failed).',
  labelNames: ['workflow_type', 'outcome'] as const,
  registers: [metricsRegistry],
});
const activityExecutions = new Counter({
  name: 'gpuo_activity_executions_total',
  help:
    'Activity attempts (local activities included) run on this worker, by activity type and outcome (completed, ' +
    'failed, cancelled).',
  labelNames: ['activity_type', 'outcome'] as const,
  registers: [metricsRegistry],
});
const activityDuration = new Histogram({
  name: 'gpuo_activity_duration_seconds',
  help: 'Duration of one activity attempt, by activity type and outcome.',
  labelNames: ['activity_type', 'outcome'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

const providerDuration = new Histogram({
  name: 'gpuo_provider_request_duration_seconds',
  help: 'Latency of calls to a GPU provider API, by provider, HTTP method and outcome (ok or the failure kind).',
  labelNames: ['provider', 'method', 'outcome'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});
const providerErrors = new Counter({
  name: 'gpuo_provider_request_errors_total',
  help: 'Failed calls to a GPU provider API, by provider and failure kind (transient, rate_limited, invalid_key, ...).',
  labelNames: ['provider', 'kind'] as const,
  registers: [metricsRegistry],
});

const webhookDeliveries = new Counter({
  name: 'gpuo_webhook_deliveries_total',
  help: 'Webhook delivery attempts, by outcome (delivered, failed, gave_up, ...).',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

/**
 * Ledger movements as counters, incremented by the process that posts them (ledger query module): a scrape
 * costs the same with 100 or 100 million ledger rows, and Prometheus sums the processes. No per-account
 * labels, and no totals read from the database at scrape time.
 */
const ledgerEntries = new Counter({
  name: 'gpuo_ledger_entries_total',
  help: 'Ledger entries posted by this process, by transaction type.',
  labelNames: ['type'] as const,
  registers: [metricsRegistry],
});
const ledgerAmount = new Counter({
  name: 'gpuo_ledger_amount_usd_total',
  help:
    'Absolute dollars moved by the ledger entries this process posted, ' +
    'by transaction type (charges count positive).',
  labelNames: ['type'] as const,
  registers: [metricsRegistry],
});

/** Counts one answered request. `route` must be a declared template (`/v1/compute/{id}`) or `unmatched`. */
/** The series by route, then method, then status: no key string built per request. */
const httpSeriesByRoute = new Map<string, Map<string, Map<number, HttpSeries>>>();
export function recordHttpRequest(method: string, route: string, status: number, seconds: number): void {
  let byMethod = httpSeriesByRoute.get(route);
  if (!byMethod) httpSeriesByRoute.set(route, (byMethod = new Map()));
  let byStatus = byMethod.get(method);
  if (!byStatus) byMethod.set(method, (byStatus = new Map()));
  let series = byStatus.get(status);
  if (!series) {
    const key = `${method} ${status} ${route}`;
    series = httpSeries.get(key) ?? {
      labels: { method, route, status: String(status) },
      count: 0,
      sum: 0,
      perBucket: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0),
    };
    httpSeries.set(key, series);
    byStatus.set(status, series);
  }
  series.count++;
  series.sum += seconds;
  let i = 0;
  while (i < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[i]!) i++;
  series.perBucket[i]!++;
}

/** `task_failed`: the workflow code threw a non-Temporal error; Temporal retries the task, the run goes on. */
export type WorkflowOutcome = 'completed' | 'failed' | 'continued_as_new' | 'cancelled' | 'task_failed';
export function recordWorkflowCompletion(workflowType: string, outcome: WorkflowOutcome): void {
  workflowCompletions.inc({ workflow_type: workflowType, outcome });
}

export type ActivityOutcome = 'completed' | 'failed' | 'cancelled';
export function recordActivityExecution(activityType: string, outcome: ActivityOutcome, seconds: number): void {
  activityExecutions.inc({ activity_type: activityType, outcome });
  activityDuration.observe({ activity_type: activityType, outcome }, seconds);
}

/** One provider API call: `outcome` is `ok` or the failure kind (which is also counted as an error). */
export function recordProviderCall(provider: string, method: string, outcome: string, seconds: number): void {
  providerDuration.observe({ provider, method, outcome }, seconds);
  if (outcome !== 'ok') providerErrors.inc({ provider, kind: outcome });
}

/**
 * One webhook delivery attempt. Call it from the delivery activity with a word from a closed set, e.g.
 * `delivered` (2xx), `failed` (will retry), `gave_up` (retries exhausted).
 */
export function recordWebhookDelivery(outcome: string): void {
  webhookDeliveries.inc({ outcome });
}

/**
 * One ledger entry posted (counted when its statement succeeds; an entry posted inside a caller's transaction
 * that later rolls back stays counted). `type` is a ledger transaction type (closed set).
 */
export function recordLedgerEntry(type: string, amountMicros: number): void {
  ledgerEntries.inc({ type });
  ledgerAmount.inc({ type }, Math.abs(amountMicros) / 1e6);
}

/** The Prometheus text exposition of this process's metrics: in-memory series only, nothing read at scrape time. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}
