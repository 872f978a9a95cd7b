/** Small helpers every simulator uses: the bearer key, random ids, the clock, ISO times, test IPs. */
import type http from 'node:http';

/** Reads the key from `Authorization: Bearer <key>`. */
export function bearerKey(headers: http.IncomingHttpHeaders): string | null {
  const h = headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  return m ? m[1]!.trim() : null;
}

export function randomChars(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(Math.random() * alphabet.length)];
  return out;
}

/** A simulator clock in one place so status progressions are all derived from it. */
export const now = (): number => Date.now();

export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A deterministic pseudo-random IPv4 address in the TEST-NET-3 block for an instance number. */
export function testIp(n: number): string {
  return `203.0.113.${(n % 250) + 2}`;
}
