/**
 * Workflow logic on Temporal's time-skipping test server: timers, retries, grace periods and deadlines run in
 * (skipped) workflow time, activities are plain functions the test writes. One server and one workflow
 * bundle per test file; a fresh task queue per test.
 *
 * The server is Temporal's own test server (the one `TestWorkflowEnvironment.createTimeSkipping()` downloads
 * as a native binary). This machine reaches no download host, so it runs as Temporal's published Java
 * artifact `io.temporal:temporal-test-server`, fetched once with Maven into
 * `~/.cache/gpu-orchestrator/temporal-test-server-<version>` (about 35 MB, 40 s the first time) beside the
 * Temporal CLI and stripe-mock. `TEMPORAL_TEST_SERVER_PATH` points at another executable instead.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Context } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { Activities } from '../../activities';
import { webhookDelivery } from '../../workflows';
import { SEARCH_ATTRIBUTES } from '../../workflows/contracts/search-attributes';
import { freePort } from './ports';
import { eventually } from './process';
import { workflowBundle } from './temporal';

const run = promisify(execFile);

/** Version of Temporal's Java test server (Maven Central `io.temporal:temporal-test-server`). */
export const TEST_SERVER_VERSION = '1.31.0';

function cacheDir(): string {
  return path.join(os.homedir(), '.cache', 'gpu-orchestrator', `temporal-test-server-${TEST_SERVER_VERSION}`);
}
/** Our launcher of the fetched server (`<launcher> <port>`). */
const launcherPath = () => path.join(cacheDir(), 'temporal-test-server');
/** Where the JVM's class-data archive for our launcher is kept ({@link classDataSharing}). */
export const classDataArchivePath = () => path.join(cacheDir(), 'classes.jsa');

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

/**
 * The path of an executable that starts the time-skipping test server (`<exe> <port>`), fetching it once.
 * Concurrent callers (jest workers) each fetch into a temporary folder and rename it into place.
 */
export async function ensureTimeSkippingServer(): Promise<string> {
  if (process.env.TEMPORAL_TEST_SERVER_PATH) return process.env.TEMPORAL_TEST_SERVER_PATH;
  const dir = cacheDir();
  const launcher = launcherPath();
  if (await exists(launcher)) return launcher;

  await mkdir(path.dirname(dir), { recursive: true });
  const work = await mkdtemp(`${dir}.tmp-`);
  try {
    await writeFile(
      path.join(work, 'pom.xml'),
      `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>local.gpu-orchestrator</groupId><artifactId>temporal-test-server-fetch</artifactId><version>1</version>
  <dependencies><dependency><groupId>io.temporal</groupId><artifactId>temporal-test-server</artifactId>
  <version>${TEST_SERVER_VERSION}</version></dependency></dependencies></project>\n`,
    );
    await run('mvn', ['-q', '-B', 'dependency:copy-dependencies', '-DoutputDirectory=lib'], {
      cwd: work,
      maxBuffer: 16 * 1024 * 1024,
    });
    if ((await readdir(path.join(work, 'lib'))).length === 0) throw new Error('maven fetched no jar');
    await writeFile(
      path.join(work, 'temporal-test-server'),
      '#!/bin/sh\n# Temporal time-skipping test server: temporal-test-server <port> [args]\n' +
        'exec java -Xss512k -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$(dirname "$0")/lib/*" ' +
        'io.temporal.testserver.TestServer "$@"\n',
    );
    await chmod(path.join(work, 'temporal-test-server'), 0o755);
    await rm(path.join(work, 'pom.xml'));
    await rename(work, dir).catch(async (err: NodeJS.ErrnoException) => {
      if (!(await exists(launcher))) throw err; // another worker won the race: use its copy
    });
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw new Error(
      `could not fetch Temporal's test server with Maven (needs java and mvn; or set TEMPORAL_TEST_SERVER_PATH): ` +
        `${detail}`,
      { cause: err },
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return launcher;
}

let runtimeInstalled = false;
/** `temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD` (all of our search attributes are Keyword). */
const INDEXED_VALUE_TYPE_KEYWORD = 2;

/**
 * The JVM's class data sharing for our launcher of the test server: a dynamic archive of the classes a server
 * loaded through a whole test file, in the server's cache folder, maps them ready-parsed into every later server
 * (about 0.5 CPU-s less per server over a file's run; the time-skipping files start twenty or so). While there is
 * no archive, a server records one at its exit (a SIGTERM: the JVM writes it before it ends) under a name of its
 * own, renamed into place once it is complete. A JVM ignores an archive of another Java but aborts on a damaged
 * one (a truncated file is a fatal error): {@link startTestServer} then removes it and starts without.
 * A JVM's fatal error report (`hs_err_pid<pid>.log`, written on such an abort) goes beside the archive, not into
 * the folder the tests run in. Another launcher (`TEMPORAL_TEST_SERVER_PATH`) gets no options.
 */
async function classDataSharing(
  executable: string,
  archive: string,
): Promise<{ usesArchive: boolean; javaOptions: string; afterExit(cleanExit: boolean): Promise<void> } | undefined> {
  if (executable !== launcherPath()) return undefined;
  const errorFile = `-XX:ErrorFile=${path.join(path.dirname(archive), 'hs_err_pid%p.log')}`;
  if (await exists(archive))
    return {
      usesArchive: true,
      javaOptions: `-XX:SharedArchiveFile=${archive} ${errorFile}`,
      afterExit: async () => {},
    };
  const recording = `${archive}.${process.pid}-${randomBytes(4).toString('hex')}`;
  return {
    usesArchive: false,
    javaOptions: `-XX:ArchiveClassesAtExit=${recording} ${errorFile}`,
    // A recording that cannot be kept only costs the next servers the archive: it never fails the file's teardown.
    async afterExit(cleanExit) {
      if (cleanExit && (await exists(recording))) await rename(recording, archive).catch(() => undefined);
      await rm(recording, { force: true }).catch(() => undefined);
    },
  };
}

/**
 * Starts the test server on a free port and waits (with a deadline) until it accepts connections. Not through
 * `createTimeSkipping({server: {executable}})`: the SDK gives a server 5 s to start, less than a JVM takes on
 * this loaded 2-core machine.
 */
export async function startTestServer(
  executable: string,
  archive = classDataArchivePath(),
  afterDamagedArchive = false,
): Promise<{ address: string; stop(): Promise<void> }> {
  const port = await freePort();
  const cds = await classDataSharing(executable, archive);
  const child = spawn(executable, [String(port)], {
    stdio: 'ignore',
    env: cds
      ? {
          ...process.env,
          JAVA_TOOL_OPTIONS: [process.env.JAVA_TOOL_OPTIONS, cds.javaOptions].filter(Boolean).join(' '),
        }
      : process.env,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    await cds?.afterExit(child.signalCode === 'SIGTERM' || child.exitCode === 143);
  };
  try {
    const up = await eventually(
      `Temporal's test server on port ${port}`,
      () =>
        new Promise<'listening' | 'exited' | undefined>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve('exited');
          const socket = connect(port, '127.0.0.1');
          socket.once('connect', () => {
            socket.destroy();
            resolve('listening');
          });
          socket.once('error', () => resolve(undefined));
        }),
      120_000,
      200,
    );
    if (up === 'exited') throw new Error(`the test server exited with ${child.exitCode ?? child.signalCode}`);
  } catch (err) {
    await stop();
    if (cds?.usesArchive && !afterDamagedArchive) {
      await rm(archive, { force: true });
      return startTestServer(executable, archive, true);
    }
    throw err;
  }
  return { address: `127.0.0.1:${port}`, stop };
}

/**
 * A time-skipping environment on a running test server. `TestWorkflowEnvironment.create` (what
 * `createTimeSkipping` calls after starting its own server) is private in the SDK's types, not at run time.
 */
function connectTimeSkipping(address: string): Promise<TestWorkflowEnvironment> {
  const create = (
    TestWorkflowEnvironment as unknown as {
      create(opts: {
        server: { type: 'existing' };
        address: string;
        supportsTimeSkipping: true;
      }): Promise<TestWorkflowEnvironment>;
    }
  ).create.bind(TestWorkflowEnvironment);
  return create({ server: { type: 'existing' }, address, supportsTimeSkipping: true });
}

export interface TimeSkippingEnv {
  env: TestWorkflowEnvironment;
  /**
   * Runs `body` with a worker on a fresh task queue whose activities are the given plain functions (an
   * activity the workflow calls but the test did not give fails the test).
   */
  withWorker<T>(activities: Partial<Activities>, body: (taskQueue: string) => Promise<T>): Promise<T>;
  /** Runs `cleanup` when the current {@link withWorker} body ends (before its worker stops). */
  afterWorker(cleanup: () => Promise<void>): void;
  /**
   * Workflow time (skipped time included) in epoch ms. Only meaningful while a workflow is still waiting:
   * once nothing is left to wait for, the server may skip far ahead (measure a run with {@link runTimeMs}).
   */
  now(): Promise<number>;
  close(): Promise<void>;
}

/**
 * A test server and an environment connected to it. The port was free a moment before the server took it; if
 * another process (a test's HTTP server) took it in between, the server cannot bind, and what answers is not
 * it (seen: a GOAWAY FRAME_SIZE_ERROR from an HTTP/1 server). Then a new server on a new port, at most 3 times.
 */
async function startAndConnect(
  executable: string,
): Promise<{ server: Awaited<ReturnType<typeof startTestServer>>; env: TestWorkflowEnvironment }> {
  for (let attempt = 1; ; attempt++) {
    const server = await startTestServer(executable);
    try {
      const env = await connectTimeSkipping(server.address);
      try {
        // As on the dev server: a workflow that sets one of our search attributes fails its task without them. (The
        // test server implements AddSearchAttributes but not the List that ensureSearchAttributes starts with.)
        await env.connection.operatorService.addSearchAttributes({
          namespace: 'default',
          searchAttributes: Object.fromEntries(SEARCH_ATTRIBUTES.map((key) => [key.name, INDEXED_VALUE_TYPE_KEYWORD])),
        });
      } catch (err) {
        await env.teardown().catch(() => undefined);
        throw err;
      }
      return { server, env };
    } catch (err) {
      await server.stop();
      if (attempt >= 3) throw err;
    }
  }
}

export async function createTimeSkippingEnv(): Promise<TimeSkippingEnv> {
  if (!runtimeInstalled) {
    runtimeInstalled = true;
    Runtime.install({ logger: new DefaultLogger('ERROR') }); // tests fail activities on purpose
  }
  const executable = await ensureTimeSkippingServer();
  const { server, env } = await startAndConnect(executable);
  let cleanups: (() => Promise<void>)[] = [];
  return {
    env,
    afterWorker(cleanup) {
      cleanups.push(cleanup);
    },
    async withWorker(activities, body) {
      const taskQueue = `ts-${randomBytes(5).toString('hex')}`;
      const worker = await Worker.create({
        connection: env.nativeConnection,
        taskQueue,
        workflowBundle: await workflowBundle(),
        activities,
        // The workflow interceptors report each run's outcome to this sink (the worker's metrics in production).
        sinks: { metrics: { workflowEnded: { fn: () => undefined } } },
        // Workflows in this thread, as the SDK's replay runs them: no worker thread to start per test and no hop
        // per activation (docs/testing.md). The same bundle in the same reused sandbox; no 5 s limit per activation.
        debugMode: true,
      });
      return worker.runUntil(async () => {
        try {
          return await body(taskQueue);
        } finally {
          const pending = cleanups;
          cleanups = [];
          await Promise.allSettled(pending.map((c) => c()));
        }
      });
    },
    now: () => env.currentTimeMs(),
    async close() {
      await env.teardown();
      await server.stop();
    },
  };
}

/**
 * Activities of {@link startStandIn}: give them to the worker beside the ones under test.
 */
// Beyond the ten years the test server skips to when nothing else is left to wait for.
const STAND_IN_WAIT_MS = 100 * 365 * 24 * 3_600_000;

export const standInActivities: Partial<Activities> = {
  // A delivery whose next attempt is a century away: the workflow waits on that timer and does nothing else.
  adoptWebhookDelivery: async () => ({ status: 'pending', nextAttemptAt: activityScheduledAtMs() + STAND_IN_WAIT_MS }),
  attemptWebhookDelivery: async () => ({
    status: 'pending',
    nextAttemptAt: activityScheduledAtMs() + STAND_IN_WAIT_MS,
  }),
};

/**
 * A running workflow with the given id that only waits (one of ours, webhookDelivery, parked on a century-long
 * timer), standing in for a workflow that receives signals (a launch workflow): a signal it has no handler for
 * is still recorded in its history, where {@link signalsReceived} reads it.
 */
export async function startStandIn(
  ts: TimeSkippingEnv,
  taskQueue: string,
  workflowId: string,
): Promise<WorkflowHandle> {
  const handle = await ts.env.client.workflow.start(webhookDelivery, {
    taskQueue,
    workflowId,
    args: [{ deliveryId: workflowId }],
  });
  ts.afterWorker(() => handle.terminate('test finished').then(() => undefined));
  return handle;
}

/** The arguments of every signal `name` the workflow has received, oldest first. */
export async function signalsReceived(handle: WorkflowHandle, name: string): Promise<unknown[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? [])
    .map((e) => e.workflowExecutionSignaledEventAttributes)
    .filter((a) => a?.signalName === name)
    .map((a) => {
      const payload = a?.input?.payloads?.[0];
      return payload
        ? defaultPayloadConverter.fromPayload(payload as Parameters<typeof defaultPayloadConverter.fromPayload>[0])
        : undefined;
    });
}

/** How long a closed workflow ran, in workflow time (start to close). */
export async function runTimeMs(handle: WorkflowHandle): Promise<number> {
  const { startTime, closeTime } = await handle.describe();
  if (!closeTime) throw new Error(`workflow ${handle.workflowId} has not closed`);
  return closeTime.getTime() - startTime.getTime();
}

/** Workflow time at which the current activity was scheduled (call it inside an activity function). */
export function activityScheduledAtMs(): number {
  return Context.current().info.currentAttemptScheduledTimestampMs;
}
