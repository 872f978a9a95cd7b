/**
 * Runs stripe-mock (Stripe's official API mock, built once by `npm run tools:install`) for the local
 * default and the tests: the `stripe` SDK is pointed at it with STRIPE_API_BASE_URL.
 */
import { spawn } from 'node:child_process';
import { findOrBuildTool, STRIPE_MOCK } from './tool-binaries';

export interface RunningStripeMock {
  baseUrl: string;
  stop(): Promise<void>;
}

/** A secret key stripe-mock accepts (any `sk_test_…`); never a real one. */
export const STRIPE_MOCK_SECRET_KEY = 'sk_test_localStripeMock';

/** Starts stripe-mock on 127.0.0.1:`port` and resolves once it answers; rejects after `timeoutMs`. */
export async function startStripeMock(opts: {
  port: number;
  /** The binary when the caller found it; otherwise it is found, fetched or built. */
  binary?: string;
  log?: (line: string) => void;
  timeoutMs?: number;
}): Promise<RunningStripeMock> {
  const binary = opts.binary ?? (await findOrBuildTool(STRIPE_MOCK, opts.log));
  if (!binary)
    throw new Error(
      'stripe-mock is not installed and there is no Go toolchain to build it: run `npm run tools:install`',
    );
  // stripe-mock also listens on $PORT when set: that is the API's port here, so it must not see it.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'PORT'));
  // With only -http-addr, stripe-mock also opens HTTPS on its fixed default port 12112 (so two of them
  // collide): give HTTPS a loopback port of the system's choosing instead.
  const args = ['-http-addr', `127.0.0.1:${opts.port}`, '-https-addr', '127.0.0.1:0'];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = `http://127.0.0.1:${opts.port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`stripe-mock exited with code ${child.exitCode}: ${output.slice(-500)}`);
    try {
      const res = await fetch(`${baseUrl}/v1/balance`, {
        headers: { Authorization: `Bearer ${STRIPE_MOCK_SECRET_KEY}` },
      });
      if (res.ok) return { baseUrl, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(
    `stripe-mock did not answer on ${baseUrl} within ${(opts.timeoutMs ?? 30_000) / 1000}s: ${output.slice(-500)}`,
  );
}
