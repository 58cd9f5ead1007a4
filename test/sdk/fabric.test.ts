// Tests for the Fabric envelope crypto: RFC 9180 known answers, wire-format interop, tampering and round trips.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Aes128Gcm, Aes256Gcm, CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from '@hpke/core';
import { x25519 } from '@noble/curves/ed25519.js';
import { expand, extract } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  RFC9180_AEAD_AES_256_GCM,
  RFC9180_KDF_HKDF_SHA256,
  RFC9180_KEM_DHKEM_X25519_HKDF_SHA256,
  RFC9180_MODE_BASE,
  FABRIC_INFO,
  FABRIC_WRAPPED_KEY_BYTES,
  FabricCryptoError,
  fabricAddress,
  generateFabricKeyPair,
  openEnrollChallenge,
  openEnvelope,
  sealEnvelope,
  type FabricCryptoErrorCode,
  type FabricEnvelope,
  type FabricKeyPair,
  type OpenEnvelopeInput,
} from '../../src/sdk/fabric.ts';
import { ENROLL_CHALLENGE_INFO, sealEnrollChallenge } from '../../src/proofs/possession.ts';

interface Rfc9180Vector {
  source: string;
  mode: number;
  kem_id: number;
  kdf_id: number;
  aead_id: number;
  info: string;
  ikmE: string;
  pkEm: string;
  skEm: string;
  ikmR: string;
  pkRm: string;
  skRm: string;
  enc: string;
  shared_secret: string;
  key_schedule_context: string;
  secret: string;
  key: string;
  base_nonce: string;
  exporter_secret: string;
  encryptions: { sequence_number: number; pt: string; aad: string; nonce: string; ct: string }[];
  exports: { exporter_context: string; L: number; exported_value: string }[];
}

const a1: Rfc9180Vector = JSON.parse(
  readFileSync(new URL('../vectors/rfc9180-a1-base.json', import.meta.url), 'utf8'),
) as Rfc9180Vector;

const hex = (bytes: ArrayBuffer | Uint8Array): string => Buffer.from(new Uint8Array(bytes)).toString('hex');
const unhex = (s: string): Uint8Array<ArrayBuffer> => new Uint8Array(Buffer.from(s, 'hex'));
const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
const unb64 = (s: string): Uint8Array<ArrayBuffer> => new Uint8Array(Buffer.from(s, 'base64'));
const concat = (...parts: Uint8Array[]): Uint8Array<ArrayBuffer> => new Uint8Array(Buffer.concat(parts));
const utf8 = (s: string): Uint8Array<ArrayBuffer> => new TextEncoder().encode(s);
const i2osp = (n: number, w: number): Uint8Array => {
  const out = new Uint8Array(w);
  for (let i = w - 1, v = n; i >= 0; i--, v = Math.floor(v / 256)) out[i] = v % 256;
  return out;
};

function flipByte(s: string, index: number): string {
  const bytes = unb64(s);
  const i = index < 0 ? bytes.length + index : index;
  bytes[i] = (bytes[i] ?? 0) ^ 0x01;
  return b64(bytes);
}

const B64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

// Sets the unused low bits of the last data character of a padded base64 string.
function setPaddingBits(s: string): string {
  const at = s.indexOf('=') - 1;
  const index = B64_ALPHABET.indexOf(s.charAt(at));
  return s.slice(0, at) + B64_ALPHABET.charAt(index | 1) + s.slice(at + 1);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}

async function expectFabricError(promise: Promise<unknown>, code: FabricCryptoErrorCode): Promise<void> {
  const err = await rejection(promise);
  expect(err).toBeInstanceOf(FabricCryptoError);
  expect((err as FabricCryptoError).code).toBe(code);
}

const fabricSuite = new CipherSuite({
  kem: new DhkemX25519HkdfSha256(),
  kdf: new HkdfSha256(),
  aead: new Aes256Gcm(),
});

describe('RFC 9180 Appendix A.1.1 known answers (DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-128-GCM, base)', () => {
  const suite = new CipherSuite({
    kem: new DhkemX25519HkdfSha256(),
    kdf: new HkdfSha256(),
    aead: new Aes128Gcm(),
  });

  it('is the suite and mode it claims to be', () => {
    expect(a1.source).toContain('RFC 9180, Appendix A.1.1');
    expect([a1.mode, a1.kem_id, a1.kdf_id, a1.aead_id]).toEqual([0, 0x0020, 0x0001, 0x0001]);
    expect(a1.encryptions.map((e) => e.sequence_number)).toEqual([0, 1, 2, 4, 255, 256]);
  });

  it.each([
    ['ephemeral', 'ikmE', 'skEm', 'pkEm'],
    ['recipient', 'ikmR', 'skRm', 'pkRm'],
  ] as const)('DeriveKeyPair reproduces the %s key pair', async (_role, ikm, sk, pk) => {
    const pair = await suite.kem.deriveKeyPair(unhex(a1[ikm]));
    expect(hex(await suite.kem.serializePrivateKey(pair.privateKey))).toBe(a1[sk]);
    expect(hex(await suite.kem.serializePublicKey(pair.publicKey))).toBe(a1[pk]);
    // A second X25519 implementation agrees on the public key.
    expect(hex(x25519.getPublicKey(unhex(a1[sk])))).toBe(a1[pk]);
  });

  it('an independent key schedule (noble HKDF, RFC 9180 §4 and §5.1) reproduces every intermediate value', () => {
    const kemSuiteId = concat(utf8('KEM'), i2osp(a1.kem_id, 2));
    const hpkeSuiteId = concat(utf8('HPKE'), i2osp(a1.kem_id, 2), i2osp(a1.kdf_id, 2), i2osp(a1.aead_id, 2));
    const labeledExtract = (suiteId: Uint8Array, salt: Uint8Array, label: string, ikm: Uint8Array) =>
      extract(sha256, concat(utf8('HPKE-v1'), suiteId, utf8(label), ikm), salt);
    const labeledExpand = (
      suiteId: Uint8Array,
      prk: Uint8Array,
      label: string,
      info: Uint8Array,
      L: number,
    ) => expand(sha256, prk, concat(i2osp(L, 2), utf8('HPKE-v1'), suiteId, utf8(label), info), L);
    const empty = new Uint8Array(0);

    const dh = x25519.getSharedSecret(unhex(a1.skEm), unhex(a1.pkRm));
    expect(hex(x25519.getSharedSecret(unhex(a1.skRm), unhex(a1.enc)))).toBe(hex(dh));
    const eaePrk = labeledExtract(kemSuiteId, empty, 'eae_prk', dh);
    const kemContext = concat(unhex(a1.enc), unhex(a1.pkRm));
    const sharedSecret = labeledExpand(kemSuiteId, eaePrk, 'shared_secret', kemContext, 32);
    expect(hex(sharedSecret)).toBe(a1.shared_secret);

    const pskIdHash = labeledExtract(hpkeSuiteId, empty, 'psk_id_hash', empty);
    const infoHash = labeledExtract(hpkeSuiteId, empty, 'info_hash', unhex(a1.info));
    const context = concat(i2osp(a1.mode, 1), pskIdHash, infoHash);
    expect(hex(context)).toBe(a1.key_schedule_context);
    const secret = labeledExtract(hpkeSuiteId, sharedSecret, 'secret', empty);
    expect(hex(secret)).toBe(a1.secret);
    expect(hex(labeledExpand(hpkeSuiteId, secret, 'key', context, 16))).toBe(a1.key);
    expect(hex(labeledExpand(hpkeSuiteId, secret, 'base_nonce', context, 12))).toBe(a1.base_nonce);
    expect(hex(labeledExpand(hpkeSuiteId, secret, 'exp', context, 32))).toBe(a1.exporter_secret);
  });

  it.each(a1.encryptions)(
    'AES-128-GCM from node:crypto with key and nonce gives ct for sequence $sequence_number',
    ({ sequence_number, pt, aad, nonce, ct }) => {
      // RFC 9180 §5.2: nonce = base_nonce XOR I2OSP(seq, Nn).
      const expectedNonce = unhex(a1.base_nonce).map((b, i) => b ^ (i2osp(sequence_number, 12)[i] ?? 0));
      expect(hex(expectedNonce)).toBe(nonce);
      const cipher = createCipheriv('aes-128-gcm', unhex(a1.key), unhex(nonce));
      cipher.setAAD(unhex(aad));
      const out = Buffer.concat([cipher.update(unhex(pt)), cipher.final(), cipher.getAuthTag()]);
      expect(out.toString('hex')).toBe(ct);
    },
  );

  it('@hpke/core with the fixed ephemeral key reproduces enc, every ciphertext and every export; the recipient opens them', async () => {
    const info = unhex(a1.info);
    const ekm = await suite.kem.deriveKeyPair(unhex(a1.ikmE));
    const recipient = await suite.kem.deriveKeyPair(unhex(a1.ikmR));
    const sender = await suite.createSenderContext({ recipientPublicKey: recipient.publicKey, info, ekm });
    expect(hex(sender.enc)).toBe(a1.enc);
    const receiver = await suite.createRecipientContext({
      recipientKey: recipient,
      enc: unhex(a1.enc),
      info,
    });

    const wanted = new Map(a1.encryptions.map((e) => [e.sequence_number, e]));
    const last = Math.max(...wanted.keys());
    const pt = unhex(a1.encryptions[0]?.pt ?? '');
    // The contexts only move forward, so the unlisted sequence numbers are sealed and opened too.
    for (let seq = 0; seq <= last; seq++) {
      const vector = wanted.get(seq);
      const aad = vector ? unhex(vector.aad) : utf8(`Count-${seq}`);
      const ct = await sender.seal(vector ? unhex(vector.pt) : pt, aad);
      if (vector) expect(hex(ct)).toBe(vector.ct);
      const opened = await receiver.open(ct, aad);
      if (vector) expect(hex(opened)).toBe(vector.pt);
    }

    for (const { exporter_context, L, exported_value } of a1.exports) {
      expect(hex(await sender.export(unhex(exporter_context), L))).toBe(exported_value);
      expect(hex(await receiver.export(unhex(exporter_context), L))).toBe(exported_value);
    }
  });

  it('the recipient context rejects the published ciphertext under the wrong aad', async () => {
    const recipient = await suite.kem.deriveKeyPair(unhex(a1.ikmR));
    const first = a1.encryptions[0];
    if (!first) throw new Error('vector has no encryptions');
    const receiver = await suite.createRecipientContext({
      recipientKey: recipient,
      enc: unhex(a1.enc),
      info: unhex(a1.info),
    });
    await expect(receiver.open(unhex(first.ct), utf8('Count-1'))).rejects.toThrow();
  });
});

describe('Fabric wire format', () => {
  let pair: FabricKeyPair;
  beforeAll(async () => {
    pair = await generateFabricKeyPair();
  });

  it('the exported RFC 9180 identifiers are the ones @hpke/core runs', () => {
    expect(RFC9180_MODE_BASE).toBe(0);
    expect([fabricSuite.kem.id, fabricSuite.kdf.id, fabricSuite.aead.id]).toEqual([
      RFC9180_KEM_DHKEM_X25519_HKDF_SHA256,
      RFC9180_KDF_HKDF_SHA256,
      RFC9180_AEAD_AES_256_GCM,
    ]);
  });

  it('sealEnvelope emits HPKE base mode (info svc-fabric-v1) and AES-256-GCM bound to the kid', async () => {
    const plaintext = utf8('interop check');
    const env = await sealEnvelope({ plaintext, recipientPublicKeyHex: pair.publicKeyHex });
    const wrapped = unb64(env.wrapped_key_b64);
    const iv = unb64(env.payload_iv_b64);
    const ct = unb64(env.ciphertext_b64);
    expect([wrapped.length, iv.length, ct.length]).toEqual([80, 12, plaintext.length + 16]);
    expect(FABRIC_WRAPPED_KEY_BYTES).toBe(80);
    expect(env.recipient_kid).toBe(fabricAddress(pair.publicKeyHex));

    const recipientKey = await fabricSuite.kem.deserializePrivateKey(unhex(pair.privateKeyHex));
    const contentKey = new Uint8Array(
      await fabricSuite.open(
        { recipientKey, enc: wrapped.subarray(0, 32), info: utf8(FABRIC_INFO) },
        wrapped.subarray(32),
      ),
    );
    expect(contentKey.length).toBe(32);
    const decipher = createDecipheriv('aes-256-gcm', contentKey, iv);
    decipher.setAAD(utf8(`svc-fabric-v1|${env.recipient_kid}`));
    decipher.setAuthTag(ct.subarray(ct.length - 16));
    const opened = Buffer.concat([decipher.update(ct.subarray(0, ct.length - 16)), decipher.final()]);
    expect(hex(opened)).toBe(hex(plaintext));
  });

  it('openEnvelope opens an envelope built independently with @hpke/core and node:crypto', async () => {
    const recipientPublicKey = await fabricSuite.kem.deserializePublicKey(unhex(pair.publicKeyHex));
    const ekm = await fabricSuite.kem.deriveKeyPair(unhex(a1.ikmE));
    const contentKey = randomBytes(32);
    const iv = randomBytes(12);
    const sender = await fabricSuite.createSenderContext({
      recipientPublicKey,
      info: utf8('svc-fabric-v1'),
      ekm,
    });
    const wrappedCt = new Uint8Array(await sender.seal(contentKey));
    const cipher = createCipheriv('aes-256-gcm', contentKey, iv);
    cipher.setAAD(utf8(`svc-fabric-v1|${fabricAddress(pair.publicKeyHex)}`));
    const plaintext = utf8('built by hand');
    const ct = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);

    const opened = await openEnvelope({
      ciphertext_b64: ct.toString('base64'),
      wrapped_key_b64: b64(concat(new Uint8Array(sender.enc), wrappedCt)),
      payload_iv_b64: iv.toString('base64'),
      recipientPrivateKeyHex: pair.privateKeyHex,
    });
    expect(hex(opened)).toBe(hex(plaintext));
  });
});

describe('openEnvelope rejects hostile input with FabricCryptoError', () => {
  let alice: FabricKeyPair;
  let bob: FabricKeyPair;
  let env: FabricEnvelope;
  let good: OpenEnvelopeInput;

  beforeAll(async () => {
    alice = await generateFabricKeyPair();
    bob = await generateFabricKeyPair();
    env = await sealEnvelope({ plaintext: 'for alice only', recipientPublicKeyHex: alice.publicKeyHex });
    good = {
      ciphertext_b64: env.ciphertext_b64,
      wrapped_key_b64: env.wrapped_key_b64,
      payload_iv_b64: env.payload_iv_b64,
      recipientPrivateKeyHex: alice.privateKeyHex,
    };
  });

  it('the unmodified envelope opens (control)', async () => {
    expect(new TextDecoder().decode(await openEnvelope(good))).toBe('for alice only');
  });

  const truncate = (s: string, bytes: number) => b64(unb64(s).subarray(0, bytes));
  const cases: {
    name: string;
    code: FabricCryptoErrorCode;
    mutate: (e: OpenEnvelopeInput) => OpenEnvelopeInput;
  }[] = [
    {
      name: 'tampered ciphertext byte',
      code: 'decrypt_failed',
      mutate: (e) => ({ ...e, ciphertext_b64: flipByte(e.ciphertext_b64, 0) }),
    },
    {
      name: 'tampered GCM tag',
      code: 'decrypt_failed',
      mutate: (e) => ({ ...e, ciphertext_b64: flipByte(e.ciphertext_b64, -1) }),
    },
    {
      name: 'tampered HPKE enc',
      code: 'decrypt_failed',
      mutate: (e) => ({ ...e, wrapped_key_b64: flipByte(e.wrapped_key_b64, 0) }),
    },
    {
      name: 'low-order HPKE enc (all zero)',
      code: 'decrypt_failed',
      mutate: (e) => ({
        ...e,
        wrapped_key_b64: b64(concat(new Uint8Array(32), unb64(e.wrapped_key_b64).subarray(32))),
      }),
    },
    {
      name: 'tampered wrapped content key',
      code: 'decrypt_failed',
      mutate: (e) => ({ ...e, wrapped_key_b64: flipByte(e.wrapped_key_b64, 40) }),
    },
    {
      name: 'tampered wrapped key tag',
      code: 'decrypt_failed',
      mutate: (e) => ({ ...e, wrapped_key_b64: flipByte(e.wrapped_key_b64, -1) }),
    },
    {
      name: 'tampered IV',
      code: 'decrypt_failed',
      mutate: (e) => ({ ...e, payload_iv_b64: flipByte(e.payload_iv_b64, 0) }),
    },
    {
      name: 'ciphertext truncated by one byte',
      code: 'decrypt_failed',
      mutate: (e) => ({
        ...e,
        ciphertext_b64: truncate(e.ciphertext_b64, unb64(e.ciphertext_b64).length - 1),
      }),
    },
    {
      name: 'ciphertext truncated below the tag length',
      code: 'invalid_envelope',
      mutate: (e) => ({ ...e, ciphertext_b64: truncate(e.ciphertext_b64, 15) }),
    },
    {
      name: 'wrapped key truncated by one byte',
      code: 'invalid_envelope',
      mutate: (e) => ({ ...e, wrapped_key_b64: truncate(e.wrapped_key_b64, 79) }),
    },
    {
      name: 'wrapped key cut to the bare enc',
      code: 'invalid_envelope',
      mutate: (e) => ({ ...e, wrapped_key_b64: truncate(e.wrapped_key_b64, 32) }),
    },
    {
      name: 'wrapped key with a trailing byte',
      code: 'invalid_envelope',
      mutate: (e) => ({ ...e, wrapped_key_b64: b64(concat(unb64(e.wrapped_key_b64), new Uint8Array(1))) }),
    },
    {
      name: 'IV truncated',
      code: 'invalid_envelope',
      mutate: (e) => ({ ...e, payload_iv_b64: truncate(e.payload_iv_b64, 11) }),
    },
    {
      name: 'wrong recipient private key',
      code: 'decrypt_failed',
      mutate: (e) => ({ ...e, recipientPrivateKeyHex: bob.privateKeyHex }),
    },
    {
      name: 'public key that does not match the private key',
      code: 'invalid_key',
      mutate: (e) => ({ ...e, recipientPublicKeyHex: bob.publicKeyHex }),
    },
    {
      name: 'invalid base64 in ciphertext',
      code: 'invalid_envelope',
      mutate: (e) => ({ ...e, ciphertext_b64: '!!!not base64!!!' }),
    },
    {
      name: 'invalid base64 in wrapped key',
      code: 'invalid_envelope',
      mutate: (e) => ({ ...e, wrapped_key_b64: `${e.wrapped_key_b64.slice(0, -4)}*==*` }),
    },
    {
      name: 'invalid base64 in IV',
      code: 'invalid_envelope',
      mutate: (e) => ({ ...e, payload_iv_b64: 'AAAA$AAA' }),
    },
    {
      name: 'base64url alphabet instead of standard base64',
      code: 'invalid_envelope',
      mutate: (e) => ({ ...e, payload_iv_b64: '-_-_-_-_-_-_-_-_' }),
    },
    {
      name: 'base64 with the padding stripped',
      code: 'invalid_envelope',
      mutate: (e) => ({ ...e, wrapped_key_b64: e.wrapped_key_b64.replace(/=+$/, '') }),
    },
    {
      name: 'base64 with embedded whitespace',
      code: 'invalid_envelope',
      mutate: (e) => ({
        ...e,
        ciphertext_b64: ` ${e.ciphertext_b64.slice(0, 4)}\n${e.ciphertext_b64.slice(4)}`,
      }),
    },
    {
      // Same bytes to a lenient decoder, so without the canonical check this envelope would open.
      name: 'base64 with non-zero padding bits (non-canonical)',
      code: 'invalid_envelope',
      mutate: (e) => ({ ...e, wrapped_key_b64: setPaddingBits(e.wrapped_key_b64) }),
    },
    { name: 'empty ciphertext', code: 'invalid_envelope', mutate: (e) => ({ ...e, ciphertext_b64: '' }) },
    { name: 'empty wrapped key', code: 'invalid_envelope', mutate: (e) => ({ ...e, wrapped_key_b64: '' }) },
    { name: 'empty IV', code: 'invalid_envelope', mutate: (e) => ({ ...e, payload_iv_b64: '' }) },
    { name: 'empty private key', code: 'invalid_key', mutate: (e) => ({ ...e, recipientPrivateKeyHex: '' }) },
    {
      name: 'private key one byte short',
      code: 'invalid_key',
      mutate: (e) => ({ ...e, recipientPrivateKeyHex: e.recipientPrivateKeyHex.slice(2) }),
    },
    {
      name: 'private key that is not hex',
      code: 'invalid_key',
      mutate: (e) => ({ ...e, recipientPrivateKeyHex: 'zz' + e.recipientPrivateKeyHex.slice(2) }),
    },
    {
      name: 'a field that is not a string',
      code: 'invalid_envelope',
      mutate: (e) => ({ ...e, ciphertext_b64: 42 as unknown as string }),
    },
    {
      name: 'a missing field',
      code: 'invalid_envelope',
      mutate: (e) => ({ ...e, wrapped_key_b64: undefined as unknown as string }),
    },
  ];

  it.each(cases)('$name -> $code', async ({ mutate, code }) => {
    await expectFabricError(openEnvelope(mutate(good)), code);
  });

  it('an envelope replayed to another address fails on the AAD even with a validly re-wrapped content key', async () => {
    // Alice (who can unwrap the content key) re-wraps it for Bob and forwards the untouched payload.
    const wrapped = unb64(env.wrapped_key_b64);
    const contentKey = new Uint8Array(
      await fabricSuite.open(
        {
          recipientKey: await fabricSuite.kem.deserializePrivateKey(unhex(alice.privateKeyHex)),
          enc: wrapped.subarray(0, 32),
          info: utf8(FABRIC_INFO),
        },
        wrapped.subarray(32),
      ),
    );
    const rewrapped = await fabricSuite.seal(
      {
        recipientPublicKey: await fabricSuite.kem.deserializePublicKey(unhex(bob.publicKeyHex)),
        info: utf8(FABRIC_INFO),
      },
      contentKey,
    );
    const replayed: OpenEnvelopeInput = {
      ...good,
      wrapped_key_b64: b64(concat(new Uint8Array(rewrapped.enc), new Uint8Array(rewrapped.ct))),
      recipientPrivateKeyHex: bob.privateKeyHex,
    };
    await expectFabricError(openEnvelope(replayed), 'decrypt_failed');

    // Control: the content key Bob unwraps is the real one; only the address in the AAD stops him.
    const ct = unb64(env.ciphertext_b64);
    const decipher = createDecipheriv('aes-256-gcm', contentKey, unb64(env.payload_iv_b64));
    decipher.setAAD(utf8(`svc-fabric-v1|${fabricAddress(alice.publicKeyHex)}`));
    decipher.setAuthTag(ct.subarray(ct.length - 16));
    const opened = Buffer.concat([decipher.update(ct.subarray(0, ct.length - 16)), decipher.final()]);
    expect(opened.toString('utf8')).toBe('for alice only');
  });

  it('a missing input object is an invalid_key error, not a TypeError', async () => {
    await expectFabricError(openEnvelope(undefined as unknown as OpenEnvelopeInput), 'invalid_key');
  });
});

describe('sealEnvelope rejects unusable input with FabricCryptoError', () => {
  const lowOrderPoints = [
    '0000000000000000000000000000000000000000000000000000000000000000',
    '0100000000000000000000000000000000000000000000000000000000000000',
    'e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800',
  ];
  const cases: { name: string; key: unknown; plaintext?: unknown; code: FabricCryptoErrorCode }[] = [
    { name: 'empty public key', key: '', code: 'invalid_key' },
    { name: 'public key one byte short', key: 'ab'.repeat(31), code: 'invalid_key' },
    { name: 'public key one byte long', key: 'ab'.repeat(33), code: 'invalid_key' },
    { name: 'public key that is not hex', key: 'xy'.repeat(32), code: 'invalid_key' },
    { name: 'public key that is not a string', key: 7, code: 'invalid_key' },
    ...lowOrderPoints.map((key) => ({
      name: `low-order public key ${key.slice(0, 8)}`,
      key,
      code: 'invalid_key' as const,
    })),
    { name: 'plaintext of the wrong type', key: 'ab'.repeat(32), plaintext: 12, code: 'invalid_envelope' },
    { name: 'plaintext missing', key: 'ab'.repeat(32), plaintext: null, code: 'invalid_envelope' },
  ];

  it.each(cases)('$name -> $code', async ({ key, plaintext, code }) => {
    const input = { plaintext: plaintext === undefined ? 'x' : plaintext, recipientPublicKeyHex: key };
    await expectFabricError(sealEnvelope(input as Parameters<typeof sealEnvelope>[0]), code);
  });
});

describe('round trip', () => {
  let pair: FabricKeyPair;
  beforeAll(async () => {
    pair = await generateFabricKeyPair();
  });

  const cases: { name: string; plaintext: () => Uint8Array | string }[] = [
    { name: 'ASCII string', plaintext: () => 'hello fabric' },
    { name: 'non-ASCII string', plaintext: () => 'grüße, 世界 🧵' },
    { name: 'empty string', plaintext: () => '' },
    { name: 'empty bytes', plaintext: () => new Uint8Array(0) },
    { name: 'every byte value', plaintext: () => Uint8Array.from({ length: 256 }, (_, i) => i) },
    { name: 'a view into a larger buffer', plaintext: () => new Uint8Array(randomBytes(64)).subarray(7, 39) },
    { name: '1 MiB of random bytes', plaintext: () => new Uint8Array(randomBytes(1024 * 1024)) },
  ];

  it.each(cases)('$name', async ({ plaintext }) => {
    const pt = plaintext();
    const expected = typeof pt === 'string' ? utf8(pt) : pt;
    const env = await sealEnvelope({ plaintext: pt, recipientPublicKeyHex: pair.publicKeyHex });
    expect(env.recipient_kid).toBe(fabricAddress(pair.publicKeyHex));
    expect(unb64(env.ciphertext_b64).length).toBe(expected.length + 16);
    const input = { ...env, recipientPrivateKeyHex: pair.privateKeyHex };
    expect(hex(await openEnvelope(input))).toBe(hex(expected));
    expect(hex(await openEnvelope({ ...input, recipientPublicKeyHex: pair.publicKeyHex }))).toBe(
      hex(expected),
    );
  });

  it('accepts keys in upper-case hex', async () => {
    const env = await sealEnvelope({
      plaintext: 'case',
      recipientPublicKeyHex: pair.publicKeyHex.toUpperCase(),
    });
    expect(env.recipient_kid).toBe(fabricAddress(pair.publicKeyHex));
    const opened = await openEnvelope({ ...env, recipientPrivateKeyHex: pair.privateKeyHex.toUpperCase() });
    expect(new TextDecoder().decode(opened)).toBe('case');
  });

  it('two seals of the same plaintext share nothing but the kid', async () => {
    const a = await sealEnvelope({ plaintext: 'same', recipientPublicKeyHex: pair.publicKeyHex });
    const b = await sealEnvelope({ plaintext: 'same', recipientPublicKeyHex: pair.publicKeyHex });
    expect(a.ciphertext_b64).not.toBe(b.ciphertext_b64);
    expect(a.wrapped_key_b64).not.toBe(b.wrapped_key_b64);
    expect(unb64(a.wrapped_key_b64).subarray(0, 32)).not.toEqual(unb64(b.wrapped_key_b64).subarray(0, 32));
    expect(a.payload_iv_b64).not.toBe(b.payload_iv_b64);
    expect(a.recipient_kid).toBe(b.recipient_kid);
  });

  it('sealing does not depend on the caller keeping its buffer unchanged', async () => {
    const buf = utf8('stable');
    const pending = sealEnvelope({ plaintext: buf, recipientPublicKeyHex: pair.publicKeyHex });
    buf.fill(0);
    const env = await pending;
    const opened = await openEnvelope({ ...env, recipientPrivateKeyHex: pair.privateKeyHex });
    expect(new TextDecoder().decode(opened)).toBe('stable');
  });
});

describe('generateFabricKeyPair', () => {
  it('returns raw 32-byte X25519 keys in lowercase hex, fresh each time', async () => {
    const a = await generateFabricKeyPair();
    const b = await generateFabricKeyPair();
    for (const k of [a.publicKeyHex, a.privateKeyHex, b.publicKeyHex, b.privateKeyHex]) {
      expect(k).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(hex(x25519.getPublicKey(unhex(a.privateKeyHex)))).toBe(a.publicKeyHex);
    expect(a.privateKeyHex).not.toBe(b.privateKeyHex);
    expect(a.publicKeyHex).not.toBe(b.publicKeyHex);
  });
});

describe('fabricAddress', () => {
  const nodeAddress = (publicKeyHex: string) =>
    createHash('sha256').update(Buffer.from(publicKeyHex, 'hex')).digest('hex').slice(0, 16);

  it('is the first 16 lowercase hex characters of SHA-256 over the raw public key', async () => {
    const keys = [a1.pkRm, a1.pkEm, (await generateFabricKeyPair()).publicKeyHex];
    for (const key of keys) {
      const address = fabricAddress(key);
      expect(address).toMatch(/^[0-9a-f]{16}$/);
      expect(address).toBe(nodeAddress(key));
      expect(fabricAddress(key.toUpperCase())).toBe(address);
    }
  });

  it.each([
    ['empty', ''],
    ['too short', 'ab'.repeat(31)],
    ['too long', 'ab'.repeat(33)],
    ['not hex', 'g'.repeat(64)],
    ['with a 0x prefix', `0x${'ab'.repeat(31)}`],
  ])('rejects a key that is %s with invalid_key', (_name, key) => {
    let caught: unknown;
    try {
      fabricAddress(key);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(FabricCryptoError);
    expect((caught as FabricCryptoError).code).toBe('invalid_key');
  });
});

describe('openEnrollChallenge', () => {
  let pair: FabricKeyPair;
  beforeAll(async () => {
    pair = await generateFabricKeyPair();
  });

  /** A challenge built independently: HPKE base mode to the key, info svc-fabric-enroll-v1, enc then ciphertext. */
  async function challengeByHand(publicKeyHex: string, text: string, info = 'svc-fabric-enroll-v1') {
    const recipientPublicKey = await fabricSuite.kem.deserializePublicKey(unhex(publicKeyHex));
    const sealed = await fabricSuite.seal({ recipientPublicKey, info: utf8(info) }, utf8(text));
    return b64(concat(new Uint8Array(sealed.enc), new Uint8Array(sealed.ct)));
  }

  it('opens a challenge built independently with @hpke/core to its text', async () => {
    expect(ENROLL_CHALLENGE_INFO).toBe('svc-fabric-enroll-v1');
    const challenge_b64 = await challengeByHand(pair.publicKeyHex, '1767225600.' + 'ab'.repeat(32));
    const proof = await openEnrollChallenge({ challenge_b64, privateKeyHex: pair.privateKeyHex });
    expect(proof).toBe('1767225600.' + 'ab'.repeat(32));
  });

  it("opens what the service's sealing produces", async () => {
    const sealed = await sealEnrollChallenge(unhex(pair.publicKeyHex), 'round trip');
    expect(sealed.length).toBe(32 + 'round trip'.length + 16);
    expect(await openEnrollChallenge({ challenge_b64: b64(sealed), privateKeyHex: pair.privateKeyHex })).toBe(
      'round trip',
    );
  });

  it('an envelope key wrap (info svc-fabric-v1) never opens as a challenge, so opening envelopes answers no challenge', async () => {
    const challenge_b64 = await challengeByHand(pair.publicKeyHex, 'x'.repeat(32), FABRIC_INFO);
    await expect(
      openEnrollChallenge({ challenge_b64, privateKeyHex: pair.privateKeyHex }),
    ).rejects.toMatchObject({ code: 'decrypt_failed' });
  });

  it.each([
    [
      'another private key',
      async () => ({ privateKeyHex: (await generateFabricKeyPair()).privateKeyHex }),
      'decrypt_failed',
    ],
    [
      'a public key of another pair',
      async () => ({ publicKeyHex: (await generateFabricKeyPair()).publicKeyHex }),
      'invalid_key',
    ],
    ['a private key that is not hex', async () => ({ privateKeyHex: 'zz'.repeat(32) }), 'invalid_key'],
    ['base64 that is not canonical', async () => ({ challenge_b64: 'AAAA AAAA' }), 'invalid_envelope'],
    ['a challenge cut short', async () => ({ challenge_b64: b64(new Uint8Array(32)) }), 'decrypt_failed'],
  ] as const)('refuses %s with %s', async (_name, change, code) => {
    const challenge_b64 = await challengeByHand(pair.publicKeyHex, 'text');
    const input = { challenge_b64, privateKeyHex: pair.privateKeyHex, ...(await change()) };
    await expect(openEnrollChallenge(input)).rejects.toMatchObject({ name: 'FabricCryptoError', code });
  });
});
