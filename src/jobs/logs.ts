/**
 * Logs of a job's attempt or of an instance: a read-only provider call, made where the API answers (as the
 * provider-key checks are), because a log is read while someone waits and followed as a stream, neither of
 * which a workflow's history should carry. The provider's answer while it still has the instance (RunPod's log
 * stream, Vast.ai's uploaded log); else, and on Lambda (no log API), the tail the job wrapper reported with the
 * exit, or before it the latest tail the wrapper shipped while the command ran. A follow passes on new lines
 * while the attempt or instance runs, and ends with its status and exit code once it ended (the database says
 * so: the exit report, the observer or a terminate wrote it).
 */
import type { InstanceQueries } from '../db/queries/instances';
import type { AttemptRow, JobQueries } from '../db/queries/jobs';
import type { InstanceRow } from '../db/queries/instance-row';
import { NotFoundError, UnsupportedOperationError } from '../errors';
import type { Logger } from '../logger';
import { newLines, splitLines } from '../providers/logs';
import type { ProviderCredentials } from '../providers/provider-credentials';
import type { ProviderAdapter, ProviderId } from '../providers/types';

/** Lines a tail answers without `tail`, and the most it answers. */
export const LOG_TAIL_DEFAULT = 100;
export const LOG_TAIL_MAX = 5_000;
/** The most bytes a tail answers (the oldest lines are left out first). */
export const LOG_MAX_BYTES = 256 * 1024;
/** A longer line is cut to this many characters and ends with `…`. */
export const LOG_LINE_MAX = 16 * 1024;

/** The most a shipped tail keeps (POST /v1/jobs/tail): its last lines, this many at most, in this many bytes. */
export const LIVE_TAIL_MAX_LINES = 1_000;
export const LIVE_TAIL_MAX_BYTES = 16 * 1024;

/**
 * The end of a tail the wrapper shipped that the service keeps: the last whole lines that fit in
 * {@link LIVE_TAIL_MAX_LINES} and {@link LIVE_TAIL_MAX_BYTES}, joined by newlines (the exit tail's shape); a last
 * line longer than the bytes alone keeps its end.
 */
export function boundedLiveTail(text: string): string {
  const lines = splitLines(text).slice(-LIVE_TAIL_MAX_LINES);
  const kept: string[] = [];
  let bytes = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const size = Buffer.byteLength(lines[i]!) + (kept.length ? 1 : 0);
    if (bytes + size > LIVE_TAIL_MAX_BYTES) break;
    bytes += size;
    kept.push(lines[i]!);
  }
  if (kept.length === 0 && lines.length > 0) {
    let end = lines[lines.length - 1]!.slice(-LIVE_TAIL_MAX_BYTES);
    // A UTF-16 unit is 1 to 3 bytes: dropping a third of the excess in units each round converges quickly.
    for (let excess = Buffer.byteLength(end) - LIVE_TAIL_MAX_BYTES; excess > 0;) {
      end = end.slice(Math.ceil(excess / 3));
      excess = Buffer.byteLength(end) - LIVE_TAIL_MAX_BYTES;
    }
    // Never start with the second half of a character that was cut.
    return /^[\udc00-\udfff]/.test(end) ? end.slice(1) : end;
  }
  return kept.reverse().join('\n');
}

export interface LogSettings {
  /** How often a follow looks whether its attempt or instance ended (1 s). */
  statusPollMs: number;
  /** How long a follow's start waits for the provider to fail before it answers 200 (1.5 s). */
  openCheckMs: number;
}
export const DEFAULT_LOG_SETTINGS: LogSettings = { statusPollMs: 1_000, openCheckMs: 1_500 };

/** Where the lines go: the route writes them as server-sent events. */
export interface LogSink {
  line(text: string): void;
  end(state: { status: string; exit_code: number | null }): void;
}

/** The attempt or instance a log read is about, and how to tell whether (and how) it ended. */
interface LogTarget {
  accountId: string;
  /** Null while a job waits for its first attempt's instance. */
  resolve(): Promise<{
    instance: InstanceRow | null;
    attempt: AttemptRow | null;
    ended: { status: string; exit_code: number | null } | null;
  }>;
}

const ENDED_INSTANCE = new Set(['stopped', 'terminated', 'failed']);
const FINAL_JOB = new Set(['succeeded', 'failed', 'cancelled']);
const GONE_INSTANCE = new Set(['terminated', 'failed']);

export interface LogLibraryDeps {
  jobs: Pick<JobQueries, 'find' | 'attempts' | 'attemptOfInstance'>;
  instances: Pick<InstanceQueries, 'findByProviderId' | 'findById'>;
  credentials: Pick<ProviderCredentials, 'requireApiKey'>;
  adapters: Record<ProviderId, Pick<ProviderAdapter, 'logs'>>;
  logger: Logger;
  settings?: Partial<LogSettings>;
}

/**
 * What the service holds of an attempt's output: the exit report's tail, else the latest tail the wrapper shipped
 * while the command ran (all there is of a running attempt on Lambda, or of one that ended without a report).
 */
const storedTail = (attempt: AttemptRow | null): string => attempt?.output_tail ?? attempt?.live_tail ?? '';

const clip = (line: string) => (line.length > LOG_LINE_MAX ? `${line.slice(0, LOG_LINE_MAX - 1)}…` : line);

/** The last lines that fit in {@link LOG_MAX_BYTES}, as text with a newline after each. */
export function boundedText(lines: readonly string[]): string {
  const out: string[] = [];
  let bytes = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const size = Buffer.byteLength(lines[i]!) + 1;
    if (bytes + size > LOG_MAX_BYTES) break;
    bytes += size;
    out.push(lines[i]!);
  }
  return out
    .reverse()
    .map((l) => `${l}\n`)
    .join('');
}

/** The lines of `tail` after the last line already passed on (`seen`), or all of it when none matches. */
function linesAfter(seen: readonly string[], tail: readonly string[]): string[] {
  if (seen.length === 0) return [...tail];
  const last = seen[seen.length - 1];
  const before = seen.length > 1 ? seen[seen.length - 2] : undefined;
  for (let i = tail.length - 1; i >= 0; i--) {
    if (tail[i] === last && (i === 0 || before === undefined || tail[i - 1] === before)) return tail.slice(i + 1);
  }
  return newLines(seen, tail);
}

export function createLogLibrary(deps: LogLibraryDeps) {
  const settings = { ...DEFAULT_LOG_SETTINGS, ...deps.settings };

  /** A job's attempt `n`; without `n`, the latest when asked (or the first to come, before any). */
  async function jobTarget(accountId: string, jobId: string, n?: number): Promise<LogTarget> {
    const job = await deps.jobs.find(accountId, jobId);
    if (!job) throw new NotFoundError(`No job ${jobId}.`);
    if (n !== undefined && !(await deps.jobs.attempts(jobId)).some((a) => a.n === n))
      throw new NotFoundError(`Job ${jobId} has no attempt ${n}.`);
    let pinned = n;
    return {
      accountId,
      async resolve() {
        const [current, attempts] = await Promise.all([deps.jobs.find(accountId, jobId), deps.jobs.attempts(jobId)]);
        pinned ??= attempts[attempts.length - 1]?.n;
        const attempt = attempts.find((a) => a.n === pinned) ?? null;
        const instance = attempt?.instance_id ? await deps.instances.findById(attempt.instance_row_id) : null;
        const status = current!.status;
        let ended: { status: string; exit_code: number | null } | null = null;
        if (attempt?.ended_at) {
          // The job's status follows its attempt's end a moment later (a retry, or the job's end): wait for it.
          const settled =
            status !== 'running' ||
            attempts.some((a) => a.n > attempt.n) ||
            Date.now() - Date.parse(attempt.ended_at) > 60_000;
          if (settled) ended = { status, exit_code: attempt.reported_at ? attempt.exit_code : null };
        } else if (!attempt && FINAL_JOB.has(status)) ended = { status, exit_code: current!.exit_code };
        return { instance, attempt, ended };
      },
    };
  }

  async function instanceTarget(accountId: string, providerInstanceId: string): Promise<LogTarget> {
    const row = await deps.instances.findByProviderId(accountId, providerInstanceId);
    if (!row) throw new NotFoundError(`No instance ${providerInstanceId} in this account.`);
    const attempt = await deps.jobs.attemptOfInstance(accountId, row.id);
    if (!deps.adapters[row.provider].logs && !attempt) {
      throw new UnsupportedOperationError(
        `${row.provider} has no log API: only a job's instances have logs there (the tail the job reported).`,
      );
    }
    return {
      accountId,
      async resolve() {
        const instance = (await deps.instances.findById(row.id)) ?? row;
        const a = attempt && (await deps.jobs.attemptOfInstance(accountId, row.id));
        const ended = ENDED_INSTANCE.has(instance.status)
          ? { status: instance.status, exit_code: a?.reported_at ? a.exit_code : null }
          : null;
        return { instance, attempt: a ?? null, ended };
      },
    };
  }

  /** The provider's lines of a live instance, or null where it has none (no log API, gone, not created yet). */
  async function providerLines(
    accountId: string,
    instance: InstanceRow | null,
    tailLines: number,
    follow: boolean,
    signal?: AbortSignal,
  ): Promise<AsyncIterator<string> | null> {
    if (!instance?.provider_instance_id || GONE_INSTANCE.has(instance.status)) return null;
    const logs = deps.adapters[instance.provider].logs;
    if (!logs) return null;
    const key = await deps.credentials.requireApiKey(accountId, instance.provider);
    return logs(key, instance.provider_instance_id, { tailLines, follow, signal })[Symbol.asyncIterator]();
  }

  /** The last `tailLines` lines, bounded in bytes. */
  async function tail(target: LogTarget, tailLines: number): Promise<string> {
    const { instance, attempt } = await target.resolve();
    const stored = () => splitLines(storedTail(attempt)).slice(-tailLines || Infinity);
    let lines: string[] = [];
    const live = await providerLines(target.accountId, instance, tailLines, false);
    if (live) {
      try {
        for (let r = await live.next(); !r.done; r = await live.next()) lines.push(clip(r.value));
      } catch (err) {
        // Gone at the provider since the row was read: what the job reported is all there is.
        if ((err as { kind?: string }).kind !== 'not_found') throw err;
        lines = stored();
      }
    } else lines = stored();
    return boundedText(tailLines === 0 ? [] : lines.slice(-tailLines));
  }

  /**
   * Starts following: resolves once the provider's stream is open (a provider that fails at once throws here,
   * before anything is answered) with the function that runs the follow into a sink until the end or `signal`.
   */
  async function follow(
    target: LogTarget,
    tailLines: number,
    signal: AbortSignal,
  ): Promise<(sink: LogSink) => Promise<void>> {
    const stop = new AbortController();
    const both = AbortSignal.any([signal, stop.signal]);
    const seen: string[] = [];
    const waiting: string[] = [];
    let sink: LogSink | null = null;
    const pass = (line: string) => {
      seen.push(line);
      if (seen.length > 2_000) seen.splice(0, 1_000);
      if (sink) sink.line(clip(line));
      else waiting.push(line);
    };
    let pump: Promise<void> | null = null;
    /** Starts passing the provider's lines on; the first answer, or null where the provider has none. */
    const openLive = async (instance: InstanceRow | null) => {
      const live = await providerLines(target.accountId, instance, tailLines, true, both);
      if (!live) return null;
      const firstAnswer = live.next();
      pump = (async () => {
        try {
          for (let r = await firstAnswer; !r.done; r = await live.next()) pass(r.value);
        } catch (err) {
          if (!both.aborted) deps.logger.warn('a followed provider log broke', { err: (err as Error).message });
        }
      })();
      return { first: firstAnswer };
    };

    const first = await target.resolve();
    if (first.ended) {
      const text = await tail(target, tailLines);
      return async (s) => {
        for (const l of splitLines(text)) s.line(l);
        s.end(first.ended!);
      };
    }
    const opened = await openLive(first.instance);
    if (opened) {
      // A provider that is down fails within moments: then the request is answered with its error.
      const failed = await Promise.race([
        opened.first.then(
          () => null,
          (err: unknown) => err,
        ),
        pause(settings.openCheckMs, both),
      ]);
      if (failed instanceof Error) {
        stop.abort();
        throw failed;
      }
    } else if (first.attempt && storedTail(first.attempt)) {
      for (const l of splitLines(storedTail(first.attempt)).slice(-tailLines || Infinity)) pass(l);
    }
    return async (s) => {
      sink = s;
      for (const l of waiting.splice(0)) s.line(clip(l));
      try {
        for (;;) {
          const now = await target.resolve();
          if (now.ended) {
            // What the provider had no time to show (a Vast upload between two looks) is in the reported tail.
            for (const l of linesAfter(seen, splitLines(now.attempt?.output_tail ?? ''))) pass(l);
            s.end(now.ended);
            return;
          }
          if (!pump && now.instance?.provider_instance_id) await openLive(now.instance).catch(() => null);
          // No log API (Lambda): the lines the wrapper's latest shipped tail adds.
          if (!pump && now.attempt && !deps.adapters[now.attempt.provider].logs)
            for (const l of linesAfter(seen, splitLines(now.attempt.live_tail ?? ''))) pass(l);
          if (!(await pause(settings.statusPollMs, signal))) return;
        }
      } finally {
        stop.abort();
        await pump;
      }
    };
  }

  return { jobTarget, instanceTarget, tail, follow };
}
export type LogLibrary = ReturnType<typeof createLogLibrary>;

/** Waits `ms`; false when `signal` aborted first. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', aborted);
      resolve(ok);
    };
    const aborted = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', aborted, { once: true });
  });
}
