/**
 * The one union of failure types: what activities raise (`ApplicationFailure.type`, an observation round's
 * `failure.kind`) and what the workflows and client modules match on. A leaf.
 */
import type { ProviderFailureKind } from '../../src/errors';

/** A provider's failure, `provider_<kind>`; plus no key connected, and a provider that could not be reached. */
export type ProviderFailureType = `provider_${ProviderFailureKind}` | 'provider_not_connected' | 'provider_unavailable';

export type FailureType =
  | ProviderFailureType
  | 'validation_error'
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
