/**
 * A secret sealed by the key vault, written as one text value (`sealed:v1:<key id>:<base64 iv‖tag‖ciphertext>`)
 * so it fits a column that used to hold the plaintext: webhook signing secrets at rest. Opening a value
 * that is not sealed returns it unchanged, so rows written before the sealing migration keep working until
 * it has run (src/db/queries/webhook-secrets.ts seals them).
 */
import type { KeyVault } from './key-vault';

const PREFIX = 'sealed:v1:';

export function isSealedText(text: string): boolean {
  return text.startsWith(PREFIX);
}

export function sealText(vault: Pick<KeyVault, 'seal'>, plaintext: string, associatedData: string): string {
  const s = vault.seal(plaintext, associatedData);
  return `${PREFIX}${s.keyId}:${Buffer.concat([s.iv, s.authTag, s.ciphertext]).toString('base64')}`;
}

export function openText(vault: Pick<KeyVault, 'open'>, text: string, associatedData: string): string {
  if (!isSealedText(text)) return text;
  const rest = text.slice(PREFIX.length);
  const colon = rest.indexOf(':');
  const keyId = rest.slice(0, colon);
  const bytes = Buffer.from(rest.slice(colon + 1), 'base64');
  if (colon <= 0 || bytes.length < 28) throw new Error('malformed sealed value');
  return vault.open(
    { keyId, iv: bytes.subarray(0, 12), authTag: bytes.subarray(12, 28), ciphertext: bytes.subarray(28) },
    associatedData,
  );
}
