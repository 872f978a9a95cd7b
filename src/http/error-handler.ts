/**
 * Error responses: every failure leaves as `{error: {code, message, details?, request_id}}` with the status
 * of the documented table; anything we did not anticipate becomes a 500 with a fixed message (the stack goes
 * to the log, never to the client). Called by the outermost middleware (`edge.ts`).
 *
 * Thrown values are translated by one table ({@link ERROR_RULES}), first match wins. Database errors are ours:
 * an unreachable, restarting or overloaded (statement timeout) Postgres is 503 `service_unavailable` with
 * `Retry-After`, any other database failure a 500 `internal_error`; neither is ever blamed on a provider.
 */
import type { Context } from 'koa';
import { SlonikError, StatementTimeoutError, UniqueIntegrityConstraintViolationError } from 'slonik';
import { isDatabaseUnreachable } from '../db/errors';
import { ZodError } from 'zod';
import {
  ApiError,
  ConflictError,
  PayloadTooLargeError,
  ProviderRequestError,
  ServiceUnavailableError,
} from '../errors';
import type { Logger } from '../logger';
import { BODY_LIMIT_BYTES, ClientAbortedError } from './body';
import { zodToValidationError } from './validation';

/** Unique constraints that mean "you already have one of these" → 409 with a precise message. */
const UNIQUE_VIOLATIONS: Record<string, string> = {
  ssh_keys_account_name_key: 'An SSH key with this name already exists in this account.',
  ssh_keys_account_fingerprint_key: 'This SSH public key is already registered in this account.',
};

const DATABASE_UNAVAILABLE = 'The database cannot be reached right now; retrying this request is safe.';
const DATABASE_SLOW = 'The database did not answer in time; retrying this request is safe.';
const INTERNAL_MESSAGE = 'An internal error occurred. Quote the request_id if you contact support.';

interface ErrorRule {
  matches(err: unknown): boolean;
  /** The documented error; `null` makes it the logged, fixed 500. */
  toApiError(err: unknown): ApiError | null;
  /** Expected and harmless: not logged as a failure. */
  quiet?: boolean;
}

const ERROR_RULES: readonly ErrorRule[] = [
  { matches: (e) => e instanceof ApiError, toApiError: (e) => e as ApiError },
  { matches: (e) => e instanceof ProviderRequestError, toApiError: (e) => (e as ProviderRequestError).toApiError() },
  { matches: (e) => e instanceof ZodError, toApiError: (e) => zodToValidationError(e as ZodError, 'body') },
  {
    matches: (e) => e instanceof ClientAbortedError,
    toApiError: () => new ApiError(400, 'invalid_json', 'The request body was not fully received.'),
    quiet: true,
  },
  {
    matches: (e) => e instanceof UniqueIntegrityConstraintViolationError,
    toApiError: (e) => {
      const constraint = (e as UniqueIntegrityConstraintViolationError).constraint;
      const message = constraint ? UNIQUE_VIOLATIONS[constraint] : undefined;
      return message ? new ConflictError(message) : null;
    },
  },
  { matches: isDatabaseUnreachable, toApiError: () => new ServiceUnavailableError(DATABASE_UNAVAILABLE) },
  // A statement past its timeout is rolled back with its transaction: our database is overloaded, not the request
  // wrong.
  { matches: (e) => e instanceof StatementTimeoutError, toApiError: () => new ServiceUnavailableError(DATABASE_SLOW) },
  { matches: (e) => e instanceof SlonikError, toApiError: () => null },
  {
    matches: (e) => (e as { status?: unknown })?.status === 413,
    toApiError: () => new PayloadTooLargeError(BODY_LIMIT_BYTES),
  },
];

/** Writes the documented error body for any thrown value; unknown errors become a logged, fixed 500. */
export function respondWithError(ctx: Context, err: unknown, logger: Logger): void {
  const rule = ERROR_RULES.find((r) => r.matches(err));
  const apiError = rule ? rule.toApiError(err) : null;
  const requestId = ctx.state.requestId as string | undefined;
  if (rule?.quiet) {
    logger.debug('client went away', { request_id: requestId, method: ctx.method, path: ctx.path });
  } else if (!apiError) {
    logger.error('unhandled error', {
      request_id: requestId,
      method: ctx.method,
      path: ctx.path,
      err,
      stack: (err as Error)?.stack,
    });
  } else if (apiError.status >= 500) {
    logger.warn('request failed', { request_id: requestId, code: apiError.code, message: apiError.message });
  }
  const e = apiError ?? new ApiError(500, 'internal_error', INTERNAL_MESSAGE);
  if (ctx.headerSent) return;
  ctx.status = e.status;
  for (const [name, value] of Object.entries(e.headers)) ctx.set(name, value);
  ctx.body = {
    error: {
      code: e.code,
      message: e.message,
      ...(e.details?.length ? { details: e.details } : {}),
      request_id: requestId,
    },
  };
}
