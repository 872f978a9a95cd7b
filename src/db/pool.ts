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

const resultParserInterceptor: Interceptor = {
  name: 'result-parser',
  transformRowAsync: async (context, query, row) => {
    const parser = context.resultParser;
    if (!parser) return row;
    const result = await parser.safeParseAsync(row);
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

export async function createDatabasePool(url: string, options: { maximumPoolSize?: number } = {}): Promise<Pool> {
  const preset = createTypeParserPreset().filter((p) => p.name !== 'int8' && p.name !== 'timestamptz');
  const pool = await createPool(url, {
    interceptors: [resultParserInterceptor],
    typeParsers: [...preset, int8AsNumber, timestamptzAsIso],
    maximumPoolSize: options.maximumPoolSize ?? 10,
    connectionTimeout: 10_000,
    statementTimeout: 30_000,
  });
  // slonik also emits every query error on the pool; the same error is thrown to the caller, who handles it.
  // Without a listener, EventEmitter would replace the thrown error with ERR_UNHANDLED_ERROR.
  pool.on('error', () => undefined);
  return pool;
}
