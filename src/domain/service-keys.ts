import { createHash } from 'node:crypto';
import { randomToken } from './ids';

/** Service keys look like `gpuo_sk_<33 base58 chars>` (192 random bits); only their SHA-256 is stored. */
export const SERVICE_KEY_PREFIX = 'gpuo_sk_';
const SERVICE_KEY_PATTERN = /^gpuo_sk_[1-9A-HJ-NP-Za-km-z]{20,64}$/;

export function generateServiceKey(): { apiKey: string; hash: string; displayPrefix: string } {
  const apiKey = SERVICE_KEY_PREFIX + randomToken(192);
  return { apiKey, hash: hashServiceKey(apiKey), displayPrefix: apiKey.slice(0, SERVICE_KEY_PREFIX.length + 4) };
}

export function hashServiceKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

export function looksLikeServiceKey(text: string): boolean {
  return SERVICE_KEY_PATTERN.test(text);
}
