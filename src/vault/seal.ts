// Sealing at rest: the one AES-256-GCM implementation and its stored form, base64(iv | ciphertext | tag).
import { createCipheriv, createDecipheriv, KeyObject, randomBytes } from 'node:crypto';
import { VaultError } from './key-vault.ts';

/*
 * The sealed form. Every value svc seals at rest (sealed cells, capsule documents, source
 * credentials) is stored as this one string, so a change here is a change to every store on disk:
 *
 *   base64( IV ‖ C ‖ T )            standard base64, RFC 4648 section 4, with padding
 *
 *   byte 0        12                12 + n           12 + n + 16
 *        | IV, 12 | C, n            | T, 16          |
 *
 * - IV: 12 random bytes, fresh for every seal. NIST SP 800-38D section 5.2.1.1 recommends 96-bit
 *   IVs (with them the counter starts from IV ‖ 0^31 ‖ 1, no GHASH of the IV), and section 8.2.2
 *   is the random-bit-generator construction used here.
 * - C: the AES-256-GCM ciphertext, exactly as long as the plaintext (GCM is a counter mode).
 * - T: the full 128-bit authentication tag (SP 800-38D section 5.2.1.2), over the additional data
 *   and C. C ‖ T is the output of AEAD_AES_256_GCM in RFC 5116 section 5.2; this format puts the
 *   nonce in front of it.
 *
 * The additional data is not stored: the caller passes it again to open, and it names where the
 * value belongs (a cell's position, a document's capsule), so a value copied elsewhere fails to
 * open. An empty plaintext seals to 28 bytes; anything shorter cannot be a sealed value.
 *
 * With random IVs, SP 800-38D section 8.3 allows at most 2^32 seals under one key; keys derived per
 * purpose and owner (derive.ts) keep each key's count far below that.
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const CIPHER = 'aes-256-gcm';

/** A 32-byte AES key: a KeyObject from derive.ts, or raw bytes for callers that still hold them. */
export type SealKey = KeyObject | Uint8Array;

/** One error for every way a sealed value fails: GCM cannot tell them apart, and neither should callers. */
const corrupt = (): VaultError =>
  new VaultError(
    'sealed_corrupt',
    'sealed value did not open: truncated, altered, or sealed under another key or for another place',
  );

/** Refuses a key that is not AES-256 before the cipher sees it, so no stray RangeError escapes. */
function aesKey(key: SealKey): SealKey {
  const ok =
    key instanceof KeyObject
      ? key.type === 'secret' && key.symmetricKeySize === KEY_BYTES
      : key instanceof Uint8Array && key.byteLength === KEY_BYTES;
  if (!ok) throw new VaultError('invalid_key', `sealing takes a ${KEY_BYTES}-byte AES-256 key`);
  return key;
}

/**
 * Seals `plaintext` (a string is sealed as its UTF-8 bytes) under `key`. `aad` binds the value to
 * where it belongs; pass the same bytes to open it. Absent and empty additional data are the same.
 */
export function seal(key: SealKey, plaintext: string | Uint8Array, aad?: Uint8Array): string {
  const checkedKey = aesKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(CIPHER, checkedKey, iv, { authTagLength: TAG_BYTES });
  if (aad) cipher.setAAD(aad);
  const body = typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext;
  return Buffer.concat([iv, cipher.update(body), cipher.final(), cipher.getAuthTag()]).toString('base64');
}

/**
 * The plaintext bytes of a sealed value. Throws VaultError 'sealed_corrupt' for anything that is not
 * a value sealed under `key` with `aad`: no bytes are returned before the tag has been checked.
 */
export function open(key: SealKey, sealed: string, aad?: Uint8Array): Buffer {
  const checkedKey = aesKey(key);
  if (typeof sealed !== 'string') throw corrupt();
  const raw = Buffer.from(sealed, 'base64');
  // Only the canonical spelling is a stored value: Node's decoder skips stray characters and
  // accepts the URL alphabet, missing padding and non-zero padding bits, and none of those
  // spells `raw` again, so this round trip is the whole RFC 4648 section 4 check.
  if (raw.length < IV_BYTES + TAG_BYTES || raw.toString('base64') !== sealed) throw corrupt();
  try {
    const decipher = createDecipheriv(CIPHER, checkedKey, raw.subarray(0, IV_BYTES), {
      authTagLength: TAG_BYTES,
    });
    if (aad) decipher.setAAD(aad);
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    const body = decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES));
    // final() checks the tag; until it returns, `body` is unauthenticated and never leaves here.
    // GCM is a stream mode: final() returns nothing more, so `body` is normally the whole plaintext.
    const rest = decipher.final();
    return rest.length ? Buffer.concat([body, rest]) : body;
  } catch {
    throw corrupt();
  }
}

/** The plaintext of a sealed value as UTF-8 text; fails as `open` does. */
export function unseal(key: SealKey, sealed: string, aad?: Uint8Array): string {
  return open(key, sealed, aad).toString('utf8');
}
