import { ApplicationFailure } from '@temporalio/activity';
import { ProviderRequestError } from '../src/errors';
import { providerFailureType, type FailureType } from '../workflows/contracts/failures';

/** Provider failures: transient ones are thrown as they are (Temporal retries), the rest end the attempt series. */
export function toActivityFailure(err: unknown): unknown {
  if (err instanceof ProviderRequestError && err.kind === 'rate_limited') {
    // Retried, but not before the provider's own delay has passed.
    return ApplicationFailure.create({
      message: err.message,
      type: 'provider_rate_limited' satisfies FailureType,
      nextRetryDelay: err.retryAfterMs ?? 1000,
      details: [{ provider: err.provider, kind: err.kind }],
    });
  }
  if (err instanceof ProviderRequestError && !err.retryable) {
    return ApplicationFailure.nonRetryable(err.message, providerFailureType(err.kind), {
      provider: err.provider,
      kind: err.kind,
      providerStatus: err.providerStatus ?? null,
    });
  }
  return err;
}
