/**
 * Local simulators of the three provider APIs, for tests and for `npm start`. Each listens on its own port
 * (0 = OS picks) and speaks the provider's documented API; `baseUrl` is what the matching adapter takes.
 */
import { DEFAULT_BOOT_DELAY_MS, type SimHandle } from './kit';
import { LambdaSimulator, type LambdaControl } from './lambda';
import { RunpodSimulator, type RunpodControl } from './runpod';
import { VastSimulator, type VastControl } from './vastai';

export interface StartSimulatorsOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 for each (the OS picks a free port). */
  ports?: { runpod?: number; vastai?: number; lambda?: number };
  /** Keys accepted from the start, per provider (e.g. keys from configuration for `npm start`). */
  keys?: { runpod?: readonly string[]; vastai?: readonly string[]; lambda?: readonly string[] };
  /** Milliseconds from create to running for new instances; default {@link DEFAULT_BOOT_DELAY_MS}. */
  bootDelayMs?: number;
  /** How many request/response exchanges each simulator records; default 2000. */
  recordLimit?: number;
}

export interface Simulators {
  runpod: SimHandle<RunpodControl>;
  vastai: SimHandle<VastControl>;
  lambda: SimHandle<LambdaControl>;
  close(): Promise<void>;
}

export async function startSimulators(options: StartSimulatorsOptions = {}): Promise<Simulators> {
  const host = options.host ?? '127.0.0.1';
  const common = { bootDelayMs: options.bootDelayMs, recordLimit: options.recordLimit };
  const started: SimHandle[] = [];
  try {
    const runpod = await new RunpodSimulator({ ...common, keys: options.keys?.runpod }).start(
      host,
      options.ports?.runpod ?? 0,
    );
    started.push(runpod);
    const vastai = await new VastSimulator({ ...common, keys: options.keys?.vastai }).start(
      host,
      options.ports?.vastai ?? 0,
    );
    started.push(vastai);
    const lambda = await new LambdaSimulator({ ...common, keys: options.keys?.lambda }).start(
      host,
      options.ports?.lambda ?? 0,
    );
    started.push(lambda);
    return {
      runpod,
      vastai,
      lambda,
      close: async () => {
        await Promise.all([runpod.close(), vastai.close(), lambda.close()]);
      },
    };
  } catch (err) {
    await Promise.all(started.map((s) => s.close()));
    throw err;
  }
}

export { DEFAULT_BOOT_DELAY_MS };
export type { CommonControl, FaultControl, RecordedExchange, RequestMatch, SimHandle, SimInstanceView } from './kit';
export type { LambdaControl } from './lambda';
export type { RunpodControl, RunpodSpotMode } from './runpod';
export type { VastControl } from './vastai';
export { LambdaSimulator, RunpodSimulator, VastSimulator };

/** The three base URLs in the shape `createProviderAdapters` takes, to point the real adapters at the simulators. */
export function simulatorBaseUrls(sims: Pick<Simulators, 'runpod' | 'vastai' | 'lambda'>) {
  return { runpodBaseUrl: sims.runpod.baseUrl, vastaiBaseUrl: sims.vastai.baseUrl, lambdaBaseUrl: sims.lambda.baseUrl };
}
