/**
 * The service as an operator runs it, through `npm start` (the README's first command) as a process, started
 * once for the file: embedded Postgres, the Temporal dev server with its UI, stripe-mock, the worker and the API
 * as separate processes, a demo account with credit and connected simulated providers, the CLIs beside it; one
 * JSON log stream from the API and the worker (every line of DATA_DIR/logs/{api,worker}.log and every non-banner
 * line printed); Prometheus metrics on both ports that move with traffic and workflows; runs found by their
 * search attributes in Temporal; a worker that is killed, restarted by the supervisor, and finishes the launch it
 * had; Ctrl-C stopping every child in order; and a restart on the same data. (This file was two, each starting
 * its own stack: test/process/local-default.test.ts is its first and last tests now.)
 */
import { readFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { connectTemporal } from '../../src/workflow-clients/connection';
import { KeyVault } from '../../src/domain/key-vault';
import { temporalDataConverter } from '../../src/workflow-clients/payload-codec';
import { ed25519Key } from '../fixtures/ssh-keys';
import { freePort } from '../helpers/ports';
import { eventually, runEntry } from '../helpers/process';

jest.setTimeout(240_000);

interface LocalJson {
  api_url: string;
  console_url: string;
  database_url: string;
  temporal_ui_url: string;
  ops_url: string;
  worker_metrics_url: string;
  account_id: string;
  api_key: string;
  sandbox_provider_keys: Record<string, string>;
  stripe_webhook_secret: string;
}

let dataDir: string;
let ports: Record<'api' | 'pg' | 'temporal' | 'ui' | 'worker' | 'stripe' | 'ops', number>;
let stack: ReturnType<typeof runEntry>;
let state: LocalJson;
let auth: Record<string, string>;
let temporalConverter: ReturnType<typeof temporalDataConverter>;
let stackEnv: NodeJS.ProcessEnv;
/** The second `npm start` on the same data (the last test). */
let restarted: ReturnType<typeof runEntry> | undefined;

beforeAll(async () => {
  dataDir = path.join(await mkdtemp(path.join(os.tmpdir(), 'gpuo-ops-')), 'data');
  ports = {
    api: await freePort(),
    pg: await freePort(),
    temporal: await freePort(),
    ui: await freePort(),
    worker: await freePort(),
    stripe: await freePort(),
    ops: await freePort(),
  };
  stackEnv = {
    DATA_DIR: dataDir,
    PORT: String(ports.api),
    LOCAL_POSTGRES_PORT: String(ports.pg),
    LOCAL_TEMPORAL_PORT: String(ports.temporal),
    LOCAL_TEMPORAL_UI_PORT: String(ports.ui),
    LOCAL_WORKER_HEALTH_PORT: String(ports.worker),
    OPS_PORT: String(ports.ops),
    LOCAL_RESTART_BACKOFF: '1s',
    LOCAL_STRIPE_MOCK_PORT: String(ports.stripe),
    STRIPE_SECRET_KEY: '',
    STRIPE_WEBHOOK_SECRET: '',
    // debug: the most lines (SDK info lines, provider calls, stacks as fields) must still all be JSON.
    LOG_LEVEL: 'debug',
    DATABASE_URL: '',
    TEMPORAL_ADDRESS: '',
    WORKER_HEALTH_PORT: '',
  };
  stack = runEntry('src/main-local.ts', [], stackEnv, { detached: true });
  await eventually(
    'the start banner',
    () => (stack.output().includes('Press Ctrl-C to stop.') ? true : undefined),
    200_000,
    250,
  ).catch((err: Error) => {
    // What the stack printed says where it stopped.
    throw new Error(`${err.message}\n--- npm start printed (last 4000 characters) ---\n${stack.output().slice(-4000)}`);
  });
  state = JSON.parse(await readFile(path.join(dataDir, 'local.json'), 'utf8')) as LocalJson;
  auth = { Authorization: `Bearer ${state.api_key}` };
  // The stack generated its master key into DATA_DIR: Temporal payloads are encrypted with keys derived from it.
  const masterKey = (await readFile(path.join(dataDir, 'master.key'), 'utf8')).trim();
  temporalConverter = temporalDataConverter(KeyVault.fromConfig('k1', masterKey));
  // A default SSH key, so every provider can launch; the restart must keep it.
  const key = await api('POST', '/v1/ssh-keys', { name: 'kept across restarts', public_key: ed25519Key() });
  expect(key.status).toBe(201);
});

afterAll(async () => {
  for (const s of [stack, restarted]) {
    if (s && s.child.exitCode === null && s.child.signalCode === null) {
      process.kill(-s.child.pid!, 'SIGTERM');
      await s.exited;
    }
  }
});

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

interface ApiBody {
  error?: { code: string; request_id: string };
  id?: string;
  status?: string;
  data?: { id: string; status: string }[];
}

/** One log line as parsed. */
interface LogEntry {
  [field: string]: unknown;
  error?: { message?: unknown; stack?: unknown };
}

async function api(method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${state.api_url}${p}`, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text ? (JSON.parse(text) as ApiBody) : null,
    requestId: res.headers.get('x-request-id'),
  };
}

/**
 * Calls that wait on the workflow engine answer 503 service_unavailable when it takes longer than the API's
 * deadline (a loaded machine); the documented client behaviour is to retry, which is safe for these
 * (an Idempotency-Key on launches; terminate is idempotent).
 */
async function apiRetrying(method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
  return eventually(
    `${method} ${p} answered other than 503`,
    async () => {
      const res = await api(method, p, body, headers);
      return res.status === 503 ? undefined : res;
    },
    120_000,
    500,
  );
}

/** Sum of the samples of `name` whose labels include `labels` (0 when there is none yet). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) total += Number(m[3]);
  }
  return total;
}

async function scrape(url: string): Promise<string> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return res.text();
}

async function instanceStatus(id: string): Promise<string | undefined> {
  const res = await api('GET', '/v1/compute');
  return res.body?.data?.find((i) => i.id === id)?.status;
}

async function balance(): Promise<number> {
  return ((await api('GET', '/v1/billing/balance')).body as unknown as { balance: number }).balance;
}

async function creditGrants(): Promise<number> {
  return ((await api('GET', '/v1/billing/transactions?type=credit_grant')).body as unknown as { data: unknown[] }).data
    .length;
}

async function readLines(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8')).split('\n').filter((l) => l !== '');
}

const badRequest = { provider: 'lambda', gpu_type: 'h100-80gb-sxm', region: 'us-east-1', price: 1 };
// The simulated Lambda refuses a launch naming an SSH key it does not have: the launch workflow fails.
const failingLaunch = {
  provider: 'lambda',
  gpu_type: 'h100-80gb-sxm',
  region: 'us-east-1',
  ssh_key_name: 'no-such-key',
};
let badRequestId: string | null;
let failedLaunchRequestId: string | null;
let launchedId: string;

let balanceAtStop: number;

it('starts everything and serves the demo account: $100 credit, a local top-up, account:create beside it', async () => {
  expect(state).toEqual({
    api_url: `http://127.0.0.1:${ports.api}`,
    console_url: `http://127.0.0.1:${ports.api}/console`,
    database_url: `postgres://postgres:postgres@127.0.0.1:${ports.pg}/gpu_orchestrator`,
    temporal_ui_url: `http://127.0.0.1:${ports.ui}`,
    ops_url: `http://127.0.0.1:${ports.ops}`,
    worker_metrics_url: `http://127.0.0.1:${ports.worker}/metrics`,
    account_id: expect.stringMatching(/^acct_/),
    api_key: expect.stringMatching(/^gpuo_sk_/),
    sandbox_provider_keys: { runpod: expect.any(String), vastai: expect.any(String), lambda: expect.any(String) },
    stripe_webhook_secret: expect.stringMatching(/^whsec_/),
  });
  expect(stack.output()).toContain(state.api_key);
  expect(stack.output()).toContain(state.temporal_ui_url);

  const templates = await api('GET', '/v1/templates');
  expect(templates.status).toBe(200);
  expect((templates.body as unknown as { data: unknown[] }).data.length).toBeGreaterThanOrEqual(10);
  expect((await fetch(state.temporal_ui_url)).status).toBe(200);
  // npm start built the console from source; the API serves it where the banner says.
  expect(stack.output()).toContain(`Console:      ${state.console_url}`);
  const consolePage = await fetch(state.console_url);
  expect(consolePage.status).toBe(200);
  expect(await consolePage.text()).toMatch(/<script type="module" src="\/console\/assets\/app-[A-Z0-9]+\.js">/);
  // The demo account is connected to the three simulated providers, and the keys verify.
  const connected = (await api('GET', '/v1/settings/providers')).body as unknown as { data: { provider: string }[] };
  expect(connected.data.map((k) => k.provider).sort()).toEqual(['lambda', 'runpod', 'vastai']);
  expect(
    ((await api('POST', '/v1/settings/providers/lambda/verify')).body as unknown as { valid: boolean }).valid,
  ).toBe(true);
  // The pricing schedule ran at start-up: prices from all three providers, without a key.
  const providers = await eventually(
    'prices from all three providers',
    async () => {
      const res = await fetch(`${state.api_url}/v1/pricing`);
      if (res.status !== 200) return undefined;
      const body = (await res.json()) as { gpu_types: { offers: { provider: string }[] }[] };
      const seen = new Set(body.gpu_types.flatMap((g) => g.offers.map((o) => o.provider)));
      return seen.size === 3 ? [...seen].sort() : undefined;
    },
    30_000,
  );
  expect(providers).toEqual(['lambda', 'runpod', 'vastai']);

  // The demo account starts with $100 of credit_grant, and tops up locally in two commands (stripe-mock).
  expect(await balance()).toBe(100);
  expect(await creditGrants()).toBe(1);
  const checkout = await api('POST', '/v1/billing/credit', { amount: 20 });
  expect(checkout.status).toBe(201);
  const { session_id } = checkout.body as unknown as { session_id: string };
  const [completed, created] = [
    runEntry('src/cli/complete-checkout.ts', [session_id], {
      DATA_DIR: dataDir,
      LOCAL_POSTGRES_PORT: String(ports.pg),
      DATABASE_URL: '',
    }),
    // `npm run account:create` beside the running service with no variable set (DATA_DIR only places this test's
    // data dir): it finds the database in local.json, and the key it prints works against the running API.
    runEntry('src/cli/account-create.ts', ['--name', 'Beside npm start'], {
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      LOCAL_POSTGRES_PORT: '',
    }),
  ];
  expect(await completed.exited).toBe(0);
  expect(await balance()).toBe(120);
  expect(await created.exited).toBe(0);
  const printed = JSON.parse(created.output().trim()) as { account_id: string; api_key: string };
  expect(printed.account_id).toMatch(/^acct_/);
  expect(printed.account_id).not.toBe(state.account_id);
  const theirs = await fetch(`${state.api_url}/v1/ssh-keys`, {
    headers: { Authorization: `Bearer ${printed.api_key}` },
  });
  expect(theirs.status).toBe(200);
});

it('answers a bad request and a failing launch with documented errors, and both /metrics move with them', async () => {
  // Metrics live on the operations listener only (loopback, no token here); the API port answers 404.
  expect((await fetch(`${state.api_url}/metrics`)).status).toBe(404);
  const apiBefore = await scrape(`${state.ops_url}/metrics`);
  const workerBefore = await scrape(state.worker_metrics_url);

  const bad = await api('POST', '/v1/compute/launch', badRequest);
  expect(bad.status).toBe(400);
  expect(bad.body!.error!.code).toBe('validation_error');
  badRequestId = bad.requestId;

  const failed = await apiRetrying('POST', '/v1/compute/launch', failingLaunch, {
    'Idempotency-Key': 'ops-failing-launch',
  });
  expect(failed.status).toBeGreaterThanOrEqual(400);
  expect(failed.status).toBeLessThan(600);
  expect(failed.body!.error!.request_id).toBe(failed.requestId);
  failedLaunchRequestId = failed.requestId;

  const launched = await apiRetrying(
    'POST',
    '/v1/compute/launch',
    { provider: 'runpod', gpu_type: 'rtx-a6000' },
    { 'Idempotency-Key': 'ops-ok-launch' },
  );
  expect(launched.status).toBe(201);
  launchedId = launched.body!.id as string;

  const apiAfter = await scrape(`${state.ops_url}/metrics`);
  const launchRoute = { method: 'POST', route: '/v1/compute/launch' };
  // The bad request, and the failing launch when Lambda's refusal maps to 400 (it names the unknown key).
  expect(
    sample(apiAfter, 'gpuo_http_requests_total', { ...launchRoute, status: '400' }) -
      sample(apiBefore, 'gpuo_http_requests_total', { ...launchRoute, status: '400' }),
  ).toBe(failed.status === 400 ? 2 : 1);
  expect(sample(apiAfter, 'gpuo_http_requests_total', { ...launchRoute, status: '201' })).toBe(1);
  expect(
    sample(apiAfter, 'gpuo_http_requests_total', { ...launchRoute, status: String(failed.status) }),
  ).toBeGreaterThanOrEqual(1);
  expect(sample(apiAfter, 'gpuo_http_request_duration_seconds_count', launchRoute)).toBeGreaterThanOrEqual(3);
  // The route label is the declared template, never a raw path with ids in it.
  expect(apiAfter).not.toMatch(/route="\/v1\/compute\/(?!launch")[^{"]/);

  const workerAfter = await eventually(
    'the failed launch workflow in the worker metrics',
    async () => {
      const text = await scrape(state.worker_metrics_url);
      const failedRuns = { workflow_type: 'launchInstance', outcome: 'failed' };
      return sample(text, 'gpuo_workflow_completions_total', failedRuns) >
        sample(workerBefore, 'gpuo_workflow_completions_total', failedRuns)
        ? text
        : undefined;
    },
    60_000,
    250,
  );
  expect(
    sample(workerAfter, 'gpuo_activity_executions_total', { activity_type: 'createAndRecord', outcome: 'failed' }),
  ).toBeGreaterThan(
    sample(workerBefore, 'gpuo_activity_executions_total', { activity_type: 'createAndRecord', outcome: 'failed' }),
  );
  expect(
    sample(workerAfter, 'gpuo_activity_executions_total', { activity_type: 'createAndRecord', outcome: 'completed' }),
  ).toBeGreaterThanOrEqual(1);
  // The start-up health probe and the pricing refresh ran to completion on this worker.
  expect(
    sample(workerAfter, 'gpuo_workflow_completions_total', { workflow_type: 'healthProbe', outcome: 'completed' }),
  ).toBeGreaterThanOrEqual(1);
  expect(sample(workerAfter, 'gpuo_provider_request_duration_seconds_count', { provider: 'lambda' })).toBeGreaterThan(
    sample(workerBefore, 'gpuo_provider_request_duration_seconds_count', { provider: 'lambda' }),
  );
  expect(sample(workerAfter, 'gpuo_provider_request_errors_total', { provider: 'lambda' })).toBeGreaterThan(
    sample(workerBefore, 'gpuo_provider_request_errors_total', { provider: 'lambda' }),
  );
});

it("finds the account's runs, a provider instance's run and the schedule's runs by search attributes", async () => {
  // A client of its own, closed when this test ends: closed in afterAll instead, after Ctrl-C had stopped the dev
  // server, a call of its retry interceptor fired on the closed channel once ("Channel has been shut down").
  const temporal = new Client({
    connection: await connectTemporal({ address: `127.0.0.1:${ports.temporal}` }),
    dataConverter: temporalConverter,
  });
  try {
    await listRunsBySearchAttributes(temporal);
  } finally {
    await temporal.connection.close();
  }
});

async function listRunsBySearchAttributes(temporal: Client): Promise<void> {
  const list = async (query: string) => {
    const runs: { workflowId: string; type: string; status: string; attrs: Record<string, unknown> }[] = [];
    for await (const wf of temporal.workflow.list({ query })) {
      runs.push({
        workflowId: wf.workflowId,
        type: wf.type,
        status: wf.status.name,
        attrs: Object.fromEntries(wf.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])),
      });
    }
    return runs;
  };
  const byAccount = await eventually(
    'both launches listed by account',
    async () => {
      const runs = (await list(`GpuoAccountId = "${state.account_id}"`)).filter((r) => r.type === 'launchInstance');
      return runs.length >= 2 ? runs : undefined;
    },
    30_000,
    250,
  );
  expect(byAccount.every((r) => r.attrs.GpuoAccountId === state.account_id)).toBe(true);
  // Besides its launches, the account's runs are its observers (one per provider with a live instance: RunPod)
  // and its spend watch (one per account with live instances: the depletion moment, docs/spend-control.md).
  const others = await eventually(
    "the account's RunPod observer and spend watch listed by account",
    async () => {
      const runs = (await list(`GpuoAccountId = "${state.account_id}"`)).filter((r) => r.type !== 'launchInstance');
      return runs.length >= 2 ? runs : undefined;
    },
    30_000,
    250,
  );
  expect(others.map((r) => [r.type, r.workflowId, r.attrs.GpuoProvider ?? null]).sort()).toEqual([
    ['balanceDepletion', `balance-depleted-${state.account_id}`, null],
    ['observeProviderInstances', `observe-${state.account_id}-runpod`, 'runpod'],
  ]);
  // (A refused launch retried after a 503 is a second run of the same workflow id.)
  expect([...new Set(byAccount.map((r) => r.attrs.GpuoProvider))].sort()).toEqual(['lambda', 'runpod']);
  expect(byAccount.find((r) => r.attrs.GpuoProvider === 'lambda')!.status).toBe('FAILED');

  const byInstance = await eventually(
    'the launch listed by provider instance id',
    async () => {
      const runs = await list(`GpuoInstanceId = "${launchedId}"`);
      return runs.length === 1 ? runs : undefined;
    },
    30_000,
    250,
  );
  expect(byInstance[0]!.attrs).toMatchObject({
    GpuoAccountId: state.account_id,
    GpuoProvider: 'runpod',
    GpuoInstanceId: launchedId,
  });

  const combined = await list(
    `GpuoAccountId = "${state.account_id}" AND GpuoProvider = "lambda" AND ExecutionStatus = "Failed"`,
  );
  expect(combined.length).toBeGreaterThanOrEqual(1);
  expect(combined.every((r) => r.attrs.GpuoProvider === 'lambda' && r.status === 'FAILED')).toBe(true);
  expect(await list(`GpuoAccountId = "acct_nobody"`)).toEqual([]);

  const scheduled = await eventually(
    'pricing refresh runs by schedule id',
    async () => {
      const runs = await list('GpuoScheduleId = "pricing-refresh"');
      return runs.length >= 1 ? runs : undefined;
    },
    30_000,
    250,
  );
  expect(scheduled.every((r) => r.type === 'pricingRefresh')).toBe(true);
}

it('restarts a killed worker with backoff, and the restarted worker finishes the launch it had', async () => {
  const pidFile = path.join(dataDir, 'run', 'worker.pid');
  const firstPid = Number(await readFile(pidFile, 'utf8'));
  expect(firstPid).toBeGreaterThan(0);
  process.kill(firstPid, 'SIGKILL');

  const secondPid = await eventually(
    'a new worker pid',
    async () => {
      const pid = Number(await readFile(pidFile, 'utf8'));
      return pid && pid !== firstPid ? pid : undefined;
    },
    30_000,
    200,
  );
  expect(() => process.kill(secondPid, 0)).not.toThrow();
  await eventually('the supervisor to say it restarted the worker', () =>
    stack
      .output()
      .split('\n')
      .some(
        (l) =>
          l.includes('"child exited unexpectedly; restarting"') &&
          l.includes('"child":"worker"') &&
          l.includes('"signal":"SIGKILL"'),
      )
      ? true
      : undefined,
  );
  // The launch accepted before the kill reaches running on the restarted worker (the provider boots it in 5 s).
  await eventually(
    `instance ${launchedId} running`,
    async () => ((await instanceStatus(launchedId)) === 'running' ? true : undefined),
    150_000,
    500,
  );
  // A terminate the provider has not confirmed within the answer bound is a documented 202: asked again, as a
  // client does, until it says terminated (a loaded machine gave a 202 once).
  const terminated = await eventually(
    `terminate ${launchedId} confirmed`,
    async () => {
      const res = await api('POST', `/v1/compute/${launchedId}/terminate`);
      return res.status === 202 || res.status === 503 ? undefined : res;
    },
    120_000,
    500,
  );
  expect(terminated.status).toBe(200);
  expect(terminated.body!.status).toBe('terminated');
  // And the worker's port answers again, with its metrics.
  expect((await fetch(state.worker_metrics_url.replace('/metrics', '/'))).status).toBe(200);
  // The API was never restarted.
  expect(stack.output()).not.toMatch(/"child":"api"[^\n]*restarting|restarting[^\n]*"child":"api"/);
});

it('stops everything in order on Ctrl-C (SIGINT to the whole process group), restarting nothing', async () => {
  // The balance is final once the terminated instance's one charge (through its terminate; the meter interval is
  // an hour) is in.
  balanceAtStop = await eventually(
    'the terminated instance charged',
    async () => {
      const charges = (await api('GET', '/v1/billing/transactions?type=instance_charge')).body as unknown as {
        data: { instance_id: string }[];
      };
      return charges.data.some((c) => c.instance_id === launchedId) ? balance() : undefined;
    },
    30_000,
    250,
  );
  const before = stack.output().length;
  process.kill(-stack.child.pid!, 'SIGINT');
  expect(await stack.exited).toBe(0);
  for (const port of Object.values(ports)) expect(await listening(port)).toBe(false);
  const after = stack.output().slice(before).split('\n');
  expect(after.filter((l) => l.includes('restarting'))).toEqual([]);
  const stopped = (child: string) =>
    after.findIndex((l) => l.includes('"child stopped"') && l.includes(`"child":"${child}"`));
  expect(stopped('api')).toBeGreaterThanOrEqual(0);
  expect(stopped('worker')).toBeGreaterThan(stopped('api'));
});

it('the API and the worker printed only JSON: one request line per request, failures on one line', async () => {
  const parsed: Record<string, LogEntry[]> = {};
  for (const child of ['api', 'worker']) {
    const lines = await readLines(path.join(dataDir, 'logs', `${child}.log`));
    expect(lines.length).toBeGreaterThan(5);
    parsed[child] = lines.map((line) => {
      let entry: LogEntry;
      try {
        entry = JSON.parse(line) as LogEntry;
      } catch {
        throw new Error(`${child} printed a line that is not JSON: ${line}`);
      }
      expect(entry).toMatchObject({
        time: expect.any(String),
        level: expect.stringMatching(/^(debug|info|warn|error)$/),
        msg: expect.any(String),
        process: child,
      });
      return entry;
    });
  }
  // What npm start printed: the children's lines, our own JSON lines, and two plain-text blocks by design:
  // our banner and the Temporal dev server's own start and stop lines (its process writes to the terminal itself).
  // The dev server also logs errors of its own in logfmt (`time=… level=ERROR msg=…`), e.g. while its shard starts.
  // (CLI 1.9 prefixes its lines with "Temporal " and adds Persistence and HTTP.)
  const devServer = new RegExp(
    String.raw`^((Temporal )?CLI \S+ \(Server [\d.]+, UI [\d.]+\)|` +
      String.raw`(Temporal )?(Server|UI|Metrics|Persistence|HTTP): +\S+|` +
      String.raw`Stopping server\.\.\.|time=\S+ level=[A-Z]+ msg=.*)$`,
  );
  const banner = stack
    .output()
    .slice(
      stack.output().indexOf('\nGPU orchestrator is running locally.'),
      stack.output().indexOf('Press Ctrl-C to stop.') + 'Press Ctrl-C to stop.'.length,
    );
  const rest = stack
    .output()
    .replace(banner, '')
    .split('\n')
    .filter((l) => l.trim() !== '' && !devServer.test(l));
  const notJson = rest.filter((l) => {
    try {
      return typeof JSON.parse(l) !== 'object';
    } catch {
      return true;
    }
  });
  expect(notJson).toEqual([]);

  const requests = parsed.api!.filter((e) => e.msg === 'request');
  const badLine = requests.find((e) => e.request_id === badRequestId);
  expect(badLine).toMatchObject({
    level: 'info',
    method: 'POST',
    route: '/v1/compute/launch',
    status: 400,
    account_id: state.account_id,
    ms: expect.any(Number),
  });
  expect(requests.find((e) => e.request_id === failedLaunchRequestId)).toMatchObject({
    route: '/v1/compute/launch',
    account_id: state.account_id,
  });
  expect(requests.filter((e) => e.request_id === badRequestId)).toHaveLength(1);
  const terminateLines = requests.filter((e) => e.path === `/v1/compute/${launchedId}/terminate`);
  expect(terminateLines.length).toBeGreaterThanOrEqual(1);
  for (const line of terminateLines)
    expect(line).toMatchObject({ route: '/v1/compute/{provider_instance_id}/terminate', status: expect.any(Number) });
  expect(terminateLines.at(-1)!.status).toBe(200);

  // The SDK's failure log for the refused create is one JSON line, its stack a field (we run at debug).
  const activityFailures = parsed.worker!.filter(
    (e) => e.component === 'temporal' && /activity/i.test(String(e.msg)) && /fail/i.test(String(e.msg)),
  );
  expect(activityFailures.length).toBeGreaterThan(0);
  expect(activityFailures.some((e) => typeof e.error?.message === 'string' && typeof e.error?.stack === 'string')).toBe(
    true,
  );
  // Both worker lives logged: two "worker polling" lines.
  expect(parsed.worker!.filter((e) => e.msg === 'worker polling')).toHaveLength(2);
});

it('restarts on the same data: same account, keys and balance, the credit granted once; SIGTERM stops it', async () => {
  restarted = runEntry('src/main-local.ts', [], stackEnv, { detached: true });
  await Promise.race([
    eventually(
      'the second start banner',
      () => (restarted!.output().includes('Press Ctrl-C to stop.') ? true : undefined),
      200_000,
      250,
    ),
    restarted.exited.then((code) => {
      throw new Error(`npm start exited with ${code} before its banner`);
    }),
  ]).catch((err: Error) => {
    throw new Error(
      `${err.message}\n--- the second npm start printed (last 6000 characters) ` +
        `---\n${restarted!.output().slice(-6000)}`,
    );
  });
  const again = JSON.parse(await readFile(path.join(dataDir, 'local.json'), 'utf8')) as LocalJson;
  expect(again.account_id).toBe(state.account_id);
  expect(again.api_key).toBe(state.api_key);
  expect(again.sandbox_provider_keys).toEqual(state.sandbox_provider_keys);
  expect(again.stripe_webhook_secret).toBe(state.stripe_webhook_secret);
  // The starting credit is granted once, not at every start.
  expect(await balance()).toBe(balanceAtStop);
  expect(await creditGrants()).toBe(1);
  const keys = (await api('GET', '/v1/ssh-keys')).body as unknown as { data: { name: string }[] };
  expect(keys.data.map((k) => k.name)).toEqual(['kept across restarts']);
  restarted.child.kill('SIGTERM');
  expect(await restarted.exited).toBe(0);
  for (const port of Object.values(ports)) expect(await listening(port)).toBe(false);
});
