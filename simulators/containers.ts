/**
 * Simulated containers that run a job: when an instance's start command carries the gpuo job wrapper, the
 * simulator runs that command for real with `sh` in a scratch directory once the instance is running, so a
 * job prints, lasts and exits as it would on a GPU host. Its exit is the container's: the simulator marks the
 * instance exited (Vast `exited`, RunPod `EXITED`). Ending the instance kills the process group. Other start
 * commands (a schedule's `python train.py`) are not run.
 *
 * The container's stdout and stderr are its log, kept line by line (with the time each line was printed) for
 * as long as the instance exists: the simulators serve it through their providers' log APIs.
 *
 * A VM (Lambda) has Docker: with `docker`, the script finds `./docker-shim.sh` as `docker` on its PATH, which
 * runs the container's command for real in the scratch directory with the env it was given (only the container
 * runtime is simulated).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The marker the start command of a job attempt carries (src/jobs/start-command.ts). */
const JOB_MARKER = 'gpuo-job-wrapper';
/** Lines a container's log keeps (the oldest are dropped first), as a provider's log buffer would. */
const LOG_LINES_KEPT = 20_000;

let dockerShim: string | null = null;
const dockerShimScript = (): string => (dockerShim ??= readFileSync(join(__dirname, 'docker-shim.sh'), 'utf8'));

export interface ContainerLogLine {
  /** Milliseconds since the epoch when the line was printed. */
  ts: number;
  /** Increases by one per line of this container: a resume cursor. */
  seq: number;
  line: string;
}

interface Follower {
  onLine(line: ContainerLogLine): void;
  onEnd(): void;
}

/** One container's output: the lines printed so far, and who follows new ones. */
class ContainerLog {
  readonly lines: ContainerLogLine[] = [];
  ended = false;
  private partial = '';
  private seq = 0;
  private readonly followers = new Set<Follower>();

  write(chunk: string): void {
    const parts = (this.partial + chunk).split(/\r\n|\r|\n/);
    this.partial = parts.pop()!;
    for (const line of parts) this.push(line);
  }

  end(): void {
    if (this.ended) return;
    if (this.partial) this.push(this.partial);
    this.partial = '';
    this.ended = true;
    for (const f of this.followers) f.onEnd();
    this.followers.clear();
  }

  follow(f: Follower): () => void {
    if (this.ended) {
      f.onEnd();
      return () => undefined;
    }
    this.followers.add(f);
    return () => this.followers.delete(f);
  }

  private push(line: string): void {
    const entry = { ts: Date.now(), seq: ++this.seq, line };
    this.lines.push(entry);
    if (this.lines.length > LOG_LINES_KEPT) this.lines.splice(0, this.lines.length - LOG_LINES_KEPT);
    for (const f of this.followers) f.onLine(entry);
  }
}

interface Running {
  timer: NodeJS.Timeout | null;
  child: ChildProcess | null;
  /** The scratch directory, and with `docker` the directory of its `docker` beside it. */
  dir: string | null;
  stopped: boolean;
}

export class SimContainers {
  private readonly running = new Map<string, Running>();
  private readonly logs = new Map<string, ContainerLog>();

  /** `docker`: the host is a VM with Docker (./docker-shim.sh as `docker` on the script's PATH). */
  constructor(private readonly opts: { docker?: boolean } = {}) {}

  /** Whether a start command is one the simulator runs. */
  static runs(script: string | null | undefined): script is string {
    return typeof script === 'string' && script.includes(JOB_MARKER);
  }

  /**
   * Runs `script` after `delayMs` (the boot); `onExit` when it ends by itself. A command that is not a job's is
   * ignored.
   */
  start(id: string, script: string | null | undefined, delayMs: number, onExit: (code: number | null) => void): void {
    if (!SimContainers.runs(script) || this.running.has(id)) return;
    const r: Running = { timer: null, child: null, dir: null, stopped: false };
    this.running.set(id, r);
    const log = new ContainerLog();
    this.logs.set(id, log);
    r.timer = setTimeout(
      () => {
        r.timer = null;
        if (r.stopped) return;
        r.dir = mkdtempSync(join(tmpdir(), 'gpuo-sim-container-'));
        const scratch = join(r.dir, 'scratch');
        mkdirSync(scratch);
        let path = process.env.PATH ?? '/usr/bin:/bin';
        if (this.opts.docker) {
          const bin = join(r.dir, 'bin');
          mkdirSync(bin);
          writeFileSync(join(bin, 'docker'), dockerShimScript());
          chmodSync(join(bin, 'docker'), 0o755);
          path = `${bin}:${path}`;
        }
        // Its own process group, so an end kills the command's children too; only PATH is inherited.
        const child = spawn('sh', ['-c', script], {
          cwd: scratch,
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { PATH: path, TMPDIR: scratch, HOME: scratch },
        });
        r.child = child;
        child.stdout?.setEncoding('utf8').on('data', (c: string) => log.write(c));
        child.stderr?.setEncoding('utf8').on('data', (c: string) => log.write(c));
        child.on('error', () => undefined);
        // The log ends when the output pipes close; the container when the wrapper exits (a process it left
        // in the background may hold the pipes open longer).
        child.on('close', () => log.end());
        child.on('exit', (code) => {
          this.cleanUp(id, r);
          if (!r.stopped) onExit(code);
        });
      },
      Math.max(0, delayMs),
    );
  }

  /**
   * The container's log: what it printed (oldest first) and whether it has ended; null when the instance never
   * ran a job's command or its log was dropped with it.
   */
  log(id: string): { lines: readonly ContainerLogLine[]; ended: boolean } | null {
    return this.logs.get(id) ?? null;
  }

  /** Calls `onLine` for each line printed from now on and `onEnd` once the container ends; returns the unsubscribe. */
  follow(id: string, onLine: (line: ContainerLogLine) => void, onEnd: () => void): () => void {
    const log = this.logs.get(id);
    if (!log) {
      onEnd();
      return () => undefined;
    }
    return log.follow({ onLine, onEnd });
  }

  /**
   * Ends the container (terminate, stop, preemption): its processes are killed; no exit is reported by the
   * simulator.
   */
  stop(id: string): void {
    const r = this.running.get(id);
    this.logs.get(id)?.end();
    if (!r) return;
    r.stopped = true;
    if (r.timer) clearTimeout(r.timer);
    if (r.child?.pid !== undefined && r.child.exitCode === null) {
      try {
        process.kill(-r.child.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    this.cleanUp(id, r);
  }

  /** Ends the container and drops its log: the instance is gone (terminated, destroyed). */
  remove(id: string): void {
    this.stop(id);
    this.logs.delete(id);
  }

  stopAll(): void {
    for (const id of [...this.running.keys()]) this.stop(id);
  }

  private cleanUp(id: string, r: Running): void {
    if (this.running.get(id) === r && (r.stopped || r.child?.exitCode !== null)) this.running.delete(id);
    if (r.dir && (r.stopped || r.child?.exitCode !== null || r.child?.signalCode !== null)) {
      rmSync(r.dir, { recursive: true, force: true });
      r.dir = null;
    }
  }
}
