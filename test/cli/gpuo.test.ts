/**
 * `gpuo` against the running service. The real binary (bin/gpuo.js, as `npx gpuo` runs it): login stores the
 * key with mode 0600, offers, launch --wait, ls --json, ssh --dry-run, terminate; output parses with --json;
 * exit codes by error class. In place (runGpuo, one process fewer per command): every other resource, from
 * create to delete, as a user would drive it.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ed25519Key } from '../fixtures/ssh-keys';
import { eventually, REPO_ROOT } from '../helpers/process';
import { startWebhookDispatcher } from '../helpers/webhooks';
import { createApp } from '../../src/http/app';
import { startRunningService, type RunningService } from '../helpers/running-service';
import { gpuoInProcess } from './in-process';

jest.setTimeout(120_000);

let svc: RunningService;
beforeAll(async () => {
  svc = await startRunningService();
});
const configDirs: string[] = [];
afterAll(async () => {
  await svc.close();
  await Promise.all(configDirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** A config folder of its own for each test, removed after the file. */
async function configDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gpuo-config-'));
  configDirs.push(dir);
  return dir;
}

function gpuo(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'gpuo.js'), ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, GPUO_API_URL: '', GPUO_API_KEY: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

it.concurrent('login, offers, launch --wait, ls --json, terminate: output and exit codes', async () => {
  const a = await svc.t.connectedAccount('runpod');
  const env = { GPUO_CONFIG_DIR: await configDir() };

  const bad = await gpuo(['login', '--key', 'gpuo_sk_notARealKeyAtAll123456789', '--url', svc.baseUrl], env);
  expect([bad.code, bad.stderr]).toEqual([3, expect.stringContaining('unauthenticated')]);
  const login = await gpuo(['login', '--key', a.apiKey, '--url', svc.baseUrl], env);
  expect(login.code).toBe(0);
  const file = path.join(env.GPUO_CONFIG_DIR, 'config.json');
  expect((await stat(file)).mode & 0o777).toBe(0o600);
  expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ api_url: svc.baseUrl, api_key: a.apiKey });

  const offers = await gpuo(['offers'], env);
  expect(offers.code).toBe(0);
  expect(offers.stdout).toMatch(/^GPU_TYPE\s+OFFERS\s+CHEAPEST_AVAILABLE$/m);
  expect(offers.stdout).toMatch(/^rtx-a6000\s+\d+\s+\$0\.\d+$/m);
  const one = await gpuo(['offers', 'rtx-a6000', '--json'], env);
  expect(JSON.parse(one.stdout).offers.map((o: { provider: string }) => o.provider)).toEqual(
    expect.arrayContaining(['runpod', 'vastai']),
  );

  // For people: progress on stderr while it boots, then the instance as a table row.
  const launched = await gpuo(['launch', '--provider', 'runpod', '--gpu', 'rtx-a6000', '--wait'], env);
  expect([launched.code, launched.stderr]).toEqual([
    0,
    expect.stringMatching(/^launched \S+ on runpod at \$0\.\d+\/h\.* running\n$/),
  ]);
  const id = /^(\S+)\s+runpod\s+/m.exec(launched.stdout)![1]!;
  expect(launched.stdout).toMatch(new RegExp(`^${id}\\s+runpod\\s+\\S+\\s+running\\s`, 'm'));
  const instance = (JSON.parse((await gpuo(['ls', '--json'], env)).stdout).data as { id: string }[]).find(
    (i) => i.id === id,
  )!;
  expect(instance).toMatchObject({ provider: 'runpod', status: 'running', managed: true });

  // ssh: the instance's connect details as the API lists them, as the command it would run.
  const { host, port, user } = (instance as unknown as { ssh: { host: string; port: number; user: string } }).ssh;
  const dry = await gpuo(['ssh', instance.id, '--dry-run', '--', 'nvidia-smi', '-L'], env);
  expect([dry.code, dry.stdout]).toEqual([0, `ssh -p ${port} ${user}@${host} nvidia-smi -L\n`]);

  const ls = await gpuo(['ls', '--output', 'json'], env);
  expect(ls.code).toBe(0);
  expect(JSON.parse(ls.stdout).data).toEqual(
    expect.arrayContaining([expect.objectContaining({ id: instance.id, status: 'running' })]),
  );
  const table = await gpuo(['ls'], env);
  expect(table.stdout).toMatch(
    new RegExp(`^${instance.id}\\s+runpod\\s+\\S+\\s+running\\s+rtx-a6000\\s+1\\s+\\$0\\.\\d+`, 'm'),
  );

  const terminated = await gpuo(['terminate', instance.id, '--json'], env);
  expect(terminated.code).toBe(0);
  expect(JSON.parse(terminated.stdout).status).toMatch(/terminat/);
  expect(
    svc.t.sims.runpod.control.instances(a.simKey).filter((i) => (i as { status?: string }).status !== 'TERMINATED'),
  ).toEqual([]);

  // Exit codes by error class, with --json errors that parse.
  const missing = await gpuo(['terminate', 'nope', '--json'], env);
  expect([missing.code, JSON.parse(missing.stdout).error.code]).toEqual([4, 'not_found']);
  const usage = await gpuo(['frobnicate'], env);
  expect(usage.code).toBe(2);
  const invalid = await gpuo(['launch', '--provider', 'runpod', '--gpu', 'not-a-gpu'], env);
  expect([invalid.code, invalid.stderr]).toEqual([2, expect.stringContaining('validation_error')]);
});

it.concurrent('a refused launch (402) exits 5, and keys create/ls work', async () => {
  const poor = await svc.t.newAccount('poor', { credit: 0.1 });
  await svc.t.http
    .post('/v1/settings/providers')
    .set(poor.auth)
    .send({ provider: 'runpod', api_key: svc.t.sims.runpod.createKey() })
    .expect(201);
  const env = {
    GPUO_API_URL: svc.baseUrl,
    GPUO_API_KEY: poor.apiKey,
    GPUO_CONFIG_DIR: await configDir(),
  };
  const refused = await gpuo(['launch', '--provider', 'runpod', '--gpu', 'rtx-a6000'], env);
  expect([refused.code, refused.stderr]).toEqual([5, expect.stringContaining('insufficient_balance')]);
  const created = await gpuo(
    ['keys', 'create', '--name', 'agent', '--scopes', 'read,compute:write', '--cap', '5/day', '--json'],
    env,
  );
  expect(created.code).toBe(0);
  expect(JSON.parse(created.stdout)).toMatchObject({
    name: 'agent',
    spend_limit: { amount: 5, period: 'day' },
    api_key: expect.stringMatching(/^gpuo_sk_/),
  });
  const keys = await gpuo(['keys'], env);
  expect(keys.stdout).toMatch(/agent\s+gpuo_sk_\S+\s+read,compute:write\s+\$5\/day/);
});

it.concurrent(
  'create to delete: SSH keys, provider keys, alerts, webhooks and their deliveries, events, schedules, billing',
  async () => {
    const a = await svc.t.newAccount('resources');
    const env = {
      GPUO_API_URL: svc.baseUrl,
      GPUO_API_KEY: a.apiKey,
      GPUO_CONFIG_DIR: await configDir(),
    };
    const run = (line: string[], stdin?: string) => gpuoInProcess(line, env, stdin);
    const json = async (line: string[], stdin?: string) => {
      const r = await run([...line, '--output', 'json'], stdin);
      expect([line.join(' '), r.code, r.code ? r.stdout : r.stderr]).toEqual([line.join(' '), 0, '']);
      return JSON.parse(r.stdout);
    };

    // SSH keys: the public key read from stdin; the first is the default.
    const publicKey = ed25519Key('laptop@example');
    const laptop = await json(['ssh-keys', 'add', '--name', 'laptop'], publicKey);
    expect(laptop).toMatchObject({ name: 'laptop', is_default: true, key_type: 'ssh-ed25519' });
    const desk = await json(['ssh-keys', 'add', '--name', 'desk'], ed25519Key('desk@example'));
    expect((await run(['ssh-keys', 'default', desk.id])).stdout).toBe(`default SSH key: desk (${desk.id})\n`);
    expect((await run(['ssh-keys'])).stdout).toMatch(
      new RegExp(`^${desk.id}\\s+desk\\s+ssh-ed25519\\s+SHA256:\\S+\\s+true`, 'm'),
    );
    expect((await run(['ssh-keys', 'rm', laptop.id])).stdout).toBe(`deleted SSH key ${laptop.id}\n`);
    expect((await json(['ssh-keys', 'ls'])).data.map((k: { name: string }) => k.name)).toEqual(['desk']);

    // Provider keys: the key comes from stdin and is never printed back.
    const simKey = svc.t.sims.vastai.createKey();
    const connected = await run(['providers', 'connect', 'vastai', '--label', 'work'], `${simKey}\n`);
    expect([connected.code, connected.stdout]).toEqual([
      0,
      expect.stringMatching(/^connected vastai \(key \S+, \w+\)\n$/),
    ]);
    expect(connected.stdout).not.toContain(simKey);
    expect((await json(['providers'])).data).toEqual([
      expect.objectContaining({ provider: 'vastai', display_label: 'work' }),
    ]);
    expect(await json(['providers', 'verify', 'vastai'])).toMatchObject({ provider: 'vastai', valid: true });
    expect((await run(['providers', 'disconnect', 'vastai'])).stdout).toBe('disconnected vastai\n');
    expect((await json(['providers', 'ls'])).data).toEqual([]);
    const empty = await run(['providers', 'connect', 'runpod'], '');
    expect([empty.code, empty.stderr]).toEqual([
      2,
      expect.stringMatching(/^error: no runpod API key read from stdin\n/),
    ]);

    // Alerts.
    const drop = await json(['alerts', 'create', '--type', 'price_drop', '--gpu', 'rtx-a6000', '--threshold', '0.01']);
    expect(drop).toMatchObject({ type: 'price_drop', gpu_type: 'rtx-a6000', threshold_price: 0.01, status: 'active' });
    const budget = await json([
      'alerts',
      'create',
      '--type',
      'budget_limit',
      '--threshold',
      '500',
      '--action',
      'stop_instances',
    ]);
    expect(budget).toMatchObject({ type: 'budget_limit', action: 'stop_instances', threshold_dollars: 500 });
    expect((await run(['alerts', '--status', 'active'])).stdout).toMatch(
      new RegExp(`^${drop.id}\\s+price_drop\\s+notify\\s+active\\s+rtx-a6000\\s+\\$0\\.01`, 'm'),
    );
    expect((await run(['alerts', 'rm', drop.id])).code).toBe(0);
    expect((await json(['alerts'])).data.map((x: { id: string }) => x.id)).toEqual([budget.id]);
    expect((await run(['alerts', 'rm', drop.id])).code).toBe(4);

    // Webhooks, through an API that allows a plain-http 127.0.0.1 endpoint, with the outbox dispatcher running (the
    // worker's own policy still refuses the address: the log shows the failed attempt).
    const hooksApi = createApp({ ...svc.t.deps, webhooks: { allowedHosts: ['127.0.0.1'] } }).listen(0, '127.0.0.1');
    await new Promise((resolve) => hooksApi.once('listening', resolve));
    const dispatcher = await startWebhookDispatcher({
      client: svc.t.temporal,
      taskQueue: svc.t.deps.temporal.taskQueue,
      databaseUrl: svc.t.db.url,
      tickMs: 200,
    });
    const hooksEnv = { ...env, GPUO_API_URL: `http://127.0.0.1:${(hooksApi.address() as { port: number }).port}` };
    const hooks = async (line: string[]) => {
      const r = await gpuoInProcess([...line, '--output', 'json'], hooksEnv);
      expect([line.join(' '), r.code, r.code ? r.stdout : r.stderr]).toEqual([line.join(' '), 0, '']);
      return JSON.parse(r.stdout);
    };
    try {
      const hook = await hooks([
        'webhooks',
        'create',
        '--url',
        'http://127.0.0.1:9/cli',
        '--events',
        'instance.started,instance.terminated',
      ]);
      expect(hook).toMatchObject({
        url: 'http://127.0.0.1:9/cli',
        events: ['instance.started', 'instance.terminated'],
        active: true,
        secret: expect.stringMatching(/^whsec_/),
      });
      expect(await json(['webhooks', 'show', hook.id])).not.toHaveProperty('secret');
      expect(await hooks(['webhooks', 'test', hook.id])).toMatchObject({ type: 'webhook.test' });
      const log = await eventually('the test event attempted', async () => {
        const r = await run(['webhooks', 'deliveries', hook.id]);
        return /^\S+\s+webhook\.test\s+\w+\s+[1-9]/m.test(r.stdout) ? r.stdout : undefined;
      });
      expect(log).toMatch(
        new RegExp(
          String.raw`^ID\s+EVENT_TYPE\s+STATUS\s+ATTEMPT_COUNT\s+LAST_RESPONSE\s+NEXT_ATTEMPT_AT\s+CREATED_AT\n` +
            String.raw`\S+\s+webhook\.test\s+(pending|failed)\s+\d+\s+\S`,
        ),
      );
      const [delivery] = (await json(['webhooks', 'deliveries', hook.id])).data;
      expect(delivery).toMatchObject({
        event: { type: 'webhook.test' },
        attempts: [expect.objectContaining({ success: false })],
      });
      expect(await hooks(['webhooks', 'retry', hook.id, delivery.id])).toMatchObject({ id: delivery.id });
      const secretFile = path.join(env.GPUO_CONFIG_DIR, 'secret');
      await writeFile(secretFile, `whsec_${Buffer.alloc(32, 7).toString('base64')}\n`);
      const updated = await hooks(['webhooks', 'update', hook.id, '--active', 'false', '--secret-file', secretFile]);
      expect(updated).toMatchObject({
        id: hook.id,
        active: false,
        secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
      });
      expect((await run(['webhooks', 'rm', hook.id])).stdout).toBe(`deleted webhook ${hook.id}\n`);
      expect((await json(['webhooks'])).data).toEqual([]);
    } finally {
      await dispatcher.stop();
      await new Promise((resolve) => hooksApi.close(resolve));
    }

    // Events: what the webhooks deliver, paged.
    await json(['keys', 'create', '--name', 'one', '--scopes', 'read']);
    await json(['keys', 'create', '--name', 'two', '--scopes', 'read']);
    const firstPage = await run(['events', '--type', 'api_key.created', '--limit', '1']);
    expect([firstPage.code, firstPage.stdout, firstPage.stderr]).toEqual([
      0,
      expect.stringMatching(/^ID\s+TYPE\s+CREATED_AT\s+DATA\n\S+\s+api_key\.created\s/),
      expect.stringMatching(/^more: --cursor \S+ \(or --all\)\n$/),
    ]);
    expect(
      (await json(['events', '--type', 'api_key.created', '--limit', '1', '--all'])).data.map(
        (e: { data: { name: string } }) => e.data.name,
      ),
    ).toEqual(['two', 'one']);
    expect(await json(['keys', 'current'])).toMatchObject({ key_prefix: a.apiKey.slice(0, 12) });

    // Schedules: create, pause, resume, update, runs, delete.
    const template = (await json(['templates'])).data[0].slug as string;
    const created = await run([
      'schedules',
      'create',
      '--name',
      'nightly',
      '--gpu',
      'rtx-a6000',
      '--template',
      template,
      '--cron',
      '0 2 * * *',
      '--max-hours',
      '2',
      '--prefer-spot',
      'false',
    ]);
    expect([created.code, created.stdout]).toEqual([
      0,
      expect.stringMatching(/^id\s+sched_\S+\nname\s+nightly\n(.*\n)*prefer_spot\s+false\n/),
    ]);
    const id = /^id\s+(\S+)$/m.exec(created.stdout)![1]!;
    expect((await run(['schedules', 'pause', id])).stdout).toBe(`${id} paused\n`);
    expect((await json(['schedules', 'show', id])).status).toBe('paused');
    expect((await run(['schedules', 'resume', id])).stdout).toMatch(
      new RegExp(`^${id} active, next run \\S+T02:00:00`),
    );
    expect(await json(['schedules', 'update', id, '--max-cost', '3.5', '--cron', '30 3 * * *'])).toMatchObject({
      id,
      max_cost: 3.5,
      cron: '30 3 * * *',
      max_duration_hours: 2,
    });
    expect((await run(['schedules'])).stdout).toMatch(
      new RegExp(`^${id}\\s+nightly\\s+rtx-a6000\\s+${template}\\s+30 3 \\* \\* \\*\\s+active`, 'm'),
    );
    expect(await json(['schedules', 'runs', id])).toEqual({ data: [], has_more: false, next_cursor: null });
    expect((await run(['schedules', 'rm', id])).stdout).toBe(`deleted schedule ${id}\n`);
    expect((await run(['schedules', 'show', id])).code).toBe(4);

    // Billing, prices, limits, recommendations.
    const grants = await json(['billing', 'transactions', '--type', 'credit_grant', '--all']);
    expect(grants.data).toEqual([expect.objectContaining({ type: 'credit_grant', amount: expect.any(Number) })]);
    expect(await json(['billing', 'summary'])).toMatchObject({
      balance: grants.data[0].balance_after,
      currency: 'usd',
      live_instances: 0,
    });
    expect(await json(['prices', 'history', 'rtx-a6000', '--period', '24h'])).toMatchObject({
      gpu_type: 'rtx-a6000',
      period: '24h',
      offer_kind: 'on_demand',
      data: expect.any(Array),
    });
    expect(await json(['prices', 'history', 'rtx-a6000', '--period', '24h', '--spot'])).toMatchObject({
      gpu_type: 'rtx-a6000',
      offer_kind: 'spot',
    });
    expect((await json(['limits'])).data).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: expect.any(String), limit: expect.any(Number) })]),
    );
    expect(await json(['recommendations', 'summary'])).toEqual({
      estimated_monthly_savings: 0,
      recommendation_count: 0,
    });
    expect((await run(['recommendations'])).stdout).toBe(
      'No active instances to evaluate.\n(none)\nestimated monthly savings: $0.00\n',
    );
  },
);
