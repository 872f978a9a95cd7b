/**
 * The pool hands a connection from one caller to the next without `DISCARD ALL` (`src/db/pool.ts`), so no
 * code may leave session state on a pooled connection: no session `SET` or `set_config(…, false)`, no session
 * advisory lock, no `LISTEN`, no temporary table, no `PREPARE`, no transaction opened by hand. A file that
 * needs one of them opens a `pg` `Client` of its own (the LISTEN-fed pricing cache and outbox listener, the
 * migrator's advisory lock and transactions).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const ROOTS = ['src', 'activities', 'workflows'];

/** SQL that leaves state on the session that runs it (matched at a statement's start or as a call). */
const SESSION_STATE: { what: string; pattern: RegExp }[] = [
  { what: 'a session SET', pattern: /[`'"]\s*SET\s+(?!LOCAL\b)(?:SESSION\s+)?\w+\s*(?:=|TO\b)/i },
  { what: 'set_config(…, false)', pattern: /set_config\([^)]*,\s*false\s*\)/i },
  { what: 'a session advisory lock', pattern: /pg_(?:try_)?advisory_lock(?:_shared)?\s*\(/i },
  { what: 'LISTEN', pattern: /[`'"]\s*LISTEN\s/i },
  { what: 'a temporary table', pattern: /CREATE\s+(?:LOCAL\s+|GLOBAL\s+)?TEMP(?:ORARY)?\s+TABLE/i },
  { what: 'PREPARE', pattern: /[`'"]\s*PREPARE\s+\w+/i },
  // A transaction opened by hand could go back to the pool still open; `pool.transaction` commits or rolls back.
  { what: 'a transaction opened by hand', pattern: /[`'"]\s*(?:BEGIN|START\s+TRANSACTION)\b/i },
];

/** A file that opens a `pg` Client of its own keeps its session to itself. */
const OWN_CLIENT = /new\s+(?:Pg)?Client\(\s*\{\s*connectionString/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

export function sessionStateIn(text: string): string[] {
  if (OWN_CLIENT.test(text)) return [];
  return SESSION_STATE.filter(({ pattern }) => pattern.test(text)).map(({ what }) => what);
}

describe('pooled connections carry no session state', () => {
  it('no file that queries through the pool sets session state', () => {
    const offenders = ROOTS.flatMap((r) => sourceFiles(path.join(root, r)))
      .map((file) => ({ file: path.relative(root, file), found: sessionStateIn(readFileSync(file, 'utf8')) }))
      .filter((o) => o.found.length > 0)
      .map((o) => `${o.file}: ${o.found.join(', ')}`);
    expect(offenders).toEqual([]);
  });

  it('tells each kind of session state from the statements the code does run', () => {
    expect(sessionStateIn('await pool.query(sql.unsafe`SET statement_timeout = 0`)')).toEqual(['a session SET']);
    expect(sessionStateIn("tx.query(sql.unsafe`SET LOCAL lock_timeout = '1s'`)")).toEqual([]);
    expect(sessionStateIn('sql.unsafe`UPDATE instances\n  SET status = $1`')).toEqual([]);
    expect(sessionStateIn("sql.unsafe`SELECT set_config('app.x', '1', false)`")).toEqual(['set_config(…, false)']);
    expect(sessionStateIn('sql.unsafe`SELECT pg_advisory_lock(1)`')).toEqual(['a session advisory lock']);
    expect(sessionStateIn('sql.unsafe`SELECT FROM pg_advisory_xact_lock(1)`')).toEqual([]);
    expect(sessionStateIn('pool.query(sql.unsafe`LISTEN events_outbox`)')).toEqual(['LISTEN']);
    expect(sessionStateIn('sql.unsafe`CREATE TEMP TABLE t (x int)`')).toEqual(['a temporary table']);
    expect(sessionStateIn('await connection.query(sql.unsafe`BEGIN`)')).toEqual(['a transaction opened by hand']);
    expect(sessionStateIn("const c = new Client({ connectionString: url }); c.query('LISTEN x')")).toEqual([]);
  });
});
