/** Typed errors: one class per error code family of the API's `{"error": {code, message, details, request_id}}`. */

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown[]; request_id?: string };
}

export class GpuoError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId?: string,
    readonly details?: unknown[],
    /** Seconds, from `Retry-After` (429, 503). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 400: `validation_error`, `invalid_json`. */
export class ValidationError extends GpuoError {}
/** 401: missing, unknown, revoked or expired key. */
export class AuthenticationError extends GpuoError {}
/** 403: the key lacks the scope (the message names it). */
export class ForbiddenError extends GpuoError {}
/** 404. */
export class NotFoundError extends GpuoError {}
/** 409: duplicate, or an Idempotency-Key reused with another body. */
export class ConflictError extends GpuoError {}
/** 402: the balance or the key's spend cap does not cover the launch (the message names the numbers). */
export class InsufficientBalanceError extends GpuoError {}
/** 422: `no_capacity`. */
export class NoCapacityError extends GpuoError {}
/** 422: `unsupported_operation`, `provider_not_connected`, `limit_reached`. */
export class UnprocessableError extends GpuoError {}
/** 429, after the SDK's own retries. */
export class RateLimitedError extends GpuoError {}
/** 502/503: a provider or the service is unavailable, after the SDK's own retries. */
export class UnavailableError extends GpuoError {}

const BY_CODE: Record<string, typeof GpuoError> = {
  validation_error: ValidationError,
  invalid_json: ValidationError,
  unauthenticated: AuthenticationError,
  forbidden: ForbiddenError,
  not_found: NotFoundError,
  conflict: ConflictError,
  insufficient_balance: InsufficientBalanceError,
  no_capacity: NoCapacityError,
  unsupported_operation: UnprocessableError,
  provider_not_connected: UnprocessableError,
  limit_reached: UnprocessableError,
  rate_limited: RateLimitedError,
  provider_error: UnavailableError,
  provider_unavailable: UnavailableError,
  service_unavailable: UnavailableError,
};

/** The typed error for an API error answer (any status; an unknown code is a plain {@link GpuoError}). */
export function errorFromResponse(response: Response, body: unknown): GpuoError {
  const e = (body as Partial<ErrorBody> | undefined)?.error;
  const retry = Number(response.headers.get('retry-after'));
  const Class = (e && BY_CODE[e.code]) || GpuoError;
  return new Class(
    response.status,
    e?.code ?? 'http_error',
    e?.message ?? `HTTP ${response.status}`,
    e?.request_id ?? response.headers.get('x-request-id') ?? undefined,
    e?.details,
    Number.isFinite(retry) && retry >= 0 ? retry : undefined,
  );
}
