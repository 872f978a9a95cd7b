/**
 * Simulated containers that run a job: when an instance's start command carries the gpuo job wrapper, the
 * simulator runs that command for real with `sh` in a scratch directory once the instance is running, so a
 * job prints, lasts and exits as it would on a GPU host. Its exit is the container's: the simulator marks the
 * instance exited (Vast `exited`, RunPod `EXITED`). Ending the instance kills the process group. Other start
 * commands (a schedule's `python train.py`) are not run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The marker the start command of a job attempt carries (src/jobs/start-command.ts). */
const JOB_MARKER = 'gpuo-job-wrapper';

interface Running {
  timer: NodeJS.Timeout | null;
  child: ChildProcess | null;
  dir: string | null;
  stopped: boolean;
}

export class SimContainers {
  private readonly running = new Map<string, Running>();

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
    r.timer = setTimeout(
      () => {
        r.timer = null;
        if (r.stopped) return;
        r.dir = mkdtempSync(join(tmpdir(), 'gpuo-sim-container-'));
        // Its own process group, so an end kills the command's children too; only PATH is inherited.
        const child = spawn('sh', ['-c', script], {
          cwd: r.dir,
          detached: true,
          stdio: 'ignore',
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TMPDIR: r.dir, HOME: r.dir },
        });
        r.child = child;
        child.on('error', () => undefined);
        child.on('close', (code) => {
          this.cleanUp(id, r);
          if (!r.stopped) onExit(code);
        });
      },
      Math.max(0, delayMs),
    );
  }

  /**
   * Ends the container (terminate, stop, preemption): its processes are killed; no exit is reported by the simulator.
   */
  stop(id: string): void {
    const r = this.running.get(id);
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
