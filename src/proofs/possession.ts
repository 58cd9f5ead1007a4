// Proof of possession of a Fabric key: the enroll challenge the service seals to an X25519 public key,
// which only the holder of the private key can open. Pure (WebCrypto through @hpke/core), so the
// service that seals and the SDK that opens agree byte for byte.
import { Aes256Gcm, CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from '@hpke/core';

/**
 * HPKE `info` of an enroll challenge (RFC 9180 §5.1). It differs from the envelopes' `svc-fabric-v1`,
 * so a challenge never opens as an envelope's content key and an envelope never opens as a challenge:
 * a recipient that opens what it is sent cannot be used to answer someone else's challenge.
 */
export const ENROLL_CHALLENGE_INFO = 'svc-fabric-enroll-v1';
/** RFC 9180 §7.1, Table 2: Nenc and Npk of DHKEM(X25519, HKDF-SHA256). */
export const ENROLL_CHALLENGE_ENC_BYTES = 32;
const X25519_KEY_BYTES = 32;
/** The challenge's plaintext is short text; anything longer did not come from the service. */
const MAX_CHALLENGE_PLAINTEXT_BYTES = 256;

// RFC 9180 base mode (the service is the anonymous sender), DHKEM(X25519, HKDF-SHA256), HKDF-SHA256,
// AES-256-GCM: the suite of the envelopes' key wrap, so one implementation serves both.
const suite = new CipherSuite({
  kem: new DhkemX25519HkdfSha256(),
  kdf: new HkdfSha256(),
  aead: new Aes256Gcm(),
});
const INFO = new TextEncoder().encode(ENROLL_CHALLENGE_INFO);

export class PossessionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PossessionError';
  }
}

function copy(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(bytes);
}

/**
 * Seals `text` to `publicKey` (32 raw bytes): HPKE base mode, empty AAD. Answers `enc ‖ ciphertext`.
 * Rejects with PossessionError for a key HPKE cannot encapsulate to (a low-order point, RFC 9180 §7.1.4).
 */
export async function sealEnrollChallenge(publicKey: Uint8Array, text: string): Promise<Uint8Array> {
  if (publicKey.length !== X25519_KEY_BYTES) throw new PossessionError('an X25519 public key is 32 bytes');
  const plaintext = new TextEncoder().encode(text);
  if (plaintext.length > MAX_CHALLENGE_PLAINTEXT_BYTES) throw new PossessionError('challenge text too long');
  try {
    const recipientPublicKey = await suite.kem.deserializePublicKey(copy(publicKey));
    const sealed = await suite.seal({ recipientPublicKey, info: INFO }, plaintext);
    const out = new Uint8Array(ENROLL_CHALLENGE_ENC_BYTES + sealed.ct.byteLength);
    out.set(new Uint8Array(sealed.enc), 0);
    out.set(new Uint8Array(sealed.ct), ENROLL_CHALLENGE_ENC_BYTES);
    return out;
  } catch (cause) {
    throw new PossessionError('cannot seal a challenge to this public key', { cause });
  }
}

/**
 * Opens a challenge with the key pair it was sealed to (32 raw bytes each) and answers its text.
 * Rejects with PossessionError when it does not open: another key, or altered bytes.
 */
export async function openEnrollChallenge(
  keyPair: { privateKey: Uint8Array; publicKey: Uint8Array },
  sealed: Uint8Array,
): Promise<string> {
  if (sealed.length <= ENROLL_CHALLENGE_ENC_BYTES) throw new PossessionError('challenge too short');
  try {
    const recipientKey = {
      privateKey: await suite.kem.deserializePrivateKey(copy(keyPair.privateKey)),
      publicKey: await suite.kem.deserializePublicKey(copy(keyPair.publicKey)),
    };
    const plaintext = await suite.open(
      { recipientKey, enc: copy(sealed.subarray(0, ENROLL_CHALLENGE_ENC_BYTES)), info: INFO },
      copy(sealed.subarray(ENROLL_CHALLENGE_ENC_BYTES)),
    );
    if (plaintext.byteLength > MAX_CHALLENGE_PLAINTEXT_BYTES) throw new Error('challenge text too long');
    return new TextDecoder('utf-8', { fatal: true }).decode(plaintext);
  } catch (cause) {
    throw new PossessionError('the challenge does not open with this key', { cause });
  }
}
