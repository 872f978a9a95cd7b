/**
 * A small structured logger: one JSON object per line on stdout (stderr for errors). Fields named like
 * secrets are replaced before anything is written, so a key can never reach a log line by accident.
 * An Error in a field becomes `{name, message, type?, cause?}`; its stack is added only at level `debug`
 * (JSON escapes the newlines, so even then it stays one line).
 */
import { types } from 'node:util';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SECRET_FIELD = /(api_?key|authorization|password|secret|token)/i;

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
  return v instanceof Error || types.isNativeError(v);
}

function scrub(fields: Record<string, unknown>, withStack: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (SECRET_FIELD.test(k)) out[k] = '[redacted]';
    else if (isError(v)) out[k] = describeError(v, withStack);
    else if (k === 'stack' && !withStack) continue;
    else out[k] = v;
  }
  return out;
}

function safeReplacer() {
  const seen = new WeakSet<object>();
  return (_key: string, value: unknown) => {
    if (typeof value === 'bigint') return value.toString();
    if (value && typeof value === 'object') {
      if (seen.has(value)) return '[circular]';
      seen.add(value);
    }
    return value;
  };
}

/** Where finished lines go; default: stdout, stderr for errors. */
export type LogSink = (line: string, level: Exclude<LogLevel, 'silent'>) => void;

const stdSink: LogSink = (line, level) => (level === 'error' ? process.stderr : process.stdout).write(line + '\n');

export function createLogger(level: LogLevel = 'info', base: Record<string, unknown> = {}, sink: LogSink = stdSink): Logger {
  const threshold = LEVEL_RANK[level];
  const withStack = threshold <= LEVEL_RANK.debug;
  const write = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>) => {
    if (LEVEL_RANK[lvl] < threshold) return;
    const entry = { time: new Date().toISOString(), level: lvl, msg, ...scrub({ ...base, ...fields }, withStack) };
    let line: string;
    try {
      line = JSON.stringify(entry);
    } catch {
      line = JSON.stringify(entry, safeReplacer()); // a cycle or a bigint in some field: still one JSON line
    }
    sink(line, lvl);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => createLogger(level, { ...base, ...fields }, sink),
  };
}

/** A logger that writes nothing (tests, benchmarks). */
export const silentLogger: Logger = createLogger('silent');

/**
 * For the long-running processes: uncaught exceptions, unhandled rejections and Node's own warnings become
 * one JSON line each instead of a multi-line stack on stderr (the first two still end the process, code 1).
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
