/** How `gpuo` answers: aligned tables for people, JSON for scripts (`--json`), exit codes by error class. */
import { GpuoError } from '../../../sdk/src';

/** Exit codes: 0 done; 1 unexpected; 2 usage or invalid input; 3 key refused (401/403); 4 not found; 5 refused (402/409/422); 6 unavailable or rate limited. */
export const EXIT = { ok: 0, unexpected: 1, usage: 2, auth: 3, notFound: 4, refused: 5, unavailable: 6 } as const;

export class UsageError extends Error {}

export function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError) return EXIT.usage;
  if (!(err instanceof GpuoError)) return EXIT.unexpected;
  if (err.status === 400) return EXIT.usage;
  if (err.status === 401 || err.status === 403) return EXIT.auth;
  if (err.status === 404) return EXIT.notFound;
  if ([402, 409, 422].includes(err.status)) return EXIT.refused;
  if (err.status === 429 || err.status >= 500) return EXIT.unavailable;
  return EXIT.unexpected;
}

export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)\n';
  const cell = (v: unknown) => (v === null || v === undefined ? '-' : Array.isArray(v) ? v.join(',') : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n') + '\n';
}

export interface Out {
  json: boolean;
  /** Prints `value` as JSON, or the human rendering. */
  print(value: unknown, human: () => string): void;
  /** Progress for people, on stderr (never mixed into --json output). */
  progress(message: string): void;
}

export function createOut(json: boolean): Out {
  return {
    json,
    print: (value, human) => process.stdout.write(json ? JSON.stringify(value, null, 2) + '\n' : human()),
    progress: (message) => {
      if (!json) process.stderr.write(message);
    },
  };
}

/** The error for people (message and code) or as JSON on stdout with --json; returns the exit code. */
export function reportError(err: unknown, json: boolean): number {
  const code = exitCodeFor(err);
  if (err instanceof GpuoError) {
    if (json) process.stdout.write(JSON.stringify({ error: { status: err.status, code: err.code, message: err.message, request_id: err.requestId } }) + '\n');
    else process.stderr.write(`error: ${err.message} (${err.code}, HTTP ${err.status}${err.requestId ? `, request ${err.requestId}` : ''})\n`);
  } else {
    const message = (err as Error)?.message ?? String(err);
    if (json) process.stdout.write(JSON.stringify({ error: { code: code === EXIT.usage ? 'usage' : 'error', message } }) + '\n');
    else process.stderr.write(`error: ${message}\n`);
  }
  return code;
}
