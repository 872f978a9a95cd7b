/**
 * What the benchmarks stand on: a scratch folder, embedded Postgres with migrated databases, the Temporal dev
 * server, the provider simulators, workers and HTTP servers, each started when a bench asks for it and all
 * stopped in reverse order when the bench ends, fails or is interrupted (Ctrl-C, SIGTERM): nothing of a run
 * outlives it, neither a process nor the folder.
 *
 *   const stack = await startBench('launch');
 *   const { pool } = await stack.database();
 *   const { client } = await stack.temporal();
 *   …
 *   runBench(main);   // instead of main().catch(…): stops every stack, exit code 1 on failure
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { createDatabasePool, type Pool } from '../src/db/pool';
import { migrate } from '../src/db/migrate';
import { KeyVault } from '../src/domain/key-vault';
import { devServerArgs } from '../src/local/dev-server';
import { ensureDatabase, startEmbeddedPostgres, type RunningPostgres } from '../src/local/embedded-postgres';
import { findOrBuildTool, TEMPORAL_CLI } from '../src/local/tool-binaries';
import { createWorker, type WorkerDeps } from '../src/worker';
import { temporalDataConverter } from '../src/workflow-clients/payload-codec';
import { startSimulators, type Simulators, type StartSimulatorsOptions } from '../simulators';

/** A port in 20000–39999 for a server that cannot take port 0 (Postgres); collisions are unlikely, not excluded. */
export function randomPort(): number {
  return 20_000 + Math.floor(Math.random() * 20_000);
}

/** The p-th percentile (0–100) of `xs`, by rank; NaN when there are none. */
export function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  return [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;
}

/** The median of `xs` (the upper one of an even count). */
export function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}

/** Serves `app` on a free port of 127.0.0.1. */
export async function listen(app: {
  listen(port: number, host: string): Server;
}): Promise<{ server: Server; url: string }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export interface BenchTemporal {
  address: string;
  connection: Connection;
  /** A client with the stack's payload codec ({@link BenchStack.vault}). */
  client: Client;
}

export class BenchStack {
  /** The master key of {@link vault}: a spawned worker gets it through its environment (`MASTER_ENCRYPTION_KEY`). */
  readonly masterKey = randomBytes(32);
  /** The key vault of every client and worker of the stack (id `k1`), so each opens what another sealed. */
  readonly vault = new KeyVault('k1', this.masterKey);
  private readonly stops: { what: string; stop: () => unknown }[] = [];
  private pg?: RunningPostgres;
  private temporalServer?: BenchTemporal;
  private stopping?: Promise<void>;

  constructor(
    readonly name: string,
    /** The scratch folder, removed when the stack stops. */
    readonly dir: string,
  ) {}

  /** Runs `stop` when the stack stops: before everything started earlier, after everything started later. */
  defer(what: string, stop: () => unknown): void {
    this.stops.push({ what, stop });
  }

  /** Stops everything in reverse order of starting; each part is stopped even when another fails. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const { what, stop } of this.stops.reverse()) {
        try {
          await stop();
        } catch (err) {
          process.stderr.write(`[${this.name}] stopping ${what} failed: ${(err as Error)?.message ?? String(err)}\n`);
        }
      }
      await rm(this.dir, { recursive: true, force: true });
    })();
    return this.stopping;
  }

  /** Embedded Postgres with its data in the scratch folder; one per stack, started on first use. */
  async postgres(): Promise<RunningPostgres> {
    if (!this.pg) {
      const pg = await startEmbeddedPostgres({ dataDir: path.join(this.dir, 'pg'), port: randomPort() });
      this.defer('Postgres', () => pg.stop());
      this.pg = pg;
    }
    return this.pg;
  }

  /** The URL of database `name`, created and migrated (no pool: for a template that must have no connections). */
  async migrated(name = 'bench'): Promise<string> {
    const pg = await this.postgres();
    await ensureDatabase(pg.url(), name);
    await migrate(pg.url(name));
    return pg.url(name);
  }

  /** A pool of `url`, ended when the stack stops; `poolSize` defaults to the service's own default. */
  async pool(url: string, poolSize?: number): Promise<Pool> {
    const pool = await createDatabasePool(url, poolSize === undefined ? {} : { maximumPoolSize: poolSize });
    this.defer('a database pool', () => pool.end());
    return pool;
  }

  /** Database `name`, created and migrated, and a pool of it. */
  async database(name = 'bench', poolSize?: number): Promise<{ url: string; pool: Pool }> {
    const url = await this.migrated(name);
    return { url, pool: await this.pool(url, poolSize) };
  }

  /**
   * The Temporal dev server with the service's search attributes and settings (`devServerArgs`), started on
   * first use, and a client of it. The SDK's own log says errors only.
   */
  async temporal(): Promise<BenchTemporal> {
    if (!this.temporalServer) {
      Runtime.install({ logger: new DefaultLogger('ERROR') });
      const cli = await findOrBuildTool(TEMPORAL_CLI);
      const env = await TestWorkflowEnvironment.createLocal({
        server: {
          executable: cli ? { type: 'existing-path', path: cli } : { type: 'cached-download' },
          ip: '127.0.0.1',
          extraArgs: ['--log-level', 'error', ...devServerArgs()],
        },
      });
      this.defer('the Temporal dev server', () => env.teardown());
      this.temporalServer = await this.connectTemporal(env.connection.options.address);
    }
    return this.temporalServer;
  }

  /** A client of the Temporal server at `address` (one the bench runs itself), closed when the stack stops. */
  async connectTemporal(address: string): Promise<BenchTemporal> {
    const connection = await Connection.connect({ address });
    this.defer('a Temporal connection', () => connection.close());
    return {
      address,
      connection,
      client: new Client({ connection, dataConverter: temporalDataConverter(this.vault) }),
    };
  }

  /** The three provider simulators, closed when the stack stops. */
  async simulators(options: StartSimulatorsOptions = {}): Promise<Simulators> {
    const sims = await startSimulators(options);
    this.defer('the simulators', () => sims.close());
    return sims;
  }

  /**
   * A worker of the service's workflows and activities in this process, on the stack's Temporal server and
   * `taskQueue`, running until the stack stops (it shuts down before the server and the database go).
   */
  async worker(taskQueue: string, deps: WorkerDeps): Promise<Worker> {
    const { address } = await this.temporal();
    const connection = await NativeConnection.connect({ address });
    this.defer('a worker connection', () => connection.close());
    const worker = await createWorker({
      connection,
      namespace: 'default',
      taskQueue,
      dataConverter: temporalDataConverter(this.vault),
      deps,
    });
    const running = worker.run();
    this.defer('a worker', async () => {
      // A bench may have begun the shutdown itself, to stop polling before its own teardown.
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
    });
    return worker;
  }

  /** Serves `app` on a free port of 127.0.0.1 until the stack stops. */
  async listen(app: { listen(port: number, host: string): Server }): Promise<{ server: Server; url: string }> {
    const served = await listen(app);
    this.defer('a server', () => void served.server.close());
    return served;
  }
}

const stacks: BenchStack[] = [];

/**
 * A stack with a fresh scratch folder. Ctrl-C or SIGTERM stops it (and every other stack of the process) and
 * ends the process; a second signal ends it at once.
 */
export async function startBench(name: string): Promise<BenchStack> {
  const stack = new BenchStack(name, await mkdtemp(path.join(os.tmpdir(), `gpuo-bench-${name}-`)));
  if (stacks.length === 0) {
    const onSignal = (signal: NodeJS.Signals) => {
      process.once(signal, () => process.exit(signal === 'SIGINT' ? 130 : 143));
      process.stderr.write(`[${name}] ${signal}: stopping everything\n`);
      void stopAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  stacks.push(stack);
  return stack;
}

function stopAll(): Promise<void> {
  return Promise.all(stacks.map((s) => s.stop())).then(() => undefined);
}

/** How long a failed bench may take to stop its stacks before the process ends anyway. */
const STOP_AFTER_FAILURE_MS = 60_000;

/**
 * Runs a bench's `main` and then stops every stack it started; with `serve`, a server process for a bench in
 * another process, the stacks run on after `main` until SIGTERM. On failure: the error on stderr, the stacks
 * stopped (at most {@link STOP_AFTER_FAILURE_MS}), exit code 1.
 */
export function runBench(main: () => Promise<void>, opts: { serve?: boolean } = {}): void {
  main().then(
    () =>
      opts.serve
        ? undefined
        : stopAll().catch((err: unknown) => process.stderr.write(`stopping failed: ${String(err)}\n`)),
    async (err: unknown) => {
      process.stderr.write(`${(err as Error)?.stack ?? JSON.stringify(err)}\n`);
      await Promise.race([stopAll(), new Promise((r) => setTimeout(r, STOP_AFTER_FAILURE_MS).unref())]);
      process.exit(1);
    },
  );
}
