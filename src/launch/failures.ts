/**
 * A launch's refusal as HTTP answers it: one table from the failure types of `workflows/contracts/failures.ts`
 * to our documented errors. The workflow's refusals (via the instance client) and admission's (balance, key cap,
 * live-instance limit) both come through here, so a type answers the same whoever raised it.
 */
import type { FailureType } from '../../workflows/contracts/failures';
import {
  ApiError,
  ConflictError,
  InsufficientBalanceError,
  LimitReachedError,
  NoCapacityError,
  ProviderApiError,
  ProviderNotConnectedError,
  ProviderUnavailableError,
  ServiceUnavailableError,
  UnauthenticatedError,
  ValidationError,
} from '../errors';
import type { ProviderId } from '../providers/types';

/** A launch refused: its failure type, the message for the user, and the type's details (as raised). */
export interface LaunchRefusal {
  type: FailureType;
  message: string;
  details?: readonly unknown[];
}

/** Ours, never the provider's: an unknown failure (the database, a bug) answers this. */
const internalError = () =>
  new ApiError(500, 'internal_error', 'An internal error occurred. Quote the request_id if you contact support.');

const providerError = (f: LaunchRefusal, provider: ProviderId) => {
  const detail = f.details?.[0] as { providerStatus?: number | null } | undefined;
  return new ProviderApiError(provider, detail?.providerStatus ?? 0, f.message);
};
const providerUnavailable = (f: LaunchRefusal, provider: ProviderId) =>
  new ProviderUnavailableError(provider, f.message);

const TO_HTTP: { [T in FailureType]: (f: LaunchRefusal, provider: ProviderId) => ApiError } = {
  idempotency_conflict: (f) => new ConflictError(f.message),
  limit_reached: (f) => {
    const detail = f.details?.[0] as { limit?: string; max?: number } | undefined;
    return new LimitReachedError(detail?.limit ?? 'live_instances', detail?.max ?? 0, f.message);
  },
  insufficient_balance: (f) => new InsufficientBalanceError(f.message),
  api_key_unusable: (f) => new UnauthenticatedError(f.message),
  validation_error: (f) => new ValidationError(f.message),
  service_unavailable: () =>
    new ServiceUnavailableError('The database could not be reached; retrying with the same Idempotency-Key is safe.'),
  internal_error: () =>
    new ApiError(500, 'internal_error', 'An internal error occurred; nothing was left running at the provider.'),
  instance_missing: internalError,
  pricing_key_missing: internalError,
  provider_not_connected: (_f, provider) => new ProviderNotConnectedError(provider),
  provider_no_capacity: (f, provider) => new NoCapacityError(provider, f.message),
  provider_invalid_request: (f, provider) =>
    new ValidationError(`${provider} refused the request's parameters: ${f.message}`),
  provider_rate_limited: providerUnavailable,
  provider_transient: providerUnavailable,
  provider_unavailable: providerUnavailable,
  provider_invalid_key: providerError,
  provider_not_found: providerError,
  provider_provider_error: providerError,
  provider_key_mismatch: providerError,
};

/** The documented error for a launch refused with `refusal` at `provider`; a type outside the union is ours (500). */
export function launchRefusalError(
  refusal: { type?: string | null; message: string; details?: readonly unknown[] | null },
  provider: ProviderId,
): ApiError {
  const type = refusal.type ?? '';
  if (Object.hasOwn(TO_HTTP, type)) return TO_HTTP[type as FailureType](refusal as LaunchRefusal, provider);
  // A provider's own answer the union does not name yet is still the provider's; anything else is ours.
  return type.startsWith('provider_') ? providerError(refusal as LaunchRefusal, provider) : internalError();
}
