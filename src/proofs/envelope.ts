// Fabric envelope crypto: HPKE-wrapped content keys and AES-256-GCM sealed payloads addressed to an
// X25519 key. Pure (WebCrypto, @hpke/core, @noble/curves): the SDK re-exports it for third parties,
// and svc's own tools seal and open with it on the agent's computer.
import { Aes256Gcm, CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from '@hpke/core';
import { x25519 } from '@noble/curves/ed25519.js';
import { keyId } from './format.ts';
import { PossessionError, openEnrollChallenge as openChallenge } from './possession.ts';

// RFC 9180 §5: the sender is anonymous on the Fabric, so only the unauthenticated base mode is used.
export const RFC9180_MODE_BASE = 0x00;
// RFC 9180 §7.1, Table 2: DHKEM(X25519, HKDF-SHA256).
export const RFC9180_KEM_DHKEM_X25519_HKDF_SHA256 = 0x0020;
// RFC 9180 §7.2, Table 3: HKDF-SHA256.
export const RFC9180_KDF_HKDF_SHA256 = 0x0001;
// RFC 9180 §7.3, Table 5: AES-256-GCM.
export const RFC9180_AEAD_AES_256_GCM = 0x0002;
// RFC 9180 §7.1, Table 2: Nenc and Npk/Nsk of DHKEM(X25519, HKDF-SHA256).
export const RFC9180_X25519_NENC = 32;
export const RFC9180_X25519_NPK = 32;
export const RFC9180_X25519_NSK = 32;
// RFC 9180 §7.3, Table 5: Nk and Nt of AES-256-GCM.
export const RFC9180_AES_256_GCM_NK = 32;
export const RFC9180_AES_256_GCM_NT = 16;

/** Domain-separation label: the HPKE `info` and the prefix of the payload AAD. */
export const FABRIC_INFO = 'svc-fabric-v1';
/** AES-GCM IV length: the 96 bits NIST SP 800-38D §5.2.1.1 recommends for interoperability. */
export const FABRIC_PAYLOAD_IV_BYTES = 12;
/** `wrapped_key` = HPKE enc || HPKE ciphertext of the content key (content key plus tag). */
export const FABRIC_WRAPPED_KEY_BYTES = RFC9180_X25519_NENC + RFC9180_AES_256_GCM_NK + RFC9180_AES_256_GCM_NT;

export type FabricCryptoErrorCode = 'invalid_key' | 'invalid_envelope' | 'decrypt_failed';

/**
 * The only error the envelope functions raise. Callers branch on `code`; the message is for humans and
 * deliberately does not say which check failed inside the AEADs, so it cannot serve as an oracle.
 */
export class FabricCryptoError extends Error {
  readonly code: FabricCryptoErrorCode;

  constructor(code: FabricCryptoErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FabricCryptoError';
    this.code = code;
  }
}

export interface FabricKeyPair {
  publicKeyHex: string;
  privateKeyHex: string;
}

export interface FabricEnvelope {
  ciphertext_b64: string;
  wrapped_key_b64: string;
  payload_iv_b64: string;
  recipient_kid: string;
}

export interface SealEnvelopeInput {
  plaintext: Uint8Array | string;
  recipientPublicKeyHex: string;
}

export interface OpenEnvelopeInput {
  ciphertext_b64: string;
  wrapped_key_b64: string;
  payload_iv_b64: string;
  recipientPrivateKeyHex: string;
  recipientPublicKeyHex?: string;
}

const suite = new CipherSuite({
  kem: new DhkemX25519HkdfSha256(),
  kdf: new HkdfSha256(),
  aead: new Aes256Gcm(),
});

const { subtle } = globalThis.crypto;
const utf8 = new TextEncoder();
const HPKE_INFO = utf8.encode(FABRIC_INFO);
const KEY_HEX = /^[0-9a-fA-F]{64}$/;

/** A promise rejection handler that replaces whatever a library threw with a FabricCryptoError. */
function fail(code: FabricCryptoErrorCode, message: string): (cause: unknown) => never {
  return (cause) => {
    throw new FabricCryptoError(code, message, { cause });
  };
}

function randomBytes(length: number): Uint8Array<ArrayBuffer> {
  return globalThis.crypto.getRandomValues(new Uint8Array(length));
}

function bytesToHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

function parseKeyHex(hex: unknown, what: string): Uint8Array<ArrayBuffer> {
  if (typeof hex !== 'string' || !KEY_HEX.test(hex)) {
    throw new FabricCryptoError('invalid_key', `${what} must be 64 hex characters (32 raw bytes)`);
  }
  const out = new Uint8Array(RFC9180_X25519_NPK);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function bytesToBase64(bytes: Uint8Array): string {
  // Chunked so a large payload never hits the engine's argument-count limit.
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function base64ToBytes(b64: unknown, field: string): Uint8Array<ArrayBuffer> {
  if (typeof b64 !== 'string') throw new FabricCryptoError('invalid_envelope', `${field} must be a string`);
  let binary: string;
  try {
    binary = atob(b64);
  } catch (err) {
    throw new FabricCryptoError('invalid_envelope', `${field} is not valid base64`, { cause: err });
  }
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  // atob tolerates whitespace, missing padding and stray low bits; accepting only the canonical
  // encoding keeps one envelope from having several spellings.
  if (bytesToBase64(out) !== b64) {
    throw new FabricCryptoError('invalid_envelope', `${field} is not canonical standard base64`);
  }
  return out;
}

function payloadAad(recipientKid: string): Uint8Array<ArrayBuffer> {
  // Binding the kid means a payload re-wrapped for another address fails to authenticate.
  return utf8.encode(`${FABRIC_INFO}|${recipientKid}`);
}

/** The recipient address (kid): the first 16 lowercase hex characters of SHA-256 over the raw X25519 public key. */
export function fabricAddress(publicKeyHex: string): string {
  return keyId(parseKeyHex(publicKeyHex, 'public key'));
}

/**
 * The key pair of a 32-byte X25519 private key (RFC 7748 §5: any 32 bytes are a private key, clamped
 * when used), so a key kept as 32 random bytes needs nothing else stored beside it.
 */
export function fabricKeyPairOf(privateKey: Uint8Array): FabricKeyPair {
  if (!(privateKey instanceof Uint8Array) || privateKey.length !== RFC9180_X25519_NSK) {
    throw new FabricCryptoError('invalid_key', 'an X25519 private key is 32 bytes');
  }
  return { publicKeyHex: bytesToHex(x25519.getPublicKey(privateKey)), privateKeyHex: bytesToHex(privateKey) };
}

/** A fresh X25519 key pair as raw 32-byte keys in lowercase hex. */
export async function generateFabricKeyPair(): Promise<FabricKeyPair> {
  const secretKey = x25519.utils.randomSecretKey();
  return { publicKeyHex: bytesToHex(x25519.getPublicKey(secretKey)), privateKeyHex: bytesToHex(secretKey) };
}

/** Seals `plaintext` to the holder of `recipientPublicKeyHex`. */
export async function sealEnvelope(input: SealEnvelopeInput): Promise<FabricEnvelope> {
  const recipientPublicKey = parseKeyHex(input?.recipientPublicKeyHex, 'recipient public key');
  const { plaintext } = input;
  let payload: Uint8Array<ArrayBuffer>;
  if (typeof plaintext === 'string') payload = utf8.encode(plaintext);
  // Copied before the first await so a caller reusing its buffer cannot change what gets encrypted.
  else if (plaintext instanceof Uint8Array) payload = new Uint8Array(plaintext);
  else throw new FabricCryptoError('invalid_envelope', 'plaintext must be a string or a Uint8Array');

  const hpkePublicKey = await suite.kem
    .deserializePublicKey(recipientPublicKey)
    .catch(fail('invalid_key', 'recipient public key is not a usable X25519 key'));
  const recipientKid = keyId(recipientPublicKey);
  const contentKey = randomBytes(RFC9180_AES_256_GCM_NK);
  try {
    // RFC 9180 §7.1.4: encapsulation aborts on a low-order key (all-zero DH output), which is the key's fault.
    const wrapped = await suite
      .seal({ recipientPublicKey: hpkePublicKey, info: HPKE_INFO }, contentKey)
      .catch(fail('invalid_key', 'cannot encapsulate to the recipient public key'));
    // The content key is fresh per envelope, so a random IV can never repeat under the same key.
    const iv = randomBytes(FABRIC_PAYLOAD_IV_BYTES);
    const aesKey = await subtle.importKey('raw', contentKey, 'AES-GCM', false, ['encrypt']);
    const ciphertext = await subtle.encrypt(
      {
        name: 'AES-GCM',
        iv,
        additionalData: payloadAad(recipientKid),
        tagLength: RFC9180_AES_256_GCM_NT * 8,
      },
      aesKey,
      payload,
    );

    const wrappedKey = new Uint8Array(FABRIC_WRAPPED_KEY_BYTES);
    wrappedKey.set(new Uint8Array(wrapped.enc), 0);
    wrappedKey.set(new Uint8Array(wrapped.ct), RFC9180_X25519_NENC);
    return {
      ciphertext_b64: bytesToBase64(new Uint8Array(ciphertext)),
      wrapped_key_b64: bytesToBase64(wrappedKey),
      payload_iv_b64: bytesToBase64(iv),
      recipient_kid: recipientKid,
    };
  } finally {
    // Best effort: the content key unlocks this payload alone, so our copy need not outlive the call.
    contentKey.fill(0);
  }
}

/**
 * Opens an envelope with the recipient's private key. A supplied public key must match the private key;
 * when omitted it is derived, since the address in the AAD is computed from it.
 */
export async function openEnvelope(input: OpenEnvelopeInput): Promise<Uint8Array> {
  const privateKey = parseKeyHex(input?.recipientPrivateKeyHex, 'recipient private key');
  const publicKey = x25519.getPublicKey(privateKey);
  if (input.recipientPublicKeyHex !== undefined) {
    const given = parseKeyHex(input.recipientPublicKeyHex, 'recipient public key');
    if (bytesToHex(given) !== bytesToHex(publicKey)) {
      throw new FabricCryptoError('invalid_key', 'recipient public key does not belong to the private key');
    }
  }

  const wrappedKey = base64ToBytes(input.wrapped_key_b64, 'wrapped_key_b64');
  const iv = base64ToBytes(input.payload_iv_b64, 'payload_iv_b64');
  const ciphertext = base64ToBytes(input.ciphertext_b64, 'ciphertext_b64');
  if (wrappedKey.length !== FABRIC_WRAPPED_KEY_BYTES) {
    throw new FabricCryptoError(
      'invalid_envelope',
      `wrapped_key_b64 must be ${FABRIC_WRAPPED_KEY_BYTES} bytes`,
    );
  }
  if (iv.length !== FABRIC_PAYLOAD_IV_BYTES) {
    throw new FabricCryptoError(
      'invalid_envelope',
      `payload_iv_b64 must be ${FABRIC_PAYLOAD_IV_BYTES} bytes`,
    );
  }
  if (ciphertext.length < RFC9180_AES_256_GCM_NT) {
    throw new FabricCryptoError('invalid_envelope', 'ciphertext_b64 is shorter than the GCM tag');
  }

  const unusableKey = fail('invalid_key', 'recipient private key is not a usable X25519 key');
  // Passing the pair spares @hpke/core re-deriving pkR for the KEM context (RFC 9180 §4.1).
  const recipientKey = {
    privateKey: await suite.kem.deserializePrivateKey(privateKey).catch(unusableKey),
    publicKey: await suite.kem.deserializePublicKey(publicKey).catch(unusableKey),
  };
  // One code and one message for every failure past this point, so callers learn nothing about which layer broke.
  const undecryptable = fail('decrypt_failed', 'envelope could not be decrypted');
  const contentKey = new Uint8Array(
    await suite
      .open(
        { recipientKey, enc: wrappedKey.subarray(0, RFC9180_X25519_NENC), info: HPKE_INFO },
        wrappedKey.subarray(RFC9180_X25519_NENC),
      )
      .catch(undecryptable),
  );
  try {
    const aesKey = await subtle
      .importKey('raw', contentKey, 'AES-GCM', false, ['decrypt'])
      .catch(undecryptable);
    const plaintext = await subtle
      .decrypt(
        {
          name: 'AES-GCM',
          iv,
          additionalData: payloadAad(keyId(publicKey)),
          tagLength: RFC9180_AES_256_GCM_NT * 8,
        },
        aesKey,
        ciphertext,
      )
      .catch(undecryptable);
    return new Uint8Array(plaintext);
  } finally {
    contentKey.fill(0);
  }
}

export interface OpenEnrollChallengeInput {
  /** `challenge_b64` as `POST …/fabric/enroll/challenge` answered it. */
  challenge_b64: string;
  privateKeyHex: string;
  /** When given, it must belong to the private key: the challenge was sealed to it. */
  publicKeyHex?: string;
}

/**
 * Opens an enroll challenge with the private key of the key pair being enrolled and answers the
 * `proof` enroll takes. `SvcClient.enrollFabric` runs both steps; this is for callers with their own client.
 */
export async function openEnrollChallenge(input: OpenEnrollChallengeInput): Promise<string> {
  const privateKey = parseKeyHex(input?.privateKeyHex, 'private key');
  const publicKey = x25519.getPublicKey(privateKey);
  if (input.publicKeyHex !== undefined) {
    const given = parseKeyHex(input.publicKeyHex, 'public key');
    if (bytesToHex(given) !== bytesToHex(publicKey)) {
      throw new FabricCryptoError('invalid_key', 'public key does not belong to the private key');
    }
  }
  const sealed = base64ToBytes(input.challenge_b64, 'challenge_b64');
  try {
    return await openChallenge({ privateKey, publicKey }, sealed);
  } catch (error) {
    if (!(error instanceof PossessionError)) throw error;
    throw new FabricCryptoError('decrypt_failed', 'the challenge does not open with this key', {
      cause: error,
    });
  }
}
