/**
 * Reading an instance's container output at the providers that have a log API:
 * - RunPod `GET /v2/pods/{id}/logs`: server-sent events whose `data` is `{"ts","source","line"}`, `tail` lines
 *   of backfill first. The stream has no end-of-backfill marker: a read without `follow` takes what arrives
 *   until the stream closes or stays quiet for `quietMs`.
 * - Vast.ai `PUT /api/v0/instances/request_logs/{id}` `{tail}` answers a `result_url` where the text appears a
 *   moment later (404 until then). `follow` asks again every `pollMs` and passes on the lines that are new
 *   since the last answer (a window of the last lines, matched on its overlap with the one before).
 */
import { ProviderRequestError } from '../errors';
import type { ProviderHttp } from './http';
import type { LogRead } from './types';

export interface LogTiming {
  /** RunPod: how long a read without `follow` waits for another backfill line before it stops (500 ms). */
  quietMs: number;
  /** Vast.ai: between two requests of a followed log (2 s). */
  pollMs: number;
  /** Vast.ai: between looks at a `result_url` not written yet (250 ms). */
  uploadPollMs: number;
  /** Vast.ai: how long an upload may take before the read fails as the provider being unavailable (30 s). */
  uploadWaitMs: number;
}

export const DEFAULT_LOG_TIMING: LogTiming = { quietMs: 500, pollMs: 2_000, uploadPollMs: 250, uploadWaitMs: 30_000 };

/** Lines of a followed Vast.ai log compared between two answers. */
const VAST_FOLLOW_WINDOW = 2_000;

/** One server-sent event. */
export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/** The events of a server-sent event stream, as they arrive (comments and retry hints skipped). */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: SseEvent = { event: 'message', data: '' };
  let hasData = false;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    const lines = buffer.split(/\r\n|\r|\n/);
    buffer = lines.pop()!;
    for (const line of lines) {
      if (line === '') {
        if (hasData) yield event;
        event = { event: 'message', data: '' };
        hasData = false;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') {
        event.data = hasData ? `${event.data}\n${value}` : value;
        hasData = true;
      } else if (field === 'event') event.event = value;
      else if (field === 'id') event.id = value;
    }
  }
}

/** Splits provider text into lines the way a terminal shows them (CR, LF and CRLF each end a line). */
export const splitLines = (text: string): string[] => {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
};

/**
 * The lines of `next` that were not in `prev`, where both are windows of the last lines of one growing log:
 * the smallest shift of `prev` whose rest is where `next` starts. With no overlap at all, all of `next`.
 */
export function newLines(prev: readonly string[], next: readonly string[]): string[] {
  for (let shift = 0; shift < prev.length; shift++) {
    const kept = prev.length - shift;
    if (kept > next.length) continue;
    let same = true;
    for (let i = 0; i < kept && same; i++) same = prev[shift + i] === next[i];
    if (same) return next.slice(kept);
  }
  return [...next];
}

/** RunPod's log stream of a pod, as lines. */
export async function* runpodLogs(
  http: ProviderHttp,
  apiKey: string,
  id: string,
  read: LogRead,
  timing: LogTiming = DEFAULT_LOG_TIMING,
): AsyncGenerator<string> {
  const done = new AbortController();
  const signal = read.signal ? AbortSignal.any([done.signal, read.signal]) : done.signal;
  const res = await http.stream({
    method: 'GET',
    path: `/pods/${encodeURIComponent(id)}/logs`,
    apiKey,
    query: { source: 'container', tail: Math.min(read.tailLines, 5000) },
    signal,
  });
  if (!res.body) return;
  const events = readSse(res.body);
  try {
    for (;;) {
      const next = events.next();
      const event = read.follow ? await next : await quietOrNext(next, timing.quietMs);
      if (event === 'quiet' || event.done) return;
      if (event.value.event !== 'message') continue;
      const line = lineOf(event.value.data);
      if (line !== null) yield line;
    }
  } catch (err) {
    if (signal.aborted) return;
    throw new ProviderRequestError('runpod', 'transient', `the RunPod log stream broke: ${(err as Error).message}`);
  } finally {
    done.abort();
    void events.return(undefined).catch(() => undefined);
  }
}

/** RunPod's `data`: `{"line": …}` (other shapes are skipped). */
function lineOf(data: string): string | null {
  try {
    const parsed = JSON.parse(data) as { line?: unknown };
    return typeof parsed.line === 'string' ? parsed.line : null;
  } catch {
    return null;
  }
}

async function quietOrNext<T>(next: Promise<T>, quietMs: number): Promise<T | 'quiet'> {
  let timer: NodeJS.Timeout | undefined;
  const quiet = new Promise<'quiet'>((resolve) => (timer = setTimeout(() => resolve('quiet'), quietMs)));
  try {
    return await Promise.race([next, quiet]);
  } finally {
    clearTimeout(timer);
  }
}

/** Vast.ai's uploaded log of an instance, as lines; followed by asking again. */
export async function* vastLogs(
  http: ProviderHttp,
  apiKey: string,
  id: string,
  read: LogRead,
  timing: LogTiming = DEFAULT_LOG_TIMING,
): AsyncGenerator<string> {
  const window = read.follow ? Math.max(read.tailLines, VAST_FOLLOW_WINDOW) : read.tailLines;
  let prev: string[] | null = null;
  for (;;) {
    const lines = await vastUpload(http, apiKey, id, window, timing, read.signal);
    if (prev !== null) yield* newLines(prev, lines);
    else if (read.tailLines > 0) yield* lines.slice(-read.tailLines);
    if (!read.follow) return;
    prev = lines;
    if (!(await pause(timing.pollMs, read.signal))) return;
  }
}

/** Asks Vast.ai for the last `tail` lines and waits for its upload. */
async function vastUpload(
  http: ProviderHttp,
  apiKey: string,
  id: string,
  tail: number,
  timing: LogTiming,
  signal: AbortSignal | undefined,
): Promise<string[]> {
  const asked = await http.request<{ result_url?: unknown }>({
    method: 'PUT',
    path: `/api/v0/instances/request_logs/${encodeURIComponent(id)}/`,
    apiKey,
    body: { tail: String(tail) },
  });
  const url = asked.body?.result_url;
  if (typeof url !== 'string' || !/^https?:\/\//.test(url))
    throw http.errorFor('provider_error', 'request_logs answered without a result_url', apiKey);
  const deadline = Date.now() + timing.uploadWaitMs;
  for (;;) {
    // A presigned storage URL: fetched without the account's key.
    const res = await fetch(url, { signal: signal ?? AbortSignal.timeout(timing.uploadWaitMs) }).catch(() => null);
    if (res?.ok) return splitLines(await res.text());
    await res?.body?.cancel();
    if (Date.now() >= deadline)
      throw http.errorFor('transient', `the logs were not uploaded within ${timing.uploadWaitMs} ms`, apiKey);
    if (!(await pause(timing.uploadPollMs, signal))) return [];
  }
}

/** Waits `ms`; false when `signal` aborted first. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', aborted);
      resolve(ok);
    };
    const aborted = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
