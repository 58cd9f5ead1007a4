// Sealing at rest: AES-256-GCM with a random 96-bit IV, written as base64(iv | ciphertext | tag).
// One format for sealed cells, capsule documents and source credentials.
import { createCipheriv, createDecipheriv, randomBytes, type KeyObject } from 'node:crypto';

/** NIST SP 800-38D section 5.2.1.1: 96-bit IVs; section 5.2.1.2: a 128-bit tag. */
const AES_GCM_IV_BYTES = 12;
const AES_GCM_TAG_BYTES = 16;

/** `aad` binds the sealed value to where it belongs, so it cannot be moved elsewhere. */
export function seal(key: KeyObject | Buffer, plaintext: string, aad: Buffer): string {
  const iv = randomBytes(AES_GCM_IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  return Buffer.concat([iv, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]).toString(
    'base64',
  );
}

/** The plaintext, or undefined when the value fails its integrity check (callers fail closed). */
export function unseal(key: KeyObject | Buffer, sealed: string, aad: Buffer): string | undefined {
  const raw = Buffer.from(sealed, 'base64');
  if (raw.length < AES_GCM_IV_BYTES + AES_GCM_TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, AES_GCM_IV_BYTES));
    decipher.setAAD(aad);
    decipher.setAuthTag(raw.subarray(raw.length - AES_GCM_TAG_BYTES));
    return Buffer.concat([
      decipher.update(raw.subarray(AES_GCM_IV_BYTES, raw.length - AES_GCM_TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    return undefined;
  }
}
