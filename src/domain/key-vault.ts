/**
 * Envelope for provider keys at rest: AES-256-GCM with a random 96-bit IV, the account id as associated
 * data (a ciphertext copied to another account's row does not decrypt), and the master key's id stored
 * beside it so keys can be rotated: new writes use the current key, older ids stay readable.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface SealedSecret {
  ciphertext: Buffer;
  iv: Buffer;
  authTag: Buffer;
  keyId: string;
}

export class KeyVault {
  private readonly keys: Map<string, Buffer>;

  constructor(
    private readonly currentKeyId: string,
    currentKey: Buffer,
    previous: Record<string, Buffer> = {},
  ) {
    if (currentKey.length !== 32) throw new Error('the master encryption key must be 32 bytes');
    this.keys = new Map([...Object.entries(previous), [currentKeyId, currentKey]]);
  }

  /** Builds a vault from config values: base64 current key and "id:base64,…" previous keys. */
  static fromConfig(keyId: string, keyBase64: string, previousKeys?: string): KeyVault {
    const previous: Record<string, Buffer> = {};
    for (const pair of (previousKeys ?? '').split(',').filter(Boolean)) {
      const [id, b64] = pair.split(':');
      previous[id!] = Buffer.from(b64!, 'base64');
    }
    return new KeyVault(keyId, Buffer.from(keyBase64, 'base64'), previous);
  }

  seal(plaintext: string, associatedData: string): SealedSecret {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentKeyId)!, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { ciphertext, iv, authTag: cipher.getAuthTag(), keyId: this.currentKeyId };
  }

  open(sealed: SealedSecret, associatedData: string): string {
    const key = this.keys.get(sealed.keyId);
    if (!key) throw new Error(`no master key with id ${sealed.keyId} is configured`);
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv);
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(sealed.authTag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
  }
}

/** "…abcd": enough to tell keys apart, never enough to use one. Short keys show fewer characters. */
export function keyHint(apiKey: string): string {
  const shown = Math.min(4, Math.floor(apiKey.length / 4));
  return '…' + (shown > 0 ? apiKey.slice(-shown) : '');
}
