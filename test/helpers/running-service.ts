/**
 * The whole service listening on a port, as clients (the SDK, the `gpuo` CLI, its MCP server) meet it: the
 * API on real Postgres, a worker on the real Temporal dev server, the provider simulators, and the pricing
 * tables as a refresh leaves them.
 */
import type { Server } from 'node:http';
import { PROVIDERS } from '../../src/providers/types';
import { createTestContext, type TestContext } from './context';
import { createTemporalTestEnv, type TemporalTestEnv } from './temporal';

export interface RunningService {
  t: TestContext;
  baseUrl: string;
  close(): Promise<void>;
}

export async function startRunningService(): Promise<RunningService> {
  const t = await createTestContext({
    simulators: true,
    launchTiming: { pollIntervalMs: 1_000, meterIntervalMs: 60_000 },
  });
  const temporal: TemporalTestEnv = await createTemporalTestEnv();
  await temporal.startWorker(t.workerDeps(), t.deps.temporal.taskQueue);
  for (const p of PROVIDERS) t.sims[p].control.setBootDelay(300);
  await t.recordSimulatorPrices();
  await t.deps.pricing.reload();
  const server: Server = t.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  return {
    t,
    baseUrl: `http://127.0.0.1:${port}`,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await temporal.close();
      await t.close();
    },
  };
}

/**
 * A new account (with the context's starting credit) with a simulator key connected for every provider and a default
 * SSH key: what the Python client's tests run as.
 */
export async function connectEveryProvider(svc: RunningService): Promise<{ apiKey: string }> {
  const [first, ...rest] = PROVIDERS;
  const account = await svc.t.connectedAccount(first);
  for (const provider of rest) {
    await svc.t.http
      .post('/v1/settings/providers')
      .set(account.auth)
      .send({ provider, api_key: svc.t.sims[provider].createKey() })
      .expect(201);
  }
  return { apiKey: account.apiKey };
}
