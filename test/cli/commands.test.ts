/**
 * The `gpuo` command table without the service: every operation of the OpenAPI document the API serves has a
 * command (each example of `gpuo --help`'s commands is run against a server that records what it is asked),
 * bad command lines exit 2 with the usage and call nothing, and the bash completion offers the table's words.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { COMMANDS } from '../../src/cli/gpuo/commands';
import { completionScript } from '../../src/cli/gpuo/completion';
import { exampleArgv } from '../../src/cli/gpuo/spec';
import { servedOpenApiDocument } from '../../src/http/openapi-offline';
import { REPO_ROOT } from '../helpers/process';
import { gpuoInProcess } from './in-process';

/** Operations with no command, on purpose. Each must still be in the document (a stale entry fails). */
const NOT_FOR_THE_CLI: Record<string, string> = {
  'POST /v1/billing/stripe/webhook': 'Stripe calls it with a signed event; a person or a script never does',
  'POST /v1/jobs/exit': 'the job wrapper on the instance calls it with its attempt token; a person never does',
  'POST /v1/jobs/tail': 'the job wrapper ships its running tail with its attempt token; a person never does',
};

/** A server that answers every request 404 `not_found` and records it as `METHOD /path`. */
async function recorder() {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url!.split('?')[0]}`);
    req.resume();
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: { code: 'not_found', message: 'recorded', request_id: 'req_test' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { url, seen, close: () => new Promise((resolve) => server.close(resolve)) };
}

let api: Awaited<ReturnType<typeof recorder>>;
let configDir: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  api = await recorder();
  configDir = await mkdtemp(path.join(os.tmpdir(), 'gpuo-commands-'));
  env = { GPUO_API_URL: api.url, GPUO_API_KEY: 'gpuo_sk_recordedrecordedrecorded', GPUO_CONFIG_DIR: configDir };
});
afterAll(async () => {
  await api.close();
  await rm(configDir, { recursive: true, force: true });
});

const run = (line: string, stdin = 'a_key_from_stdin\n') => gpuoInProcess(exampleArgv(line), env, stdin);

it('gpuo --help lists every command of the table, and every served API operation has a command', async () => {
  const help = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, [path.join(REPO_ROOT, 'bin', 'gpuo.js'), '--help'], { cwd: REPO_ROOT }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    ),
  );
  const listed = [...help.matchAll(/^ {2}(\S+(?: \S+)?) {2,}\S/gm)].map((m) => m[1]);
  expect(listed).toEqual(COMMANDS.map((c) => c.path.join(' ')));

  const doc = (await servedOpenApiDocument()) as { paths: Record<string, Record<string, unknown>> };
  const operations = Object.entries(doc.paths).flatMap(([p, ops]) =>
    Object.keys(ops).map((m) => ({
      op: `${m.toUpperCase()} ${p}`,
      re: new RegExp(`^${m.toUpperCase()} ${p.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    })),
  );

  // What each command calls, learned by running its examples (each stops at the recorder's 404).
  const calledBy = new Map<string, string[]>();
  for (const command of COMMANDS) {
    for (const example of command.examples) {
      api.seen.length = 0;
      const result = await run(example);
      const completion = command.path[0] === 'completion';
      expect([example, result.code, result.stdout + result.stderr]).toEqual([
        example,
        completion ? 0 : 4,
        completion ? expect.stringContaining('complete -F _gpuo gpuo') : expect.stringContaining('not_found'),
      ]);
      for (const request of api.seen) {
        const op = operations.find((o) => o.re.test(request));
        // Fails on a call to something the document does not have.
        expect([request, op?.op]).toEqual([request, expect.any(String)]);
        calledBy.set(op!.op, [...(calledBy.get(op!.op) ?? []), command.path.join(' ')]);
      }
    }
  }
  const uncovered = operations.map((o) => o.op).filter((op) => !calledBy.has(op) && !(op in NOT_FOR_THE_CLI));
  expect(uncovered).toEqual([]);
  for (const op of Object.keys(NOT_FOR_THE_CLI)) {
    expect([op, operations.some((o) => o.op === op), calledBy.get(op)]).toEqual([op, true, undefined]);
  }
});

it('the binary: gpuo schedules create --name x exits 2 with the usage on stderr and nothing on stdout', async () => {
  const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      [path.join(REPO_ROOT, 'bin', 'gpuo.js'), 'schedules', 'create', '--name', 'x'],
      { cwd: REPO_ROOT, env: { ...process.env, ...env } },
      (_err, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
  expect(result).toEqual({
    code: 2,
    stdout: '',
    stderr: expect.stringMatching(
      /^error: missing --gpu, --template, --cron\n\nusage: gpuo schedules create --name <name> /,
    ),
  });
});

it.each([
  ['schedules create', 'missing --name, --gpu, --template, --cron'],
  ['schedules create --name x', 'missing --gpu, --template, --cron'],
  [
    "schedules create --name x --gpu rtx-a6000 --template pytorch --cron '0 2 * * *' --colour blue",
    "Unknown option '--colour'.",
  ],
  [
    "schedules create --name x --gpu rtx-a6000 --template pytorch --cron '0 2 * * *' --max-cost ten",
    '--max-cost must be a number (got "ten")',
  ],
  [
    "schedules create --name x --gpu rtx-a6000 --template pytorch --cron '0 2 * * *' --idle-below 5",
    '--idle-below and --idle-minutes go together',
  ],
  ['schedules create extra --name x --gpu g --template t --cron c', 'unexpected argument "extra"'],
])('gpuo %s exits 2 with the usage and calls nothing', async (line, problem) => {
  api.seen.length = 0;
  const result = await run(line);
  expect([result.code, result.stdout]).toEqual([2, '']);
  expect(result.stderr.startsWith(`error: ${problem}\n\n`)).toBe(true);
  expect(result.stderr).toMatch(
    /^usage: gpuo schedules create --name <name> --gpu <type> --template <slug> --cron <cron> \[--max-hours <hours>\]/m,
  );
  expect(result.stderr).toContain('\nexamples:\n  gpuo schedules create --name nightly');
  expect(api.seen).toEqual([]);
});

it('other bad command lines exit 2 with the usage and call nothing; --output json makes the error JSON', async () => {
  api.seen.length = 0;
  const providers = await run('providers connect aws');
  expect([providers.code, providers.stderr]).toEqual([
    2,
    expect.stringMatching(
      new RegExp(
        String.raw`^error: <provider> must be one of runpod, vastai, lambda \(got "aws"\)\n\n` +
          String.raw`usage: gpuo providers connect <runpod\|vastai\|lambda>`,
      ),
    ),
  ]);
  const unknown = await run('frobnicate');
  expect([unknown.code, unknown.stderr]).toEqual([
    2,
    expect.stringMatching(/^error: unknown command "frobnicate" \(gpuo --help lists them\)\n\ngpuo: rent GPUs/),
  ]);
  const subcommand = await run('alerts mute');
  expect([subcommand.code, subcommand.stderr]).toEqual([
    2,
    expect.stringMatching(
      /^error: unknown command "alerts mute".*\n\nusage: gpuo alerts ls .*\n.*\nusage: gpuo alerts create/,
    ),
  ]);
  const format = await run('ls --output yaml');
  expect([format.code, format.stderr]).toEqual([
    2,
    expect.stringContaining('error: --output must be one of table, json (got "yaml")'),
  ]);
  const json = await run('alerts create --type price_drop --threshold 0.5 --output json');
  expect(json.code).toBe(2);
  expect(JSON.parse(json.stdout)).toEqual({
    error: { code: 'usage', message: 'a price_drop alert needs --gpu <type>' },
  });
  expect(json.stderr).toMatch(/^usage: gpuo alerts create/);
  expect(api.seen).toEqual([]);

  // A group named alone lists; --help on a command is its usage, exit 0.
  expect((await run('schedules')).code).toBe(4);
  expect(api.seen).toEqual(['GET /v1/schedules']);
  const help = await run('schedules pause --help');
  expect([help.code, help.stdout]).toEqual([0, expect.stringMatching(/^usage: gpuo schedules pause <id>\n/)]);
  const group = await run('schedules --help');
  expect([group.code, group.stdout]).toEqual([
    0,
    expect.stringMatching(/^usage: gpuo schedules ls .*\n.*\nusage: gpuo schedules show <id>\n/),
  ]);
  const flagOnly = await run('--bogus');
  expect([flagOnly.code, flagOnly.stderr]).toEqual([
    2,
    expect.stringMatching(/^error: no command \(gpuo --help lists them\)\n/),
  ]);
  expect(api.seen).toEqual(['GET /v1/schedules']);
});

it('the bash completion offers command words, then the command’s options, then fixed values', async () => {
  const script = completionScript('bash', COMMANDS);
  const cases: [string, string[]][] = [
    ['gpuo sch', ['schedules']],
    ['gpuo schedules ', ['ls', 'show', 'create', 'update', 'pause', 'resume', 'trigger', 'runs', 'rm']],
    ['gpuo schedules create --c', ['--cron']],
    ['gpuo providers connect ', ['runpod', 'vastai', 'lambda']],
    ['gpuo providers connect runpod --', ['--key-file', '--label', '--output', '--json', '--help']],
    ['gpuo alerts create --type ', ['price_drop', 'budget_limit']],
    ['gpuo ls -o ', ['table', 'json']],
    ['gpuo prices h', ['history']],
    ['gpuo completion ', ['bash', 'zsh']],
  ];
  // Every command is reachable word by word too.
  for (const c of COMMANDS)
    c.path.forEach((w, i) => cases.push([`gpuo ${c.path.slice(0, i).join(' ')}${i ? ' ' : ''}${w}`, [w]]));
  const driver = cases
    .map(([line]) => {
      const words = line.split(' ');
      return (
        `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; ` +
        `COMPREPLY=(); _gpuo; echo "\${COMPREPLY[*]}"`
      );
    })
    .join('\n');
  const out = await new Promise<string>((resolve, reject) =>
    execFile('bash', ['-c', `${script}\n${driver}`], (err, stdout, stderr) =>
      err || stderr ? reject(err ?? new Error(stderr)) : resolve(stdout),
    ),
  );
  const offered = out.split('\n').slice(0, cases.length);
  cases.forEach(([line, expected], i) => {
    const words = offered[i]!.split(' ').filter(Boolean);
    if (expected.length === 1) expect([line, words]).toEqual([line, expect.arrayContaining(expected)]);
    else expect([line, words]).toEqual([line, expected]);
  });
});
