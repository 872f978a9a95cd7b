/**
 * Classifies database failures, in one place for the API and the activities: a permanent one (the statement
 * can never succeed as sent: bad data, a constraint) is not worth retrying; an unreachable database (refused,
 * restarting, out of slots) is worth retrying later and answers 503; anything else is a plain failure.
 */
import {
  BackendTerminatedError,
  BackendTerminatedUnexpectedlyError,
  ConnectionError,
  DataIntegrityError,
  IntegrityConstraintViolationError,
  InvalidInputError,
  SchemaValidationError,
} from 'slonik';

/** SQLSTATE classes that no retry can fix: 22 data exception, 23 integrity violation, 42 syntax/undefined object. */
const PERMANENT_SQLSTATE = /^(22|23|42)/;

export function isPermanentDbError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (
      e instanceof IntegrityConstraintViolationError ||
      e instanceof InvalidInputError ||
      e instanceof DataIntegrityError ||
      e instanceof SchemaValidationError
    ) {
      return true;
    }
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && PERMANENT_SQLSTATE.test(code)) return true;
  }
  return false;
}

/**
 * Socket errors and Postgres SQLSTATEs that mean "the database is not there right now" (refused, reset,
 * shutting down, starting up, out of connection slots), as opposed to a query it refused.
 */
const DATABASE_UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '08000', // connection_exception
  '08001', // sqlclient_unable_to_establish_sqlconnection
  '08003', // connection_does_not_exist
  '08004', // sqlserver_rejected_establishment_of_sqlconnection
  '08006', // connection_failure
]);

export function isDatabaseUnreachable(err: unknown): boolean {
  for (
    let e: unknown = err, depth = 0;
    e && typeof e === 'object' && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    if (
      e instanceof ConnectionError ||
      e instanceof BackendTerminatedError ||
      e instanceof BackendTerminatedUnexpectedlyError
    )
      return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && DATABASE_UNREACHABLE_CODES.has(code)) return true;
    if (e instanceof Error && /Connection terminated|timeout exceeded when trying to connect/i.test(e.message))
      return true;
  }
  return false;
}
