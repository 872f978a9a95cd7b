/**
 * Temporal payload encryption (AES-256-GCM), so Temporal's history and its database hold only ciphertext:
 * workflow inputs (startup scripts, `onstart_cmd`), activity results (instance IPs, SSH endpoints), failure
 * messages (with {@link FAILURE_CONVERTER_PATH}), memos. Keys are the master keys of the key vault
 * (MASTER_ENCRYPTION_KEY, _ID, _PREVIOUS_KEYS), each derived by HKDF for this purpose; a payload names the
 * key id it was sealed with, so a rotated-out key stays readable while it is listed in _PREVIOUS_KEYS.
 *
 * Every client and worker must use {@link temporalDataConverter}: one without it cannot read our payloads
 * (and would write plaintext). Operators read decoded payloads through the codec endpoints of the operations
 * listener (`POST /codec/decode`, docs/security.md), never by giving the UI the key.
 *
 * Encoded payload: metadata `encoding: binary/encrypted`, `encryption-key-id: <id>`; data = iv (12 bytes) ‖
 * GCM tag (16) ‖ ciphertext of (u32 length ‖ JSON of the original metadata, values base64 ‖ original data).
 */
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import { KeyVault } from '../domain/key-vault';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
/** Associated data of every payload seal: a payload cannot be passed off as another kind of sealed value. */
const PAYLOAD_AAD = 'temporal-payload';

/** The failure converter module for `dataConverter.failureConverterPath` and for `bundleWorkflowCode`. */
export const FAILURE_CONVERTER_PATH = require.resolve('./failure-converter');

export class PayloadEncryptionCodec implements PayloadCodec {
  private readonly vault: KeyVault;

  /** `masterVault`: the key vault of provider keys; payloads use keys derived from it. */
  constructor(masterVault: KeyVault) {
    this.vault = masterVault.derive('temporal-payload-codec');
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const sealed = this.vault.sealBytes(serialize(payload), PAYLOAD_AAD);
      return {
        metadata: { encoding: utf8(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8(sealed.keyId) },
        data: Buffer.concat([sealed.iv, sealed.authTag, sealed.ciphertext]),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (text(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) return payload;
      const keyId = text(payload.metadata?.[KEY_ID_METADATA]);
      const data = Buffer.from(payload.data ?? new Uint8Array());
      if (!keyId || data.length < 28) throw new Error('encrypted payload without a key id or with truncated data');
      const plain = this.vault.openBytes(
        { iv: data.subarray(0, 12), authTag: data.subarray(12, 28), ciphertext: data.subarray(28), keyId },
        PAYLOAD_AAD,
      );
      return deserialize(plain);
    });
  }
}

/** The data converter of every Temporal client and worker of ours. */
export function temporalDataConverter(masterVault: KeyVault): DataConverter {
  return { payloadCodecs: [new PayloadEncryptionCodec(masterVault)], failureConverterPath: FAILURE_CONVERTER_PATH };
}

function serialize(payload: Payload): Buffer {
  const metadata = Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')]),
  );
  const head = Buffer.from(JSON.stringify(metadata), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(head.length);
  return Buffer.concat([length, head, Buffer.from(payload.data ?? new Uint8Array())]);
}

function deserialize(bytes: Buffer): Payload {
  const length = bytes.readUInt32BE(0);
  const metadata = JSON.parse(bytes.subarray(4, 4 + length).toString('utf8')) as Record<string, string>;
  return {
    metadata: Object.fromEntries(
      Object.entries(metadata).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))]),
    ),
    data: new Uint8Array(bytes.subarray(4 + length)),
  };
}

const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));
const text = (b: Uint8Array | null | undefined) => (b ? Buffer.from(b).toString('utf8') : undefined);

/** A payload as the codec-server convention carries it in JSON: metadata values and data base64. */
export interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

export function payloadFromJson(p: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))]),
    ),
    data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')),
  };
}

export function payloadToJson(p: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')]),
    ),
    data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
  };
}
