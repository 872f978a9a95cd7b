/** The OPS_TOKEN check of the operations listener and the worker's metrics port. */
import { createHash, timingSafeEqual } from 'node:crypto';

/** True when `header` is `Bearer <token>`. Compares hashes: the time taken says nothing about the token. */
export function bearerMatches(header: string, token: string): boolean {
  const m = /^Bearer (.+)$/.exec(header);
  if (!m) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(m[1]!), digest(token));
}
