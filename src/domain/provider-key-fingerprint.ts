/**
 * Which provider key created an instance, without keeping the key: a SHA-256 fingerprint of the key under a
 * fixed label (provider keys are long random tokens, so the fingerprint cannot be turned back into one). It
 * depends on the key text only, not on how it is sealed: a master-key rotation or the same key connected
 * again keeps it; another key (another provider account, or the same account's new key) changes it.
 */
import { createHash } from 'node:crypto';
import type { ProviderId } from './providers';

export function providerKeyFingerprint(provider: ProviderId, apiKey: string): string {
  return createHash('sha256').update(`gpu-orchestrator/provider-key/${provider}\0${apiKey}`).digest('hex').slice(0, 32);
}

/**
 * Whether a "not found" from the key with `fingerprint` may end an instance: only from the key that created it
 * (or that has seen it since). Rows from before fingerprints were recorded keep the earlier rule.
 */
export function keyMayEnd(row: { provider_key_fingerprint: string | null }, fingerprint: string): boolean {
  return row.provider_key_fingerprint === null || row.provider_key_fingerprint === fingerprint;
}

/** The record's warning while the connected key is not the one that created the instance and cannot see it. */
export function keyMismatchWarning(provider: ProviderId): string {
  return (
    `The connected ${provider} key did not create this instance and cannot see it (another provider account?): ` +
    'its "not found" is not taken as the instance ending, so the instance stays as it was and is still metered. ' +
    'Connect the key of the provider account it runs in.'
  );
}
