/**
 * docs/interfaces.md runs as written against the running service: its `bash` blocks in one shell (the setup
 * block reads `local.json` from DATA_DIR, as beside `npm start`), its `ts` block as a program of another
 * project importing `@gpuo/sdk`, and its MCP client configuration started by the MCP SDK's client.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { REPO_ROOT } from '../helpers/process';
import { startRunningService, type RunningService } from '../helpers/running-service';

jest.setTimeout(180_000);

let svc: RunningService;
let blocks: { lang: string; code: string }[];
let env: NodeJS.ProcessEnv;
let apiKey: string;

/** An account as `npm start` leaves one: connected to the three simulated providers. */
async function startAccount() {
  const a = await svc.t.connectedAccount('runpod');
  for (const provider of ['vastai', 'lambda'] as const) {
    await svc.t.http
      .post('/v1/settings/providers')
      .set(a.auth)
      .send({ provider, api_key: svc.t.sims[provider].createKey() })
      .expect(201);
  }
  return a;
}

beforeAll(async () => {
  svc = await startRunningService();
  const doc = await readFile(path.join(REPO_ROOT, 'docs', 'interfaces.md'), 'utf8');
  blocks = [...doc.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, code: m[2]! }));
  // As `npm start` leaves it: an account connected to the providers, its key and the API in local.json.
  const a = await startAccount();
  apiKey = a.apiKey;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gpuo-docs-'));
  await writeFile(path.join(dataDir, 'local.json'), JSON.stringify({ api_url: svc.baseUrl, api_key: a.apiKey }));
  env = {
    ...process.env,
    DATA_DIR: dataDir,
    GPUO_CONFIG_DIR: path.join(dataDir, 'gpuo'),
    GPUO_API_URL: '',
    GPUO_API_KEY: '',
  };
});
afterAll(() => svc.close());

function run(
  command: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; input?: string },
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code, out }));
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * `npx gpuo` in this repository has npm load the project's whole dependency tree to find the bin: about 1.3 CPU-s
 * a call against 0.15 s for the bin itself. The first call of the blocks goes through npx as written (the
 * resolution is what it adds); the later ones run the same bin, `bin/gpuo.js`, with the same arguments.
 */
const GPUO_BIN = JSON.stringify(path.join(REPO_ROOT, 'bin', 'gpuo.js'));
const NPX_ONCE = `npx() {
  if [ "$1" != gpuo ]; then command npx "$@"; return; fi
  if [ -n "\${NPX_GPUO_RESOLVED:-}" ]; then shift; node ${GPUO_BIN} "$@"; return; fi
  NPX_GPUO_RESOLVED=1
  command npx "$@"
  printf "\\nnpx resolved gpuo: %s\\n" "$(type -P npx)" >&2
}`;

// The three run at once: the bash blocks on the local.json account, the ts block on an account of its own (the
// bash blocks launch and terminate `ls`'s first instance), the MCP server only lists its tools.
it.concurrent('every bash block runs in order in one shell', async () => {
  const script = ['set -euo pipefail', NPX_ONCE, ...blocks.filter((b) => b.lang === 'bash').map((b) => b.code)].join(
    '\n',
  );
  const { code, out } = await run('bash', ['-s'], { cwd: REPO_ROOT, env, input: script });
  expect([code, out]).toEqual([0, expect.stringContaining('key works')]);
  // The blocks' first `npx gpuo` went through npm's resolution, the others through the same bin.
  expect(out).toMatch(/^npx resolved gpuo: \S+$/m);
  expect(out).toContain('"name":"dashboard"');
  expect(out).toContain('"spend_limit":{"amount":5,"period":"day"}');
  expect(out).toContain('"candidates":[');
  expect(out).toMatch(/launched \S+ on runpod at \$0\.\d+\/h\.* running/);
  expect(out).toMatch(/spent this month \(UTC\): \$/);
  expect(out).toMatch(/\sci\s+gpuo_sk_\S+\s+read,compute:write\s+\$20\/month/);
});

it.concurrent('the ts block runs in another project that imports @gpuo/sdk', async () => {
  // Its account has made a key, as the bash blocks do before it in the document: the events it prints show it.
  const own = await startAccount();
  await svc.t.http
    .post('/v1/api-keys')
    .set(own.auth)
    .send({ name: 'dashboard', scopes: ['read'] })
    .expect(201);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gpuo-docs-sdk-'));
  const pkg = path.join(dir, 'node_modules', '@gpuo', 'sdk');
  await mkdir(pkg, { recursive: true });
  // The package as its source (the drift test builds and imports the compiled one).
  await writeFile(path.join(pkg, 'package.json'), JSON.stringify({ name: '@gpuo/sdk', main: 'index.ts' }));
  await writeFile(
    path.join(pkg, 'index.ts'),
    `export * from ${JSON.stringify(path.join(REPO_ROOT, 'sdk', 'src', 'index.ts'))};\n`,
  );
  const program = blocks.find((b) => b.lang === 'ts')!.code;
  await writeFile(path.join(dir, 'main.ts'), program);
  const { code, out } = await run(process.execPath, ['--import', require.resolve('tsx'), 'main.ts'], {
    cwd: dir,
    env: {
      ...env,
      GPUO_API_URL: svc.baseUrl,
      GPUO_API_KEY: own.apiKey,
      NODE_PATH: path.join(REPO_ROOT, 'node_modules'),
    },
  });
  expect([code, out]).toEqual([0, expect.stringMatching(/^cheapest: \w+ at \$0\.\d+\/h\nlaunched \S+\n/)]);
  expect(out).toContain('api_key.created');
});

it.concurrent('the MCP configuration starts a server whose tools an MCP client lists', async () => {
  const config = JSON.parse(blocks.find((b) => b.lang === 'json')!.code) as {
    mcpServers: { gpuo: { command: string; args: string[]; env: Record<string, string> } };
  };
  const server = config.mcpServers.gpuo;
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    cwd: REPO_ROOT,
    env: {
      ...(process.env as Record<string, string>),
      ...server.env,
      GPUO_API_URL: svc.baseUrl,
      GPUO_API_KEY: apiKey,
      GPUO_CONFIG_DIR: env.GPUO_CONFIG_DIR!,
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'docs', version: '1.0.0' });
  await client.connect(transport);
  try {
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('launch_instance');
  } finally {
    await client.close();
  }
});
