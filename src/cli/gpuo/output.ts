/** How `gpuo` answers: aligned tables for people, JSON for scripts (`--output json`), exit codes by error class. */
import { GpuoError } from '../../../sdk/src';

/**
 * Exit codes: 0 done; 1 unexpected; 2 usage or invalid input (a bad command line, or the API's 400);
 * 3 key refused (401/403); 4 not found; 5 refused (402/409/422); 6 unavailable or rate limited (429/5xx).
 * A command that runs another program (`gpuo ssh`) exits with that program's code.
 */
export const EXIT = { ok: 0, unexpected: 1, usage: 2, auth: 3, notFound: 4, refused: 5, unavailable: 6 } as const;

/** A command line the CLI cannot run: reported with the command's usage, exit code 2. */
export class UsageError extends Error {
  /** The usage of the command it concerns, filled in by the dispatcher when the command is known. */
  usage?: string;
}

/** A refusal the CLI itself decides (nothing to connect to, an instance with no SSH yet): exit code 5. */
export class RefusedError extends Error {}

export function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof RefusedError) return EXIT.refused;
  if (!(err instanceof GpuoError)) return EXIT.unexpected;
  if (err.status === 400) return EXIT.usage;
  if (err.status === 401 || err.status === 403) return EXIT.auth;
  if (err.status === 404) return EXIT.notFound;
  if ([402, 409, 422].includes(err.status)) return EXIT.refused;
  if (err.status === 429 || err.status >= 500) return EXIT.unavailable;
  return EXIT.unexpected;
}

const cell = (v: unknown): string => {
  if (v === null || v === undefined) return '-';
  if (Array.isArray(v))
    return v.map((x) => (typeof x === 'object' && x !== null ? JSON.stringify(x) : String(x))).join(',');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
};

export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)\n';
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return (
    [line(columns.map((c) => c.toUpperCase())), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n') +
    '\n'
  );
}

/** One record as `key  value` lines, for commands that answer a single object. */
export function record(value: Record<string, unknown>, keys: string[] = Object.keys(value)): string {
  const width = Math.max(...keys.map((k) => k.length));
  return keys.map((k) => `${k.padEnd(width)}  ${cell(value[k])}`).join('\n') + '\n';
}

/** Where the CLI reads and writes: the process's streams, or a test's. */
export interface Io {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  env: NodeJS.ProcessEnv;
}

export type OutputFormat = 'json' | 'table';

export interface Out {
  format: OutputFormat;
  /** Prints `value` as JSON, or the human rendering. */
  print(value: unknown, human: () => string): void;
  /** Progress and hints for people, on stderr (never mixed into JSON output). */
  progress(message: string): void;
}

export function createOut(format: OutputFormat, io: Io): Out {
  return {
    format,
    print: (value, human) => io.stdout.write(format === 'json' ? JSON.stringify(value, null, 2) + '\n' : human()),
    progress: (message) => {
      if (format !== 'json') io.stderr.write(message);
    },
  };
}

/**
 * The error for people (message and code, and the usage after a usage error) on stderr, or as JSON on stdout
 * with `--output json` (the usage still goes to stderr); returns the exit code.
 */
export function reportError(err: unknown, format: OutputFormat, io: Io): number {
  const code = exitCodeFor(err);
  const json = format === 'json';
  if (err instanceof GpuoError) {
    if (json)
      io.stdout.write(
        JSON.stringify({
          error: { status: err.status, code: err.code, message: err.message, request_id: err.requestId },
        }) + '\n',
      );
    else
      io.stderr.write(
        `error: ${err.message} (${err.code}, HTTP ${err.status}${err.requestId ? `, request ${err.requestId}` : ''})\n`,
      );
    return code;
  }
  const message = (err as Error)?.message ?? String(err);
  if (json)
    io.stdout.write(
      JSON.stringify({
        error: { code: code === EXIT.usage ? 'usage' : code === EXIT.refused ? 'refused' : 'error', message },
      }) + '\n',
    );
  else io.stderr.write(`error: ${message}\n`);
  if (err instanceof UsageError && err.usage) io.stderr.write(json ? err.usage : `\n${err.usage}`);
  return code;
}
