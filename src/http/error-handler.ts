/**
 * Error responses: every failure leaves as `{error: {code, message, details?, request_id}}` with the status
 * of the documented table; anything we did not anticipate becomes a 500 with a fixed message (the stack goes
 * to the log, never to the client). Called by the outermost middleware (`edge.ts`).
 */
import type { Context } from 'koa';
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { ZodError } from 'zod';
import { ApiError, ConflictError, PayloadTooLargeError, ProviderRequestError } from '../errors';
import type { Logger } from '../logger';
import { BODY_LIMIT_BYTES } from './body';
import { zodToValidationError } from './validation';

/** Unique constraints that mean "you already have one of these" → 409 with a precise message. */
const UNIQUE_VIOLATIONS: Record<string, string> = {
  ssh_keys_account_name_key: 'An SSH key with this name already exists in this account.',
  ssh_keys_account_fingerprint_key: 'This SSH public key is already registered in this account.',
};

function toApiError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err instanceof ProviderRequestError) return err.toApiError();
  if (err instanceof ZodError) return zodToValidationError(err, 'body');
  if (err instanceof UniqueIntegrityConstraintViolationError) {
    const message = err.constraint ? UNIQUE_VIOLATIONS[err.constraint] : undefined;
    return message ? new ConflictError(message) : null;
  }
  const status = (err as { status?: unknown })?.status;
  if (status === 413) return new PayloadTooLargeError(BODY_LIMIT_BYTES);
  return null;
}

/** Writes the documented error body for any thrown value; unknown errors become a logged, fixed 500. */
export function respondWithError(ctx: Context, err: unknown, logger: Logger): void {
  const apiError = toApiError(err);
  const requestId = ctx.state.requestId as string | undefined;
  if (!apiError) {
    logger.error('unhandled error', { request_id: requestId, method: ctx.method, path: ctx.path, err, stack: (err as Error)?.stack });
  } else if (apiError.status >= 500) {
    logger.warn('request failed', { request_id: requestId, code: apiError.code, message: apiError.message });
  }
  const e = apiError ?? new ApiError(500, 'internal_error', 'An internal error occurred. Quote the request_id if you contact support.');
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
