/**
 * The job wrapper (src/jobs/wrapper.sh) run as an instance runs it: `sh` with the start command the create
 * builds, reporting to a real HTTP endpoint. Exit codes, the output tail, the token, retries while the
 * endpoint is down, and the tail shipped while the command runs.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildStartCommand } from '../../src/jobs/start-command';
import { REPO_ROOT } from '../helpers/process';
import { freePort } from '../helpers/ports';
import { eventually } from '../helpers/process';

jest.setTimeout(60_000);

interface Report {
  token: string;
  exit_code: number;
  tail: string;
}

let scratch: string;
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'gpuo-wrapper-'));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * An exit endpoint answering `status` and keeping every report it got; the tails shipped to /v1/jobs/tail are
 * kept apart and answered `tailStatus`.
 */
function endpoint(
  port: number,
  status: number | number[] = 202,
  tailStatus = 202,
): Promise<{ server: Server; reports: Report[]; tails: Omit<Report, 'exit_code'>[] }> {
  const statuses = Array.isArray(status) ? [...status] : [status];
  const reports: Report[] = [];
  const tails: Omit<Report, 'exit_code'>[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const isTail = req.url === '/v1/jobs/tail';
      // A body that is not JSON is kept as it came, so the assertion shows it.
      let parsed: Report;
      try {
        parsed = JSON.parse(body) as Report;
      } catch {
        parsed = { token: 'not json', exit_code: -1, tail: body };
      }
      if (isTail) tails.push(parsed);
      else reports.push(parsed);
      const answer = isTail ? tailStatus : statuses.length > 1 ? statuses.shift()! : statuses[0]!;
      res.writeHead(answer, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve({ server, reports, tails })));
}

/** Runs the start command with `sh` in the scratch directory; resolves with its exit code and output. */
function run(
  command: string,
  port: number,
  env: Record<string, string> = {},
  extra: Record<string, string> = {},
  tailIntervalSeconds?: number,
) {
  return start(command, port, env, extra, tailIntervalSeconds).done;
}

/** `tailIntervalSeconds`: the wrapper also ships its tail to the endpoint that often while the command runs. */
function start(
  command: string,
  port: number,
  env: Record<string, string> = {},
  extra: Record<string, string> = {},
  tailIntervalSeconds?: number,
  image?: string,
) {
  const script = buildStartCommand({
    command,
    env,
    ...(image === undefined ? {} : { image }),
    token: 'gjx_test-token',
    exitUrl: `http://127.0.0.1:${port}/v1/jobs/exit`,
    ...(tailIntervalSeconds === undefined
      ? {}
      : { tailUrl: `http://127.0.0.1:${port}/v1/jobs/tail`, tailIntervalSeconds }),
  });
  const child = spawn('sh', ['-c', script], {
    cwd: scratch,
    env: { PATH: process.env.PATH!, TMPDIR: scratch, GPUO_REPORT_RETRY_MAX: '1', ...extra },
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
  const done = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, output })),
  );
  return { done, output: () => output };
}

it('runs the command, prints its output, exits with its code and reports code, tail and token once', async () => {
  const port = await freePort();
  const { server, reports } = await endpoint(port);
  try {
    const done = await run('echo hello; echo "a \\"quoted\\" \\\\ line" >&2; printf "tab\\there"; exit 3', port);
    expect(done.code).toBe(3);
    expect(done.output).toContain('hello');
    expect(reports).toEqual([{ token: 'gjx_test-token', exit_code: 3, tail: 'hello\na "quoted" \\ line\ntab\there' }]);
  } finally {
    server.close();
  }
});

it('reports 0 for a command that succeeds, and the env reaches the command', async () => {
  const port = await freePort();
  const { server, reports } = await endpoint(port);
  try {
    const done = await run('echo "secret is $MY_SECRET"', port, { MY_SECRET: "it's s3cret $(not run)" });
    expect(done.code).toBe(0);
    expect(reports).toEqual([{ token: 'gjx_test-token', exit_code: 0, tail: "secret is it's s3cret $(not run)" }]);
  } finally {
    server.close();
  }
});

it('keeps only the tail of a long output', async () => {
  const port = await freePort();
  const { server, reports } = await endpoint(port);
  try {
    await run('i=0; while [ $i -lt 2000 ]; do echo "line $i"; i=$((i+1)); done', port, {}, { GPUO_TAIL_BYTES: '100' });
    expect(reports).toHaveLength(1);
    expect(reports[0]!.tail.length).toBeLessThanOrEqual(100);
    expect(reports[0]!.tail.endsWith('line 1999')).toBe(true);
  } finally {
    server.close();
  }
});

it('retries while the service answers 503, and delivers once it accepts', async () => {
  const port = await freePort();
  const { server, reports } = await endpoint(port, [503, 502, 202]);
  try {
    const done = await run('echo busy; exit 5', port);
    expect(done.code).toBe(5);
    expect(reports.map((r) => r.exit_code)).toEqual([5, 5, 5]);
  } finally {
    server.close();
  }
});

it('retries while the endpoint is down and delivers once it is up', async () => {
  const port = await freePort();
  // Nothing listens yet: the first try fails (curl says nothing; the command has printed by then).
  const running = start('echo late; exit 7', port, {}, { GPUO_REPORT_RETRY_MAX: '1' });
  await eventually('the command to have run', () => (running.output().includes('late') ? true : undefined), 10_000, 20);
  const { server, reports } = await endpoint(port);
  try {
    const done = await running.done;
    expect(done.code).toBe(7);
    expect(reports).toEqual([{ token: 'gjx_test-token', exit_code: 7, tail: 'late' }]);
  } finally {
    server.close();
  }
});

it("stops at a refusal (401): one try, and the command's exit code stays", async () => {
  const port = await freePort();
  const { server, reports } = await endpoint(port, 401);
  try {
    const done = await run('exit 0', port);
    expect(done.code).toBe(0);
    expect(reports).toHaveLength(1);
    expect(done.output).toContain('refused (401)');
  } finally {
    server.close();
  }
});

it('gives up after GPUO_REPORT_WINDOW when the endpoint never comes', async () => {
  const port = await freePort();
  const done = await run('exit 2', port, {}, { GPUO_REPORT_WINDOW: '2' });
  expect(done.code).toBe(2);
  expect(done.output).toContain('could not be delivered');
});

it('ships the tail while the command runs, every GPUO_TAIL_INTERVAL seconds, with the token', async () => {
  const port = await freePort();
  const { server, reports, tails } = await endpoint(port);
  try {
    // Prints a line, then waits for the test to have seen it shipped before it prints the next and exits 3.
    const running = start('echo one; while [ ! -e go ]; do sleep 0.1; done; echo two; exit 3', port, {}, {}, 1);
    await eventually('the first line to be shipped', () => (tails.length > 0 ? true : undefined), 10_000, 20);
    expect(reports).toEqual([]);
    expect(tails[0]).toEqual({ token: 'gjx_test-token', tail: 'one' });
    writeFileSync(join(scratch, 'go'), '');
    const done = await running.done;
    expect([done.code, done.output]).toEqual([3, 'one\ntwo\n']);
    expect(reports).toEqual([{ token: 'gjx_test-token', exit_code: 3, tail: 'one\ntwo' }]);
  } finally {
    server.close();
  }
});

it("stops shipping at a refused tail (409), and shipping never changes the command's output or exit code", async () => {
  const port = await freePort();
  const { server, reports, tails } = await endpoint(port, 202, 409);
  try {
    const done = await run('echo a; sleep 3; echo b; exit 4', port, {}, {}, 1);
    expect([done.code, done.output]).toEqual([4, 'a\nb\n']);
    expect(tails).toHaveLength(1);
    expect(reports).toEqual([{ token: 'gjx_test-token', exit_code: 4, tail: 'a\nb' }]);
  } finally {
    server.close();
  }
});

describe('on a VM (Lambda), the command runs in the image with Docker', () => {
  /** A `docker` that keeps its arguments in `argv` (NUL-separated), then acts as the Lambda simulator's. */
  function recordingDocker(): { bin: string; argv: () => string[] } {
    const bin = join(scratch, 'bin');
    mkdirSync(bin);
    const argvFile = join(scratch, 'docker-argv');
    const shim = join(REPO_ROOT, 'simulators', 'docker-shim.sh');
    writeFileSync(
      join(bin, 'docker'),
      `#!/bin/sh\n[ "$1" = run ] && printf '%s\\0' "$@" >'${argvFile}'\nexec sh '${shim}' "$@"\n`,
    );
    chmodSync(join(bin, 'docker'), 0o755);
    return { bin, argv: () => readFileSync(argvFile, 'utf8').split('\0').slice(0, -1) };
  }

  it('hostile command, image and env reach docker exactly as given; values only by name; no token', async () => {
    const port = await freePort();
    const { server, reports } = await endpoint(port);
    const docker = recordingDocker();
    const image = `evil'"$(touch pwned1)\`touch pwned2\`;touch pwned3 --privileged -v/:/host`;
    const command = `printf '[%s]\\n' "$MY_SECRET" "$GPUO_EXIT_TOKEN"\necho "it's \\"quoted\\" $(echo sub)"; exit 6`;
    const secret = `s3cr'et" $(touch pwned4) \`touch pwned5\`\nline2`;
    try {
      const done = await start(
        command,
        port,
        { MY_SECRET: secret },
        { PATH: `${docker.bin}:${process.env.PATH!}` },
        undefined,
        image,
      ).done;
      expect(docker.argv()).toEqual([
        ...['run', '--rm', '--gpus', 'all', '--network', 'host', '-e', 'MY_SECRET', '--entrypoint', 'sh', '--'],
        ...[image, '-c', command],
      ]);
      expect(docker.argv().join(' ')).not.toContain('s3cr');
      // Nothing in any of the strings ran as shell text outside its place.
      expect(readdirSync(scratch).filter((f) => f.startsWith('pwned'))).toEqual([]);
      expect(done.code).toBe(6);
      expect(reports).toEqual([
        {
          token: 'gjx_test-token',
          exit_code: 6,
          tail:
            `Unable to find image '${image}:latest' locally\nStatus: Downloaded newer image for ${image}:latest\n` +
            `[${secret}]\n[]\nit's "quoted" sub`,
        },
      ]);
    } finally {
      server.close();
    }
  });

  it("a pull that fails reports Docker's 125 with its error; a VM without docker reports the shell's 127", async () => {
    const port = await freePort();
    const { server, reports } = await endpoint(port);
    const bin = join(scratch, 'bin');
    mkdirSync(bin);
    copyFileSync(join(REPO_ROOT, 'simulators', 'docker-shim.sh'), join(bin, 'docker'));
    chmodSync(join(bin, 'docker'), 0o755);
    // This machine's own docker, if it has one, is left out of the second run's PATH.
    const withoutDocker = process.env
      .PATH!.split(':')
      .filter((dir) => !existsSync(join(dir, 'docker')))
      .join(':');
    try {
      const pulled = await start(
        'echo never',
        port,
        {},
        {
          PATH: `${bin}:${process.env.PATH!}`,
          GPUO_SIM_DOCKER_UNPULLABLE: 'private/trainer:1',
        },
        undefined,
        'private/trainer:1',
      ).done;
      const missing = await start('echo never', port, {}, { PATH: withoutDocker }, undefined, 'private/trainer:1').done;
      expect([pulled.code, missing.code]).toEqual([125, 127]);
      expect(reports.map((r) => r.exit_code)).toEqual([125, 127]);
      expect(reports[0]!.tail).toContain('pull access denied for private/trainer');
      expect(reports[1]!.tail).toMatch(/docker: (command )?not found/);
      expect(reports.map((r) => r.tail).join('\n')).not.toContain('never');
    } finally {
      server.close();
    }
  });

  it('an env name that is not a shell name is refused before any script is made', () => {
    expect(() =>
      buildStartCommand({ command: 'true', env: { 'A;B': 'x' }, image: 'ubuntu', token: 't', exitUrl: 'http://x' }),
    ).toThrow(/not an env name/);
  });
});
