// RFC 8032 section 7.1 Ed25519 known answers through the service signer, the offline verifier and the kid formula.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { ServiceSigner } from '../../src/backend/signer.ts';
import { GENESIS_HASH, canonicalBytes, entryHash, signingKid } from '../../src/proofs/format.ts';
import { verifyReceiptOffline, type SignedReceipt } from '../../src/sdk/receipt.ts';

interface Ed25519Vector {
  name: string;
  secret_key: string;
  public_key: string;
  message_length: number;
  message: string;
  signature: string;
}

const rfc8032 = JSON.parse(
  readFileSync(new URL('./rfc8032-7.1-ed25519.json', import.meta.url), 'utf8'),
) as { source: string; algorithm: string; vectors: Ed25519Vector[] };

/** RFC 8410 section 4: the SPKI DER prefix before a raw 32-byte Ed25519 public key. */
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

const unhex = (hex: string): Buffer => Buffer.from(hex, 'hex');
const hex = (data: Uint8Array): string => Buffer.from(data).toString('hex');

/** Computed here with node:crypto alone, so the project's formula is checked against an outside answer. */
const kidOf = (publicKey: Uint8Array): string =>
  createHash('sha256').update(publicKey).digest('hex').slice(0, 16);

/** The service signer over a vault that holds only this seed: the signer reads nothing else from it. */
function signerWithSeed(seedHex: string): ServiceSigner {
  const vault = {
    secret(name: string): Buffer {
      if (name !== 'service-signing-ed25519') throw new Error(`unexpected key ${name}`);
      return unhex(seedHex);
    },
  };
  return new ServiceSigner(vault as unknown as ConstructorParameters<typeof ServiceSigner>[0]);
}

/** A copy with one bit inverted; bit 0 is the low bit of the first byte. */
function flipBit(data: Uint8Array, bit: number): Buffer {
  const out = Buffer.from(data);
  const at = bit >> 3;
  out.writeUInt8(out.readUInt8(at) ^ (1 << (bit & 7)), at);
  return out;
}

/** Bits at both ends of R and of S. */
const SIGNATURE_BITS = [0, 7, 255, 256, 504, 511];
/** Bit 255 is the sign of x; the others change y. */
const PUBLIC_KEY_BITS = [0, 100, 254, 255];

/** Messages one bit away from `message`; the empty message of TEST 1 has no bit, so it gains a byte. */
function alteredMessages(message: Buffer): Buffer[] {
  if (message.length === 0) return [Buffer.from([0])];
  const bits = message.length * 8;
  return [0, bits >> 1, bits - 1].map((bit) => flipBit(message, bit));
}

/** The signature check verifyReceiptOffline runs: @noble/curves with strict RFC 8032 decoding. */
const sdkSignatureCheck = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean =>
  ed25519.verify(signature, message, publicKey, { zip215: false });

/** node:crypto's verdict; a key that does not decode is a rejection, not an error. */
function nodeVerify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  try {
    const key = createPublicKey({
      key: Buffer.concat([SPKI_ED25519_PREFIX, publicKey]),
      format: 'der',
      type: 'spki',
    });
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}

it('holds the five vectors of RFC 8032 section 7.1, each message as long as the RFC says', () => {
  expect(rfc8032.source).toMatch(/^RFC 8032, Section 7\.1/);
  expect(rfc8032.vectors.map((v) => v.name)).toEqual(['TEST 1', 'TEST 2', 'TEST 3', 'TEST 1024', 'TEST SHA(abc)']);
  for (const v of rfc8032.vectors) expect(unhex(v.message).length).toBe(v.message_length);
  // The last message is SHA-512("abc"), which is how the RFC names it.
  const shaAbc = rfc8032.vectors.find((v) => v.name === 'TEST SHA(abc)')!;
  expect(createHash('sha512').update('abc').digest('hex')).toBe(shaAbc.message);
});

describe.each(rfc8032.vectors)('RFC 8032 section 7.1 $name', (v) => {
  const message = unhex(v.message);
  const signature = unhex(v.signature);
  const publicKey = unhex(v.public_key);
  const signer = signerWithSeed(v.secret_key);

  it('the service signer derives the RFC public key from the seed and publishes it under its kid', () => {
    expect(signer.publicKeyHex).toBe(v.public_key);
    expect(signer.kid).toBe(kidOf(publicKey));
    expect(signer.published()).toEqual([
      { signing_kid: kidOf(publicKey), alg: 'Ed25519', public_key_hex: v.public_key },
    ]);
    expect(signer.publicKeyHexFor(kidOf(publicKey))).toBe(v.public_key);
  });

  it('the service signer signs the message to the exact RFC signature', () => {
    expect(signer.sign(message)).toBe(v.signature);
  });

  it('the service verifier accepts the RFC signature and rejects a flipped bit in signature or message', () => {
    expect(signer.verify(signer.kid, message, v.signature)).toBe(true);
    for (const bit of SIGNATURE_BITS) {
      expect(signer.verify(signer.kid, message, hex(flipBit(signature, bit)))).toBe(false);
    }
    for (const altered of alteredMessages(message)) {
      expect(signer.verify(signer.kid, altered, v.signature)).toBe(false);
    }
  });

  it('a public key with a flipped bit verifies nothing: its kid is unknown and the curve check fails', () => {
    expect(nodeVerify(signature, message, publicKey)).toBe(true);
    for (const bit of PUBLIC_KEY_BITS) {
      const flipped = flipBit(publicKey, bit);
      expect(signer.verify(kidOf(flipped), message, v.signature)).toBe(false);
      expect(nodeVerify(signature, message, flipped)).toBe(false);
    }
  });

  it('the offline check (strict RFC 8032) accepts the RFC signature and rejects a flipped bit in each input', () => {
    expect(sdkSignatureCheck(signature, message, publicKey)).toBe(true);
    for (const bit of SIGNATURE_BITS) {
      expect(sdkSignatureCheck(flipBit(signature, bit), message, publicKey)).toBe(false);
    }
    for (const altered of alteredMessages(message)) {
      expect(sdkSignatureCheck(signature, altered, publicKey)).toBe(false);
    }
    for (const bit of PUBLIC_KEY_BITS) {
      expect(sdkSignatureCheck(signature, message, flipBit(publicKey, bit))).toBe(false);
    }
  });

  it('verifyReceiptOffline accepts a receipt signed with the RFC key and rejects a flipped bit in signature, payload and key', () => {
    // verifyReceiptOffline signs over a canonical payload, never raw bytes, so the RFC message rides inside one.
    const payload = {
      v: 1,
      id: `rcpt_1_${'0'.repeat(32)}`,
      kind: 'test.rfc8032',
      chain: 'service',
      chain_index: 1,
      prev_hash: GENESIS_HASH,
      signed_at: '2024-01-01T00:00:00.000Z',
      signing_kid: signer.kid,
      org_id: null,
      message_hex: v.message,
    };
    const bytes = canonicalBytes(payload);
    const receipt: SignedReceipt = {
      receipt_id: payload.id,
      signature_hex: signer.sign(bytes),
      signing_kid: signer.kid,
      signed_at: payload.signed_at,
      hash: entryHash(bytes),
      chain_index: 1,
      payload,
    };
    expect(verifyReceiptOffline(receipt, v.public_key)).toEqual({
      valid: true,
      checks: { kid_matches_key: true, payload_matches_receipt: true, hash_matches: true, signature: true },
    });

    for (const bit of SIGNATURE_BITS) {
      const verdict = verifyReceiptOffline(
        { ...receipt, signature_hex: hex(flipBit(unhex(receipt.signature_hex), bit)) },
        v.public_key,
      );
      expect(verdict.valid).toBe(false);
      expect(verdict.checks.signature).toBe(false);
    }
    for (const altered of alteredMessages(message)) {
      // Without a hash to compare, only the signature stands between the altered payload and acceptance.
      const verdict = verifyReceiptOffline(
        { ...receipt, hash: undefined, payload: { ...payload, message_hex: hex(altered) } },
        v.public_key,
      );
      expect(verdict.valid).toBe(false);
      expect(verdict.checks).toMatchObject({ hash_matches: true, signature: false });
    }
    for (const bit of PUBLIC_KEY_BITS) {
      const verdict = verifyReceiptOffline(receipt, hex(flipBit(publicKey, bit)));
      expect(verdict.valid).toBe(false);
      expect(verdict.checks.signature).toBe(false);
    }
  });
});

describe('signing_kid', () => {
  it('is the first 16 hex of SHA-256 over the raw 32-byte public key (RFC 8032 TEST 1 key)', () => {
    const test1 = rfc8032.vectors.find((v) => v.name === 'TEST 1')!;
    const raw = unhex(test1.public_key);
    expect(raw.length).toBe(32);
    const expected = createHash('sha256').update(raw).digest('hex').slice(0, 16);
    expect(expected).toMatch(/^[0-9a-f]{16}$/);
    expect(signingKid(raw)).toBe(expected);
    expect(signerWithSeed(test1.secret_key).kid).toBe(expected);
    // The kid names the raw key, not its SPKI encoding.
    expect(signingKid(Buffer.concat([SPKI_ED25519_PREFIX, raw]))).not.toBe(expected);
  });
});
