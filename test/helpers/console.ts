/**
 * The console's test stack: the real API (with the console built into a temp dir) listening on a free port,
 * its database, the simulators, stripe-mock, a worker when launches must run, a log that keeps every line,
 * and a real Chromium.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { buildConsole, type ConsoleBuild } from '../../console/build';
import { createApp } from '../../src/http/app';
import type { Logger } from '../../src/logger';
import { createTestContext, testVault, type TestContext } from './context';
import { launchChromium } from './browser';
import { startTestStripe } from './stripe';
import { createTemporalTestEnv, type TemporalTestEnv } from './temporal';

export interface ConsoleStack {
  t: TestContext;
  base: string;
  browser: Browser;
  build: ConsoleBuild;
  stripe: Awaited<ReturnType<typeof startTestStripe>>;
  /** Every line the API logged. */
  logLines: string[];
  close(): Promise<void>;
}

function capturingLogger(lines: string[], fields: Record<string, unknown> = {}): Logger {
  const write = (level: string) => (msg: string, more?: Record<string, unknown>) => {
    lines.push(
      JSON.stringify({ level, msg, ...fields, ...more }, (_k, v: unknown) =>
        v instanceof Error ? { message: v.message } : v,
      ),
    );
  };
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (f) => capturingLogger(lines, { ...fields, ...f }),
  };
}

export async function startConsoleStack(): Promise<ConsoleStack> {
  const stripe = await startTestStripe();
  const t = await createTestContext({
    simulators: true,
    stripe: stripe.settings,
    launchTiming: { pollIntervalMs: 1_000, spotPollIntervalMs: 500, meterIntervalMs: 60_000, bootPollMaxMs: 300 },
  });
  const build = await buildConsole(await mkdtemp(path.join(os.tmpdir(), 'gpuo-console-')));
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const logLines: string[] = [];
  const app = createApp({
    ...t.deps,
    logger: capturingLogger(logLines),
    consoleDir: build.outDir,
    stripe: { ...stripe.settings, returnBaseUrl: base },
    // Webhook endpoints the console registers are a receiver on this machine.
    webhooks: { allowedHosts: ['127.0.0.1'] },
  });
  server.on('request', app.callback());
  // The worker after the API listens: a job's wrapper in a simulated container reports its exit to this API.
  const temporal: TemporalTestEnv = await createTemporalTestEnv();
  await temporal.startWorker(
    t.workerDeps({
      jobs: { publicBaseUrl: base, vault: testVault() },
      webhooks: {
        databaseUrl: t.db.url,
        settings: { allowedHosts: ['127.0.0.1'], retryScheduleMs: [500, 1_000], timeoutMs: 2_000 },
      },
    }),
    t.deps.temporal.taskQueue,
  );
  const browser = await launchChromium();
  return {
    t,
    base,
    browser,
    build,
    stripe,
    logLines,
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
      await temporal.close();
      await t.close();
      await stripe.mock.stop();
      await rm(build.outDir, { recursive: true, force: true });
    },
  };
}

/** Signs in on a fresh page of its own browser context and waits for the fleet page. */
export async function signedInPage(stack: ConsoleStack, key: string): Promise<Page> {
  const page = await (await stack.browser.newContext()).newPage();
  await page.goto(`${stack.base}/console`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Fleet' }).waitFor();
  return page;
}
