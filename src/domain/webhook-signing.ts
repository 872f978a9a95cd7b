/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` + base64 key bytes; the
 * signature is `v1,` + base64 HMAC-SHA256 over `${webhook-id}.${webhook-timestamp}.${body}`. Pure functions.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
const SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

/** A new signing secret: `whsec_` + base64 of 24 random bytes (the size Standard Webhooks recommends). */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString('base64');
}

/** Why a client-chosen secret is unusable, or null when it is fine (24..64 key bytes, canonical base64). */
export function webhookSecretProblem(secret: string): string | null {
  if (!SECRET_PATTERN.test(secret)) return 'must be "whsec_" followed by base64 (as generated when omitted)';
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  if (key.toString('base64') !== secret.slice(SECRET_PREFIX.length)) return 'is not canonical base64';
  if (key.length < 24 || key.length > 64) return 'must carry 24 to 64 bytes of key material';
  return null;
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** The `webhook-signature` header value for one message. `timestamp` is in whole seconds. */
export function signWebhook(secret: string, msgId: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${msgId}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * Verifies a received message as a receiver would: a pure function of (body, headers, secret, now), with a
 * constant-time compare and a tolerance on the timestamp (default 5 min) against replays.
 */
export function verifyWebhook(
  secret: string,
  body: string,
  headers: { 'webhook-id'?: string; 'webhook-timestamp'?: string; 'webhook-signature'?: string },
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const id = headers['webhook-id'];
  const ts = Number(headers['webhook-timestamp']);
  const sigs = headers['webhook-signature'];
  if (!id || !sigs || !Number.isInteger(ts) || Math.abs(nowSeconds - ts) > toleranceSeconds) return false;
  const expected = Buffer.from(signWebhook(secret, id, ts, body));
  return sigs.split(' ').some((s) => {
    const candidate = Buffer.from(s);
    return candidate.length === expected.length && timingSafeEqual(candidate, expected);
  });
}
