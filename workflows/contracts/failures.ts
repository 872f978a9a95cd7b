/**
 * The one union of failure types: what activities raise (`ApplicationFailure.type`, an observation round's
 * `failure.kind`), what admission refuses with, and what the workflows and client modules match on. HTTP
 * answers them in one table (`src/launch/failures.ts`). A leaf.
 */
import type { ProviderFailureKind } from '../../src/errors';

/**
 * A provider's failure, `provider_<kind>`; plus no key connected, a provider that could not be reached, and a key
 * that cannot see an instance another key of the account created.
 */
export type ProviderFailureType =
  `provider_${ProviderFailureKind}` | 'provider_not_connected' | 'provider_unavailable' | 'provider_key_mismatch';

export type FailureType =
  | ProviderFailureType
  | 'validation_error'
  /** A per-account limit (live instances) refused the launch before anything was sent. */
  | 'limit_reached'
  /** Admission: the balance, or the launching key's spend cap, cannot cover the launch. */
  | 'insufficient_balance'
  /** Admission: the key a scheduled run launches with was revoked or expired since its schedule was made. */
  | 'api_key_unusable'
  | 'idempotency_conflict'
  | 'service_unavailable'
  | 'internal_error'
  | 'instance_missing'
  | 'pricing_key_missing';

/** The failure type of a provider adapter's {@link ProviderFailureKind}. */
export function providerFailureType(kind: ProviderFailureKind): ProviderFailureType {
  return `provider_${kind}`;
}

/** A launch refused with one of these cannot have left an instance at the provider (nothing sent, or a definite no). */
export const NOTHING_CREATED_FAILURES: readonly FailureType[] = [
  'provider_not_connected',
  'provider_invalid_key',
  'provider_no_capacity',
  'provider_invalid_request',
  'validation_error',
];

/**
 * The last detail of a launch failure raised before anything was sent to the provider by any attempt (the
 * intent, the SSH key): nothing can exist there, so nothing is compensated. Never shown to a client.
 */
export const NOTHING_SENT_DETAIL = { nothingSent: true } as const;

export function isNothingSentDetail(detail: unknown): boolean {
  return typeof detail === 'object' && detail !== null && (detail as { nothingSent?: unknown }).nothingSent === true;
}
