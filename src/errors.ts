/**
 * One error class tree for the whole service. The HTTP error middleware turns an {@link ApiError} into the
 * documented body `{error: {code, message, details?, request_id}}`; anything else becomes a fixed 500.
 */

export interface ErrorDetail {
  path?: string;
  message: string;
  [extra: string]: unknown;
}

export type ErrorCode =
  | 'invalid_json'
  | 'validation_error'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unsupported_operation'
  | 'provider_not_connected'
  | 'no_capacity'
  | 'limit_reached'
  | 'rate_limited'
  | 'provider_error'
  | 'provider_unavailable'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'insufficient_balance'
  | 'price_unknown'
  | 'service_unavailable'
  | 'internal_error';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends ApiError {
  constructor(message: string, details?: ErrorDetail[]) {
    super(400, 'validation_error', message, details);
  }
}

export class InvalidJsonError extends ApiError {
  constructor(message = 'The request body is not valid JSON.') {
    super(400, 'invalid_json', message);
  }
}

export class UnauthenticatedError extends ApiError {
  constructor(message = 'A valid service key is required: send "Authorization: Bearer <API_KEY>".') {
    super(401, 'unauthenticated', message, undefined, { 'WWW-Authenticate': 'Bearer' });
  }
}

/** The API key lacks the scope the operation needs (or asks to grant more than it holds). */
export class ForbiddenError extends ApiError {
  constructor(message: string) {
    super(403, 'forbidden', message);
  }
}

export class NotFoundError extends ApiError {
  constructor(message = 'Not found.') {
    super(404, 'not_found', message);
  }
}

export class ConflictError extends ApiError {
  constructor(message: string, details?: ErrorDetail[]) {
    super(409, 'conflict', message, details);
  }
}

export class PayloadTooLargeError extends ApiError {
  constructor(limitBytes: number) {
    super(413, 'payload_too_large', `The request body is larger than ${limitBytes} bytes.`);
  }
}

export class UnsupportedMediaTypeError extends ApiError {
  constructor() {
    super(415, 'unsupported_media_type', 'Request bodies must be sent with "Content-Type: application/json".');
  }
}

export class UnsupportedOperationError extends ApiError {
  constructor(message: string, details?: ErrorDetail[]) {
    super(422, 'unsupported_operation', message, details);
  }
}

export class ProviderNotConnectedError extends ApiError {
  constructor(provider: string) {
    super(
      422,
      'provider_not_connected',
      `No ${provider} API key is connected to this account. Connect one with POST /v1/settings/providers.`,
    );
  }
}

export class NoCapacityError extends ApiError {
  constructor(provider: string, providerMessage: string) {
    super(422, 'no_capacity', `${provider} has no capacity for this request: ${providerMessage}`);
  }
}

/** A per-account limit (LIMIT_* settings) would be exceeded: nothing was created. `details[0].limit` names it. */
export class LimitReachedError extends ApiError {
  constructor(
    readonly limit: string,
    readonly max: number,
    message: string,
  ) {
    super(422, 'limit_reached', message, [{ message: `at most ${max}`, limit, max }]);
  }
}

export class RateLimitedError extends ApiError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, 'rate_limited', message, undefined, {
      'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
    });
  }
}

export class ProviderApiError extends ApiError {
  constructor(provider: string, providerStatus: number, providerMessage: string) {
    super(502, 'provider_error', `${provider} answered with an error.`, [
      { message: providerMessage, provider, provider_status: providerStatus },
    ]);
  }
}

export class ProviderUnavailableError extends ApiError {
  constructor(provider: string, reason: string) {
    super(503, 'provider_unavailable', `${provider} could not be reached: ${reason}`);
  }
}

/** A launch (or scheduled run) the balance cannot cover for the admission window together with the live fleet. */
export class InsufficientBalanceError extends ApiError {
  constructor(message: string) {
    super(402, 'insufficient_balance', message);
  }
}

/** The client sent its body too slowly. */
export class RequestTimeoutError extends ApiError {
  constructor(seconds: number) {
    super(408, 'request_timeout', `The request body was not received within ${seconds} s.`);
  }
}

/**
 * Our own engine (Temporal) or database cannot be reached. Retrying is safe: every mutating call is idempotent
 * (launches by Idempotency-Key, stop and terminate by nature).
 */
export class ServiceUnavailableError extends ApiError {
  constructor(message: string, retryAfterSeconds = 5) {
    super(503, 'service_unavailable', message, undefined, {
      'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
    });
  }
}

/** Which way a failed provider call went; decides both the HTTP mapping and Temporal retryability. */
export type ProviderFailureKind =
  'invalid_key' | 'no_capacity' | 'rate_limited' | 'transient' | 'not_found' | 'invalid_request' | 'provider_error';

/**
 * Thrown by provider adapters. The message never contains the provider key: adapters build it from the
 * provider's own error text, which is passed through {@link redactSecrets} first.
 */
export class ProviderRequestError extends Error {
  constructor(
    readonly provider: string,
    readonly kind: ProviderFailureKind,
    message: string,
    readonly providerStatus?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ProviderRequestError';
  }

  /** Transient failures and rate limits are worth retrying; everything else is a final answer. */
  get retryable(): boolean {
    return this.kind === 'transient' || this.kind === 'rate_limited';
  }

  toApiError(): ApiError {
    switch (this.kind) {
      case 'no_capacity':
        return new NoCapacityError(this.provider, this.message);
      case 'rate_limited':
        return new RateLimitedError(
          `${this.provider} is rate limiting requests; try again later.`,
          (this.retryAfterMs ?? 1000) / 1000,
        );
      case 'transient':
        return new ProviderUnavailableError(this.provider, this.message);
      case 'not_found':
        return new NotFoundError(this.message);
      case 'invalid_request':
        return new ValidationError(`${this.provider} refused the request's parameters: ${this.message}`);
      case 'invalid_key':
        return new ProviderApiError(
          this.provider,
          this.providerStatus ?? 401,
          `the ${this.provider} API key was rejected: ${this.message}`,
        );
      case 'provider_error':
        return new ProviderApiError(this.provider, this.providerStatus ?? 0, this.message);
    }
  }
}

/** Removes every occurrence of the given secrets from a text (for provider error messages and logs). */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  return out;
}
