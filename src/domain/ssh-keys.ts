/**
 * SSH public key validation. The five classic key types are parsed by `sshpk`; it does not know the two
 * FIDO/U2F security-key types, so for those we read the wire blob as OpenSSH's PROTOCOL.u2f defines it
 * (type, key, application) and check every length. Either way the blob must decode and name the same type
 * as the line's first word.
 */
import { createHash } from 'node:crypto';
import sshpk from 'sshpk';

export const SSH_KEY_TYPES = [
  'ssh-ed25519',
  'ssh-rsa',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
] as const;
export type SshKeyType = (typeof SSH_KEY_TYPES)[number];

export interface ParsedSshKey {
  keyType: SshKeyType;
  /** `SHA256:` + unpadded base64 of the SHA-256 of the key blob, as `ssh-keygen -l` prints it. */
  fingerprint: string;
  /** The normalized one-line form: type, blob and (if any) comment separated by single spaces. */
  publicKey: string;
}

export class SshKeyError extends Error {}

const MIN_RSA_BITS = 2048;

/** sshpk's `type`/curve for each classic type, to check that the blob names what the line says. */
const SSHPK_TYPES: Partial<Record<SshKeyType, { type: string; curve?: string }>> = {
  'ssh-ed25519': { type: 'ed25519' },
  'ssh-rsa': { type: 'rsa' },
  'ecdsa-sha2-nistp256': { type: 'ecdsa', curve: 'nistp256' },
  'ecdsa-sha2-nistp384': { type: 'ecdsa', curve: 'nistp384' },
  'ecdsa-sha2-nistp521': { type: 'ecdsa', curve: 'nistp521' },
};

export function fingerprintOfBlob(blob: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');
}

/** Parses and validates a one-line OpenSSH public key. Throws {@link SshKeyError} with a user-facing reason. */
export function parseSshPublicKey(text: string): ParsedSshKey {
  const line = text.trim();
  if (/[\r\n]/.test(line)) throw new SshKeyError('must be a single line');
  const [type, b64, ...commentParts] = line.split(/\s+/);
  if (!type || !b64) throw new SshKeyError('must look like "<type> <base64 key> [comment]"');
  if (!(SSH_KEY_TYPES as readonly string[]).includes(type)) {
    throw new SshKeyError(`key type "${type}" is not supported; use one of ${SSH_KEY_TYPES.join(', ')}`);
  }
  const keyType = type as SshKeyType;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) throw new SshKeyError('the key data is not valid base64');
  const blob = Buffer.from(b64, 'base64');
  if (blob.toString('base64') !== b64) throw new SshKeyError('the key data is not valid base64');

  const expected = SSHPK_TYPES[keyType];
  if (expected) {
    let key: sshpk.Key;
    try {
      key = sshpk.parseKey(`${keyType} ${b64}`, 'ssh');
    } catch {
      throw new SshKeyError('the key data does not decode as an SSH public key');
    }
    if (key.type !== expected.type || (expected.curve && key.curve !== expected.curve)) {
      throw new SshKeyError(`the key data is a ${key.type} key, not ${keyType}`);
    }
    // sshpk accepts a blob whose own type string differs in case of RSA variants; check the wire name too.
    if (readSshString(blob, 0).value.toString() !== keyType) {
      throw new SshKeyError(`the key data names another type than ${keyType}`);
    }
    if (key.type === 'rsa' && key.size < MIN_RSA_BITS) {
      throw new SshKeyError(`RSA keys must have at least ${MIN_RSA_BITS} bits (this one has ${key.size})`);
    }
  } else {
    parseSecurityKeyBlob(keyType, blob);
  }
  const comment = commentParts.join(' ');
  return {
    keyType,
    fingerprint: fingerprintOfBlob(blob),
    publicKey: comment ? `${keyType} ${b64} ${comment}` : `${keyType} ${b64}`,
  };
}

function readSshString(buf: Buffer, offset: number): { value: Buffer; next: number } {
  if (offset + 4 > buf.length) throw new SshKeyError('the key data is truncated');
  const len = buf.readUInt32BE(offset);
  const start = offset + 4;
  if (start + len > buf.length) throw new SshKeyError('the key data is truncated');
  return { value: buf.subarray(start, start + len), next: start + len };
}

/** PROTOCOL.u2f: `string type, [string curve,] string key, string application`, nothing after. */
function parseSecurityKeyBlob(keyType: SshKeyType, blob: Buffer): void {
  let at = 0;
  const name = readSshString(blob, at);
  if (name.value.toString() !== keyType) throw new SshKeyError(`the key data names another type than ${keyType}`);
  at = name.next;
  if (keyType === 'sk-ecdsa-sha2-nistp256@openssh.com') {
    const curve = readSshString(blob, at);
    if (curve.value.toString() !== 'nistp256') throw new SshKeyError('the key data names another curve than nistp256');
    at = curve.next;
    const point = readSshString(blob, at);
    // An uncompressed P-256 point: 0x04 || X (32) || Y (32).
    if (point.value.length !== 65 || point.value[0] !== 0x04)
      throw new SshKeyError('the key data holds no valid P-256 point');
    at = point.next;
  } else {
    const pk = readSshString(blob, at);
    if (pk.value.length !== 32) throw new SshKeyError('the key data holds no valid Ed25519 key');
    at = pk.next;
  }
  const application = readSshString(blob, at);
  if (application.value.length === 0) throw new SshKeyError('the key data has an empty application');
  if (application.next !== blob.length) throw new SshKeyError('the key data has trailing bytes');
}
