/**
 * The slonik pool. Every query carries a zod row schema (`sql.type(...)`), and the result-parser interceptor
 * checks each row against it at run time, so a query module's types are what the database really returned.
 */
import {
  createPool,
  createTypeParserPreset,
  type DatabasePool,
  type Interceptor,
  type QueryResultRow,
  SchemaValidationError,
} from 'slonik';

export type Pool = DatabasePool;

/**
 * Synchronous on purpose: no row schema has an asynchronous refinement, and zod's asynchronous parse (with
 * slonik's per-row concurrency limit around it) makes a promise for every field of every row.
 */
const resultParserInterceptor: Interceptor = {
  name: 'result-parser',
  transformRow: (context, query, row) => {
    const parser = context.resultParser;
    if (!parser) return row;
    const result = parser.safeParse(row);
    if (!result.success) throw new SchemaValidationError(query, row, result.error.issues);
    return result.data as QueryResultRow;
  },
};

/** int8 as a JS number (ids and micro-dollar amounts stay far below 2^53; refuse anything that does not). */
const int8AsNumber = {
  name: 'int8',
  parse: (value: string) => {
    const n = Number(value);
    if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${value} is outside the safe integer range`);
    return n;
  },
};

/** timestamptz as an ISO 8601 UTC string with `Z`, the shape every API record uses. */
const timestamptzAsIso = {
  name: 'timestamptz',
  parse: (value: string) => new Date(value).toISOString(),
};

export async function createDatabasePool(
  url: string,
  options: { maximumPoolSize?: number; statementTimeoutMs?: number } = {},
): Promise<Pool> {
  const preset = createTypeParserPreset().filter((p) => p.name !== 'int8' && p.name !== 'timestamptz');
  const pool = await createPool(url, {
    interceptors: [resultParserInterceptor],
    typeParsers: [...preset, int8AsNumber, timestamptzAsIso],
    maximumPoolSize: options.maximumPoolSize ?? 10,
    connectionTimeout: 10_000,
    statementTimeout: options.statementTimeoutMs ?? 30_000,
    // slonik's default runs `DISCARD ALL` each time a connection goes back to the pool: a round trip per
    // query or transaction (about 10 per launch). The pool's connections carry no session state to discard:
    // no session `SET`, no session advisory lock (only `pg_advisory_xact_lock`), no `LISTEN` (the listeners
    // and the migrator use clients of their own), no temporary table; `test/lint/pool-session-state.test.ts`
    // keeps it so.
    resetConnection: async () => undefined,
  });
  // slonik also emits every query error on the pool; the same error is thrown to the caller, who handles it.
  // Without a listener, EventEmitter would replace the thrown error with ERR_UNHANDLED_ERROR.
  pool.on('error', () => undefined);
  return pool;
}
