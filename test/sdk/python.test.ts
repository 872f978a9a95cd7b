/**
 * The Python client's pytest suite (sdk/python/tests) as one file of the stack layer: pytest runs against a
 * service this file starts on the run's Postgres and Temporal dev server (`GPUO_TEST_STACK` tells its conftest
 * where), so it runs beside the other files instead of after them with a stack of its own.
 * `npm run test:python` runs the same suite alone, on a stack it starts (sdk/python/tests/stack.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { connectEveryProvider, startRunningService, type RunningService } from '../helpers/running-service';

/** A fresh machine first makes sdk/python/.venv and installs the package's test extra from PyPI. */
const PYTEST_TIMEOUT_MS = 600_000;

let svc: RunningService;
let pytest: ChildProcess | undefined;
beforeAll(async () => {
  svc = await startRunningService();
}, 120_000);
afterAll(async () => {
  // A run cut short (the timeout) ends pytest and what it started (pip, the generator): its whole process group.
  if (pytest?.pid && pytest.exitCode === null) process.kill(-pytest.pid, 'SIGKILL');
  await svc?.close();
});

test(
  "the Python client's pytest suite passes against the running service",
  async () => {
    const { apiKey } = await connectEveryProvider(svc);
    const child = spawn('bash', [path.join(__dirname, '../../sdk/python/test.sh')], {
      env: { ...process.env, GPUO_TEST_STACK: JSON.stringify({ base_url: svc.baseUrl, api_key: apiKey }) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    pytest = child;
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    pytest = undefined;
    // pytest's closing line, e.g. "18 passed in 12.34s": every test ran and passed, none skipped.
    const summary = /^=+ (.*) in [\d.]+s.* =+$/m.exec(output)?.[1];
    if (code !== 0 || !summary || !/^\d+ passed$/.test(summary))
      throw new Error(`pytest exited with ${code} (${summary ?? 'no summary line'}):\n${output}`);
  },
  PYTEST_TIMEOUT_MS,
);
