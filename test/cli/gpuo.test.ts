/**
 * The real `gpuo` binary (bin/gpuo.js, as `npx gpuo` runs it) against the running service: login stores the
 * key with mode 0600, offers, launch --wait, ls --json, terminate; output parses with --json; exit codes by
 * error class.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/process';
import { startRunningService, type RunningService } from '../helpers/running-service';

jest.setTimeout(120_000);

let svc: RunningService;
beforeAll(async () => {
  svc = await startRunningService();
});
afterAll(() => svc.close());

function gpuo(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
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
  const env = { GPUO_CONFIG_DIR: await mkdtemp(path.join(os.tmpdir(), 'gpuo-config-')) };

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
  expect(JSON.parse(one.stdout).offers.map((o: { provider: string }) => o.provider)).toEqual(expect.arrayContaining(['runpod', 'vastai']));

  // For people: progress on stderr while it boots, then the instance as a table row.
  const launched = await gpuo(['launch', '--provider', 'runpod', '--gpu', 'rtx-a6000', '--wait'], env);
  expect([launched.code, launched.stderr]).toEqual([0, expect.stringMatching(/^launched \S+ on runpod at \$0\.\d+\/h\.* running\n$/)]);
  const id = /^(\S+)\s+runpod\s+/m.exec(launched.stdout)![1]!;
  expect(launched.stdout).toMatch(new RegExp(`^${id}\\s+runpod\\s+\\S+\\s+running\\s`, 'm'));
  const instance = (JSON.parse((await gpuo(['ls', '--json'], env)).stdout).data as { id: string }[]).find((i) => i.id === id)!;
  expect(instance).toMatchObject({ provider: 'runpod', status: 'running', managed: true });

  const ls = await gpuo(['ls', '--json'], env);
  expect(ls.code).toBe(0);
  expect(JSON.parse(ls.stdout).data).toEqual(expect.arrayContaining([expect.objectContaining({ id: instance.id, status: 'running' })]));
  const table = await gpuo(['ls'], env);
  expect(table.stdout).toMatch(new RegExp(`^${instance.id}\\s+runpod\\s+\\S+\\s+running\\s+rtx-a6000\\s+1\\s+\\$0\\.\\d+`, 'm'));

  const terminated = await gpuo(['terminate', instance.id, '--json'], env);
  expect(terminated.code).toBe(0);
  expect(JSON.parse(terminated.stdout).status).toMatch(/terminat/);
  expect(svc.t.sims.runpod.control.instances(a.simKey).filter((i) => (i as { status?: string }).status !== 'TERMINATED')).toEqual([]);

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
  await svc.t.http.post('/v1/settings/providers').set(poor.auth).send({ provider: 'runpod', api_key: svc.t.sims.runpod.createKey() }).expect(201);
  const env = { GPUO_API_URL: svc.baseUrl, GPUO_API_KEY: poor.apiKey, GPUO_CONFIG_DIR: await mkdtemp(path.join(os.tmpdir(), 'gpuo-config-')) };
  const refused = await gpuo(['launch', '--provider', 'runpod', '--gpu', 'rtx-a6000'], env);
  expect([refused.code, refused.stderr]).toEqual([5, expect.stringContaining('insufficient_balance')]);
  const created = await gpuo(['keys', 'create', '--name', 'agent', '--scopes', 'read,compute:write', '--cap', '5/day', '--json'], env);
  expect(created.code).toBe(0);
  expect(JSON.parse(created.stdout)).toMatchObject({ name: 'agent', spend_limit: { amount: 5, period: 'day' }, api_key: expect.stringMatching(/^gpuo_sk_/) });
  const keys = await gpuo(['keys'], env);
  expect(keys.stdout).toMatch(/agent\s+gpuo_sk_\S+\s+read,compute:write\s+\$5\/day/);
});
