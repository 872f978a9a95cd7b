/**
 * Classifies database failures: a permanent one (the statement can never succeed as sent: bad data,
 * a constraint) is not worth retrying; everything else (connection lost, server restarting) is.
 */
import {
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
