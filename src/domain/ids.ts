import { randomBytes } from 'node:crypto';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'; // base58

/** Random base58 text carrying at least `bits` bits of entropy. */
export function randomToken(bits = 128): string {
  const length = Math.ceil(bits / Math.log2(ALPHABET.length));
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length)) {
      // Rejection sampling keeps every character equally likely (58 * 4 = 232).
      if (b < 232 && out.length < length) out += ALPHABET[b % 58];
    }
  }
  return out;
}

export type IdPrefix = 'acct' | 'key' | 'sshkey' | 'alert' | 'sched' | 'run' | 'wh' | 'txn' | 'evt' | 'dlv' | 'req';

/** A prefixed random id such as `sshkey_7Hq…` (128 random bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomToken(128)}`;
}
