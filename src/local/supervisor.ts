/**
 * Supervision for the local default's child processes (the API and the worker): each child's output is
 * forwarded line by line to our own stdout/stderr unchanged (the children print one JSON object per line)
 * and appended to `<logDir>/<name>.log`, its pid is kept in `<runDir>/<name>.pid`, and a child that dies
 * is restarted after a backoff (doubling from `initialMs` up to `maxMs`, back to `initialMs` once a child
 * has stayed up for `maxMs`) instead of taking the whole stack down.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import readline from 'node:readline';
import type { Logger } from '../logger';

export interface SupervisedOptions {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  logFile: string;
  pidFile: string;
  backoff: { initialMs: number; maxMs: number };
  /** The supervisor's own log (one JSON line per start, exit and restart). */
  logger: Logger;
  /** False once the whole stack is stopping: an exit then is expected, never restarted. */
  keepRunning: () => boolean;
  /** How long a child may take to stop after SIGTERM before it gets SIGKILL (default 30 s). */
  stopTimeoutMs?: number;
}

export class SupervisedProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private restartTimer: NodeJS.Timeout | undefined;
  private delayMs: number;
  private startedAt = 0;
  private stopped = false;
  private readonly log: WriteStream;
  /** Restarts so far (not counting the first start). */
  restarts = 0;

  constructor(private readonly opts: SupervisedOptions) {
    this.delayMs = opts.backoff.initialMs;
    this.log = createWriteStream(opts.logFile, { flags: 'a' });
    this.log.on('error', (err) =>
      opts.logger.warn('cannot write child log file', { child: opts.name, file: opts.logFile, err }),
    );
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): void {
    const { name, command, args, env, logger } = this.opts;
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.startedAt = Date.now();
    this.forward(child.stdout!, process.stdout);
    this.forward(child.stderr!, process.stderr);
    if (child.pid !== undefined) void writeFile(this.opts.pidFile, `${child.pid}\n`).catch(() => undefined);
    logger.info('child started', { child: name, pid: child.pid, restarts: this.restarts });
    this.exited = new Promise<void>((resolve) => {
      let done = false;
      const onEnd = (code: number | null, signal: NodeJS.Signals | null, error?: Error) => {
        if (done) return;
        done = true;
        resolve();
        this.onExit(child, code, signal, error);
      };
      // 'close' (not 'exit'): the child's last lines have been read by then.
      child.once('close', (code, signal) => onEnd(code, signal));
      child.once('error', (err) => onEnd(null, null, err)); // could not be spawned at all
    });
  }

  private forward(from: NodeJS.ReadableStream, to: NodeJS.WritableStream): void {
    readline.createInterface({ input: from, crlfDelay: Infinity }).on('line', (line) => {
      to.write(line + '\n');
      this.log.write(line + '\n');
    });
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null, error?: Error): void {
    if (this.child !== child) return;
    this.child = undefined;
    const { name, logger, backoff } = this.opts;
    if (this.stopped || !this.opts.keepRunning()) return;
    // A child that stayed up a while failed afresh: start again from the shortest delay.
    const upMs = Date.now() - this.startedAt;
    if (upMs >= backoff.maxMs) this.delayMs = backoff.initialMs;
    const delay = this.delayMs;
    this.delayMs = Math.min(this.delayMs * 2, backoff.maxMs);
    logger.error('child exited unexpectedly; restarting', {
      child: name,
      code,
      signal,
      ...(error ? { err: error } : {}),
      up_ms: upMs,
      restart_in_ms: delay,
      restarts: this.restarts,
    });
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.stopped || !this.opts.keepRunning()) return;
      this.restarts++;
      this.start();
    }, delay);
  }

  /** Stops the child (SIGTERM, then SIGKILL after the timeout) and cancels any pending restart. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const kill = setTimeout(() => child.kill('SIGKILL'), this.opts.stopTimeoutMs ?? 30_000);
      child.kill('SIGTERM');
      await this.exited;
      clearTimeout(kill);
    }
    await rm(this.opts.pidFile, { force: true });
    this.opts.logger.info('child stopped', { child: this.opts.name });
    await new Promise<void>((resolve) => this.log.end(resolve));
  }
}
