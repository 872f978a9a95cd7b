/**
 * Envelope for provider keys at rest: AES-256-GCM with a random 96-bit IV, the account id as associated
 * data (a ciphertext copied to another account's row does not decrypt), and the master key's id stored
 * beside it so keys can be rotated: new writes use the current key, older ids stay readable.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

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

  /** The id new seals are written under (rotation: older ids stay readable). */
  get keyId(): string {
    return this.currentKeyId;
  }

  /**
   * A vault for another purpose with the same key ids: each key replaced by HKDF-SHA256(key, info = purpose).
   * One master key then serves several uses without one use's ciphertexts (or its volume of random IVs)
   * touching another's, and a rotation of the master key rotates every derived one alike.
   */
  derive(purpose: string): KeyVault {
    const sub = (key: Buffer) =>
      Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `gpu-orchestrator/${purpose}`, 32));
    const previous = Object.fromEntries(
      [...this.keys].filter(([id]) => id !== this.currentKeyId).map(([id, key]) => [id, sub(key)]),
    );
    return new KeyVault(this.currentKeyId, sub(this.keys.get(this.currentKeyId)!), previous);
  }

  seal(plaintext: string, associatedData: string): SealedSecret {
    return this.sealBytes(Buffer.from(plaintext, 'utf8'), associatedData);
  }

  open(sealed: SealedSecret, associatedData: string): string {
    return this.openBytes(sealed, associatedData).toString('utf8');
  }

  sealBytes(plaintext: Uint8Array, associatedData: string): SealedSecret {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentKeyId)!, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return { ciphertext, iv, authTag: cipher.getAuthTag(), keyId: this.currentKeyId };
  }

  openBytes(sealed: SealedSecret, associatedData: string): Buffer {
    const key = this.keys.get(sealed.keyId);
    if (!key) throw new Error(`no master key with id ${sealed.keyId} is configured`);
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv);
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(sealed.authTag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]);
  }
}

/** "…abcd": enough to tell keys apart, never enough to use one. Short keys show fewer characters. */
export function keyHint(apiKey: string): string {
  const shown = Math.min(4, Math.floor(apiKey.length / 4));
  return '…' + (shown > 0 ? apiKey.slice(-shown) : '');
}
