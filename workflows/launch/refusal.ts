/** Why a launch was refused, read from an activity's failure, and whether anything can exist at the provider. */
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { isNothingSentDetail, NOTHING_CREATED_FAILURES, type FailureType } from '../contracts/failures';

export interface Refusal {
  type: string;
  message: string;
  details?: unknown[];
  /** The activity said nothing was sent to the provider by any attempt (its marker is not among `details`). */
  nothingSent?: boolean;
}

export function failureOf(err: unknown): Refusal {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    const details = [...(cause.details ?? [])];
    const nothingSent = details.length > 0 && isNothingSentDetail(details[details.length - 1]);
    if (nothingSent) details.pop();
    return {
      type: cause.type ?? 'provider_error',
      message: cause.message,
      details,
      ...(nothingSent ? { nothingSent } : {}),
    };
  }
  if (cause instanceof Error) return { type: 'provider_unavailable', message: cause.message };
  return { type: 'internal_error', message: String(cause) };
}

/**
 * Refusals after which no instance can exist at the provider: nothing was sent (no key, bad input, the
 * database refused the intent), or the provider answered a definite no (4xx, no capacity, rejected key).
 */
export function nothingCreated(refusal: Refusal, reachedProvider: boolean): boolean {
  if (!reachedProvider) return true;
  if (NOTHING_CREATED_FAILURES.includes(refusal.type as FailureType)) {
    return true;
  }
  const status = (refusal.details?.[0] as { providerStatus?: number | null } | undefined)?.providerStatus;
  return (
    refusal.type === ('provider_provider_error' satisfies FailureType) &&
    typeof status === 'number' &&
    status >= 400 &&
    status < 500
  );
}
