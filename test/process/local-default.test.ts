/**
 * The README's first command, `npm start`, end to end: embedded Postgres, the Temporal dev server with its
 * UI, the worker and the API as separate processes, a demo account; a clean stop; a restart on the same data.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { eventually, runEntry } from '../helpers/process';
import { freePort } from '../helpers/ports';
import { ed25519Key } from '../fixtures/ssh-keys';

jest.setTimeout(180_000);

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

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

it('starts everything, serves the demo account, stops every child, and reuses the data on restart', async () => {
  const dataDir = path.join(await mkdtemp(path.join(os.tmpdir(), 'gpuo-local-')), 'data');
  const ports = { api: await freePort(), pg: await freePort(), temporal: await freePort(), ui: await freePort(), worker: await freePort(), stripe: await freePort(), ops: await freePort() };
  const env = {
    DATA_DIR: dataDir,
    PORT: String(ports.api),
    LOCAL_POSTGRES_PORT: String(ports.pg),
    LOCAL_TEMPORAL_PORT: String(ports.temporal),
    LOCAL_TEMPORAL_UI_PORT: String(ports.ui),
    LOCAL_WORKER_HEALTH_PORT: String(ports.worker),
    WORKER_HEALTH_PORT: '',
    OPS_PORT: String(ports.ops),
    LOCAL_STRIPE_MOCK_PORT: String(ports.stripe),
    STRIPE_SECRET_KEY: '',
    STRIPE_WEBHOOK_SECRET: '',
    DATABASE_URL: '',
    TEMPORAL_ADDRESS: '',
  };
  const stateFile = path.join(dataDir, 'local.json');

  const first = runEntry('src/main-local.ts', [], env);
  await eventually('the start banner', () => (first.output().includes('Press Ctrl-C to stop.') ? true : undefined), 150_000);
  const state = JSON.parse(await readFile(stateFile, 'utf8')) as LocalJson;
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
  expect(first.output()).toContain(state.api_key);
  expect(first.output()).toContain(state.temporal_ui_url);

  const auth = { Authorization: `Bearer ${state.api_key}` };
  const templates = await fetch(`${state.api_url}/v1/templates`, { headers: auth });
  expect(templates.status).toBe(200);
  expect(((await templates.json()) as { data: unknown[] }).data.length).toBeGreaterThanOrEqual(10);
  expect((await fetch(state.temporal_ui_url)).status).toBe(200);
  // npm start built the console from source; the API serves it where the banner says.
  expect(first.output()).toContain(`Console:      ${state.console_url}`);
  const consolePage = await fetch(state.console_url);
  expect(consolePage.status).toBe(200);
  expect(await consolePage.text()).toMatch(/<script type="module" src="\/console\/assets\/app-[A-Z0-9]+\.js">/);
  // The demo account is connected to the three simulated providers, and the keys verify.
  const connected = (await (await fetch(`${state.api_url}/v1/settings/providers`, { headers: auth })).json()) as { data: { provider: string }[] };
  expect(connected.data.map((k) => k.provider).sort()).toEqual(['lambda', 'runpod', 'vastai']);
  const verified = await fetch(`${state.api_url}/v1/settings/providers/lambda/verify`, { method: 'POST', headers: auth });
  expect(((await verified.json()) as { valid: boolean }).valid).toBe(true);
  // The pricing schedule ran at start-up: prices from all three providers, without a key.
  const providers = await eventually('prices from all three providers', async () => {
    const res = await fetch(`${state.api_url}/v1/pricing`);
    if (res.status !== 200) return undefined;
    const body = (await res.json()) as { gpu_types: { offers: { provider: string }[] }[] };
    const seen = new Set(body.gpu_types.flatMap((g) => g.offers.map((o) => o.provider)));
    return seen.size === 3 ? [...seen].sort() : undefined;
  }, 30_000);
  expect(providers).toEqual(['lambda', 'runpod', 'vastai']);

  const added = await fetch(`${state.api_url}/v1/ssh-keys`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'kept across restarts', public_key: ed25519Key() }),
  });
  expect(added.status).toBe(201);

  // The demo account starts with $100 of credit_grant, and tops up locally in two commands (stripe-mock).
  const balance = async () => ((await (await fetch(`${state.api_url}/v1/billing/balance`, { headers: auth })).json()) as { balance: number }).balance;
  expect(await balance()).toBe(100);
  const grants = (await (await fetch(`${state.api_url}/v1/billing/transactions?type=credit_grant`, { headers: auth })).json()) as { data: unknown[] };
  expect(grants.data).toHaveLength(1);
  const checkout = await fetch(`${state.api_url}/v1/billing/credit`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ amount: 20 }),
  });
  expect(checkout.status).toBe(201);
  const { session_id } = (await checkout.json()) as { session_id: string };
  const completed = runEntry('src/cli/complete-checkout.ts', [session_id], { DATA_DIR: dataDir, LOCAL_POSTGRES_PORT: String(ports.pg), DATABASE_URL: '' });
  expect(await completed.exited).toBe(0);
  expect(await balance()).toBe(120);

  // `npm run account:create` beside the running service with no variable set (DATA_DIR only places this test's
  // data dir): it finds the database in local.json, and the key it prints works against the running API.
  const created = runEntry('src/cli/account-create.ts', ['--name', 'Beside npm start'], { DATA_DIR: dataDir, DATABASE_URL: '', LOCAL_POSTGRES_PORT: '' });
  expect(await created.exited).toBe(0);
  const printed = JSON.parse(created.output().trim()) as { account_id: string; api_key: string };
  expect(printed.account_id).toMatch(/^acct_/);
  const theirs = await fetch(`${state.api_url}/v1/ssh-keys`, { headers: { Authorization: `Bearer ${printed.api_key}` } });
  expect(theirs.status).toBe(200);

  first.child.kill('SIGTERM');
  expect(await first.exited).toBe(0);
  for (const port of Object.values(ports)) expect(await listening(port)).toBe(false);

  const second = runEntry('src/main-local.ts', [], env);
  try {
    await eventually('the second start banner', () => (second.output().includes('Press Ctrl-C to stop.') ? true : undefined), 150_000);
    const again = JSON.parse(await readFile(stateFile, 'utf8')) as LocalJson;
    expect(again.account_id).toBe(state.account_id);
    expect(again.api_key).toBe(state.api_key);
    expect(again.sandbox_provider_keys).toEqual(state.sandbox_provider_keys);
    expect(again.stripe_webhook_secret).toBe(state.stripe_webhook_secret);
    // The starting credit is granted once, not at every start.
    const after = await fetch(`${state.api_url}/v1/billing/balance`, { headers: auth });
    expect(((await after.json()) as { balance: number }).balance).toBe(120);
    const keys = await fetch(`${state.api_url}/v1/ssh-keys`, { headers: auth });
    expect(((await keys.json()) as { data: { name: string }[] }).data.map((k) => k.name)).toEqual(['kept across restarts']);
  } finally {
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }
});
