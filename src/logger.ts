/**
 * The structured logger: pino underneath, one JSON object per line (`time`, `level`, `msg`, then fields) on
 * stdout, errors on stderr. A request never waits on a `write`: stdout lines are gathered in a batch written
 * whole a few times a second (and when the process exits), in the order they were logged. Secrets never reach
 * a line: any field whose name looks like a secret (`api_key`, `authorization`, `token`, ...) is replaced by
 * `[redacted]`, at the top
 * level and nested up to four levels (the scrubber), and pino's redaction paths cover the credential
 * containers (`headers.authorization`, `body.api_key`, ...). An Error in a field becomes
 * `{name, message, type?, cause?}`; its stack is added only at level `debug` (JSON escapes the newlines, so
 * even then it stays one line).
 *
 * Call sites keep the `(msg, fields)` order; `child(fields)` binds fields once (pino serialises them once per
 * child, not per line).
 */
import { types } from 'node:util';
import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';
import { requestLineText, type RequestLogFields } from './request-line';

export type { RequestLogFields } from './request-line';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** Field names (any case, anywhere in the name) whose values are never written. */
const SECRET_FIELD = /(api_?key|authorization|password|secret|token|cookie)/i;
/**
 * Pino redaction paths for the containers that carry credentials by nature (HTTP headers, request bodies,
 * provider call configs). Each path is keyed by its container, so a line without such a field pays nothing
 * (pino runs a wildcard-first path like `*.api_key` on every top-level value of every line, which cost a
 * third of the API's CPU on GET /v1/pricing). Secret-named keys anywhere else are caught by the scrubber below.
 */
const SECRET_NAMES = [
  'authorization',
  'Authorization',
  'api_key',
  'apiKey',
  'x-api-key',
  'cookie',
  'Cookie',
  'secret',
  'password',
  'token',
];
const CONTAINERS = [
  'headers',
  'body',
  'config',
  'request.headers',
  'request.body',
  'config.headers',
  'input',
  'params',
];
export const REDACTED_PATHS = CONTAINERS.flatMap((c) =>
  SECRET_NAMES.map((n) => `${c}${/^[A-Za-z_$][\w$]*$/.test(n) ? `.${n}` : `["${n}"]`}`),
);
const REDACTED = '[redacted]';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

/** An error as a JSON-friendly object: name, message, failure type, cause chain; the stack when asked for. */
export function describeError(err: Error, withStack: boolean, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = { name: err.name, message: err.message };
  const type = (err as { type?: unknown }).type;
  if (typeof type === 'string') out.type = type;
  if (withStack && err.stack) out.stack = err.stack;
  const cause = (err as { cause?: unknown }).cause;
  if (isError(cause) && depth < 4) out.cause = describeError(cause, withStack, depth + 1);
  return out;
}

/** An Error from any realm (errors made by Node internals are not `instanceof Error` under jest's VM). */
function isError(v: unknown): v is Error {
  // Most fields are primitives: answered without the native check (a call into C++ per field per line).
  return typeof v === 'object' && v !== null && (v instanceof Error || types.isNativeError(v));
}

/** Whether a top-level field name is secret-like; names repeat, so the answer is cached. */
const secretName = new Map<string, boolean>();
function isSecretName(key: string): boolean {
  let secret = secretName.get(key);
  if (secret === undefined) {
    secret = SECRET_FIELD.test(key);
    if (secretName.size < 10_000) secretName.set(key, secret);
  }
  return secret;
}

/** Whether a nested value holds a secret-named key within `depth` levels (plain objects and arrays only). */
function holdsSecret(value: unknown, depth: number): boolean {
  if (depth === 0 || value === null || typeof value !== 'object' || isError(value)) return false;
  if (Array.isArray(value)) return value.some((v) => holdsSecret(v, depth - 1));
  for (const key in value)
    if (isSecretName(key) || holdsSecret((value as Record<string, unknown>)[key], depth - 1)) return true;
  return false;
}

/** A copy of a nested value with its secret-named keys redacted (only called when `holdsSecret`). */
function redactNested(value: unknown, depth: number): unknown {
  if (depth === 0 || value === null || typeof value !== 'object' || isError(value)) return value;
  if (Array.isArray(value)) return value.map((v) => redactNested(v, depth - 1));
  const out: Record<string, unknown> = {};
  for (const key in value)
    out[key] = isSecretName(key) ? REDACTED : redactNested((value as Record<string, unknown>)[key], depth - 1);
  return out;
}

const NESTED_DEPTH = 4;

/**
 * The pass over a line's fields (and a child's bindings): secret-named fields redacted at the top level and
 * up to four levels down, errors described, a `stack` field dropped below debug. Allocates a copy only when
 * something changes, so the common line (the request log, all primitives) passes through untouched.
 */
function scrubber(withStack: boolean) {
  // `err` and `error` are left to the error serializers; any other field holding an Error is described here.
  const describes = (key: string, value: unknown) => key !== 'err' && key !== 'error' && isError(value);
  const needsWork = (key: string, value: unknown) =>
    isSecretName(key) || describes(key, value) || (key === 'stack' && !withStack) || holdsSecret(value, NESTED_DEPTH);
  return (fields: Record<string, unknown>): Record<string, unknown> => {
    let changed = false;
    for (const key in fields) {
      if (needsWork(key, fields[key])) {
        changed = true;
        break;
      }
    }
    if (!changed) return fields;
    const out: Record<string, unknown> = {};
    for (const key in fields) {
      const value = fields[key];
      if (isSecretName(key)) out[key] = REDACTED;
      else if (describes(key, value)) out[key] = describeError(value as Error, withStack);
      else if (key === 'stack' && !withStack) continue;
      else out[key] = holdsSecret(value, NESTED_DEPTH) ? redactNested(value, NESTED_DEPTH) : value;
    }
    return out;
  };
}

/** Stdout lines are written every LOG_FLUSH_INTERVAL_MS, or sooner once a batch of this many bytes is full. */
const LOG_BATCH_BYTES = 64 * 1024;
/** The longest a written line waits in the stdout buffer. */
const LOG_FLUSH_INTERVAL_MS = 100;

/** Where finished lines go instead of stdout/stderr (tests): one call per line, without the newline. */
export type LogSink = (line: string) => void;

/** Request lines the standard stdout stream holds back before formatting them in one pass. */
const REQUEST_QUEUE_LENGTH = 256;
/** A stream that takes request lines unformatted (the standard stdout stream): see `standardStreams`. */
const queueRequestLine = Symbol('queueRequestLine');
type RequestQueueing = { [queueRequestLine]?: (time: string, bindings: string, fields: RequestLogFields) => void };

/**
 * Stdout (batched) for everything below error, stderr for errors; both written synchronously. Pino tells a
 * stream that asks for metadata the level of the line it writes, so one branch replaces pino.multistream's
 * loop over its streams on every line.
 */
function standardStreams(): DestinationStream {
  // Stdout lines are encoded straight into a batch buffer and handed to sonic-boom one batch at a time:
  // sonic-boom's string mode measures the byte length of its whole pending batch on every line, lines kept as
  // strings until written outlive the young generation, and each write is a libuv pool request (an async
  // resource, a thread wake-up that the main thread paid for like a whole request under load). So: a few
  // writes a second, whatever the request rate.
  // Synchronous: a batch is written whole when it is handed over, so lines keep their order also when the
  // process exits (by process.exit included) while a batch is on its way; an asynchronous write in flight at
  // exit let the exit's synchronous flush overtake it (lines reordered, one cut: test/process/request-log).
  // A few writes a second, so the event loop pays little for it.
  const out = pino.destination({ dest: 1, sync: true, minLength: 0, contentMode: 'buffer' });
  // Errors are rare and matter most when the process is about to die: each is written before the call returns.
  const err = pino.destination({ dest: 2, sync: true });
  // Batches are reused once written (sonic-boom says 'drain', on the next tick, when all is written):
  // a fresh buffer per batch cost page faults on every line's first bytes, and garbage.
  const spare: Buffer[] = [];
  const writing: Buffer[] = [];
  out.on('drain', () => {
    for (const written of writing) if (spare.length < 2) spare.push(written);
    writing.length = 0;
  });
  let batch: Buffer = Buffer.allocUnsafeSlow(LOG_BATCH_BYTES);
  let used = 0;
  // Request lines (one per API request) are queued as their fields, with the time and bindings of the moment
  // they were logged, and formatted together: when the queue is full, before any other stdout line (so the
  // order of lines is kept), and with every hand-over. One tight formatting loop costs the server a fraction
  // of the same work spread between requests.
  const queued: (RequestLogFields | undefined)[] = new Array(REQUEST_QUEUE_LENGTH).fill(undefined);
  const queuedTimes: string[] = new Array<string>(REQUEST_QUEUE_LENGTH).fill('');
  const queuedBindings: string[] = new Array<string>(REQUEST_QUEUE_LENGTH).fill('');
  let queuedCount = 0;
  const drain = () => {
    const n = queuedCount;
    queuedCount = 0;
    for (let i = 0; i < n; i++) {
      append(requestLineText(queuedTimes[i]!, queuedBindings[i]!, queued[i]!));
      queued[i] = undefined;
    }
  };
  const handOver = () => {
    if (queuedCount > 0) drain();
    if (used === 0) return;
    const full = batch.subarray(0, used);
    writing.push(batch);
    batch = spare.pop() ?? Buffer.allocUnsafeSlow(LOG_BATCH_BYTES);
    used = 0;
    out.write(full as unknown as string);
  };
  const append = (line: string) => {
    // At most 3 bytes per UTF-16 unit: a line that might not fit goes after the batch (alone if it is huge).
    if (used + 3 * line.length > LOG_BATCH_BYTES) {
      handOver();
      if (3 * line.length > LOG_BATCH_BYTES) return void out.write(Buffer.from(line) as unknown as string);
    }
    used += (batch as Buffer & { utf8Write(s: string, offset: number): number }).utf8Write(line, used);
  };
  // A quiet process must not hold its last lines back (an operator, or a supervisor waiting for "worker
  // polling", reads them): whatever is gathered goes out within 100 ms.
  setInterval(() => {
    try {
      handOver();
    } catch {
      // not writable at this moment (closing, or the stream is not open yet): the next tick or exit flushes
    }
  }, LOG_FLUSH_INTERVAL_MS).unref();
  // On exit (process.exit included) the gathered lines are written synchronously, whichever of this listener
  // and pino's own flush (of sonic-boom's buffer) runs first.
  process.on('exit', () => {
    try {
      handOver();
      out.flushSync();
    } catch {
      // stdout is gone: nothing left to write to
    }
  });
  const ERROR = pino.levels.values.error!;
  const split: DestinationStream & RequestQueueing & { lastLevel: number; [k: symbol]: unknown } = {
    [Symbol.for('pino.metadata')]: true,
    lastLevel: 0,
    write(line: string) {
      if (split.lastLevel >= ERROR) return void err.write(line);
      if (queuedCount > 0) drain();
      append(line);
    },
    [queueRequestLine](time, bindings, fields) {
      queued[queuedCount] = fields;
      queuedTimes[queuedCount] = time;
      queuedBindings[queuedCount] = bindings;
      if (++queuedCount === REQUEST_QUEUE_LENGTH) drain();
    },
  };
  return split;
}

/** `,"time":"…"` for pino: the ISO string is made once per millisecond, not once per line. */
let lastMs = 0;
let lastTime = '';
function isoTime(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = `,"time":"${new Date(now).toISOString()}"`;
  }
  return lastTime;
}

let standard: DestinationStream | undefined;

function sinkStream(sink: LogSink): DestinationStream {
  return { write: (line: string) => sink(line.endsWith('\n') ? line.slice(0, -1) : line) };
}

export function createLogger(level: LogLevel = 'info', base: Record<string, unknown> = {}, sink?: LogSink): Logger {
  const withStack = level === 'debug';
  const scrub = scrubber(withStack);
  // A silent logger never opens the standard streams (tests and benchmarks create many).
  const destination = sink
    ? sinkStream(sink)
    : level === 'silent'
      ? { write: () => undefined }
      : (standard ??= standardStreams());
  const serializeError = (value: unknown) => (isError(value) ? describeError(value, withStack) : value);
  const root = pino(
    {
      level,
      base: null,
      messageKey: 'msg',
      timestamp: isoTime,
      serializers: { err: serializeError, error: serializeError },
      formatters: {
        level: (label) => ({ level: label }),
        log: scrub,
      },
      redact: { paths: REDACTED_PATHS, censor: REDACTED },
    },
    destination,
  );
  return wrap(Object.keys(base).length ? root.child(scrub(base)) : root, scrub);
}

function wrap(p: PinoLogger, scrub: (f: Record<string, unknown>) => Record<string, unknown>): Logger {
  const logger: Logger = {
    debug: (msg, fields) => (fields ? p.debug(fields, msg) : p.debug(msg)),
    info: (msg, fields) => (fields ? p.info(fields, msg) : p.info(msg)),
    warn: (msg, fields) => (fields ? p.warn(fields, msg) : p.warn(msg)),
    error: (msg, fields) => (fields ? p.error(fields, msg) : p.error(msg)),
    child: (fields) => wrap(p.child(scrub(fields)), scrub),
  };
  requestLines.set(logger, compiledRequestLine(p));
  return logger;
}

const requestLines = new WeakMap<Logger, (fields: RequestLogFields) => void>();
const INFO = pino.levels.values.info!;
/**
 * The `request` line, written per request: `logger.info('request', fields)`, or, for a logger of this module,
 * the very same bytes serialised by a function made for these seven fields (none secret-named, all
 * primitives, so the scrubber and redaction have nothing to do) instead of pino's generic pass over any
 * object: under load that pass was most of what the request log cost.
 * The standard stdout stream keeps the fields object until it formats its queue: pass a fresh one per line.
 */
export function requestLogLine(logger: Logger): (fields: RequestLogFields) => void {
  return requestLines.get(logger) ?? ((fields) => logger.info('request', fields as unknown as Record<string, unknown>));
}

function compiledRequestLine(p: PinoLogger): (f: RequestLogFields) => void {
  const stream = (
    p as unknown as Record<symbol, DestinationStream & RequestQueueing & { lastLevel?: number; [k: symbol]: unknown }>
  )[pino.symbols.streamSym]!;
  const metadata = stream[pino.symbols.needsMetadataGsym] === true;
  const bindings = (p as unknown as Record<symbol, string>)[pino.symbols.chindingsSym] ?? '';
  const queue = stream[queueRequestLine];
  if (queue) {
    return (f) => {
      if (p.levelVal <= INFO) queue(isoTime(), bindings, f);
    };
  }
  return (f) => {
    if (p.levelVal > INFO) return;
    if (metadata) stream.lastLevel = INFO;
    stream.write(requestLineText(isoTime(), bindings, f));
  };
}

/** A logger that writes nothing (tests, benchmarks). */
export const silentLogger: Logger = createLogger('silent');

/**
 * For the long-running processes: uncaught exceptions, unhandled rejections and Node's own warnings become
 * one JSON line each instead of a multi-line stack on stderr (the first two still end the process, code 1;
 * the asynchronous buffers are flushed on the way out).
 */
export function logUncaughtFailures(logger: Logger): void {
  const fatal = (msg: string) => (err: unknown) => {
    logger.error(msg, { err: err instanceof Error ? err : new Error(String(err)) });
    process.exit(1);
  };
  process.on('uncaughtException', fatal('uncaught exception'));
  process.on('unhandledRejection', fatal('unhandled promise rejection'));
  // Node prints warnings through a default 'warning' listener; replacing it keeps the stream JSON.
  process.removeAllListeners('warning');
  process.on('warning', (w) => logger.warn('node warning', { name: w.name, message: w.message }));
}
