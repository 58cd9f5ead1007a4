// Key derivation: RFC 5869 known answers, the exact salt and info of every stored use, separation and the cache.
import { createHmac, hkdfSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { derivationInfo, deriveKey, hkdfSha256, type Derivation } from '../../src/vault/derive.ts';
import { VaultError } from '../../src/vault/key-vault.ts';
import { readVectors, storedSamples, unhex } from '../vectors/read.ts';
import { open, seal } from '../../src/vault/seal.ts';

interface HkdfVector {
  name: string;
  ikm: string;
  salt: string;
  info: string;
  length: number;
  prk: string;
  okm: string;
}

const rfc5869 = readVectors<{ source: string; vectors: HkdfVector[] }>('rfc5869-a-hkdf-sha256.json');
const stored = storedSamples();

const bytesOf = (key: KeyObject): string => key.export().toString('hex');
const secret = (): Buffer => Buffer.from(Array.from({ length: 32 }, (_, i) => 0x40 + i));

function expectVaultError(attempt: () => unknown, code: VaultError['code']): void {
  expect(attempt).toThrow(VaultError);
  try {
    attempt();
  } catch (error) {
    expect((error as VaultError).code).toBe(code);
  }
}

describe('RFC 5869 Appendix A, HKDF-SHA256 test cases 1 to 3', () => {
  it('cites its source and holds A.1 to A.3', () => {
    expect(rfc5869.source).toMatch(/RFC 5869, Appendix A/);
    expect(rfc5869.vectors.map((v) => v.name)).toEqual([
      'A.1 Test Case 1',
      'A.2 Test Case 2',
      'A.3 Test Case 3',
    ]);
  });

  it.each(rfc5869.vectors)('$name: hkdfSha256 gives the OKM', (v) => {
    const okm = hkdfSha256(unhex(v.ikm), unhex(v.salt), unhex(v.info), v.length);
    expect(okm.toString('hex')).toBe(v.okm);
    expect(okm).toHaveLength(v.length);
  });

  it.each(rfc5869.vectors)(
    '$name: the transcribed PRK is HMAC-SHA256(salt, IKM), so the file is whole',
    (v) => {
      // An empty salt stands for HashLen zero bytes (RFC 5869 section 2.2); HMAC pads a key with zeros anyway.
      expect(createHmac('sha256', unhex(v.salt)).update(unhex(v.ikm)).digest('hex')).toBe(v.prk);
    },
  );
});

describe('the derivations stores were written with, byte for byte', () => {
  const samples = [
    ['per-column keys', stored.column],
    ['per-capsule document keys', stored.capsule_document],
    ['per-organization source credential keys', stored.source_credential],
  ] as const;

  it.each(samples)('%s: the key sealed values were written under', (_name, sample) => {
    const key = deriveKey(unhex(stored.secrets[sample.secret]), sample.derivation);
    expect(bytesOf(key)).toBe(sample.key);
    // The HKDF call as the code before the move spelled it: UTF-8 salt and info, 32 bytes.
    const before = hkdfSync(
      'sha256',
      unhex(stored.secrets[sample.secret]),
      sample.hkdf.salt_utf8,
      sample.hkdf.info_utf8,
      32,
    );
    expect(Buffer.from(before).toString('hex')).toBe(sample.key);
  });

  it('builds info as the purpose, then each context part after one NUL', () => {
    expect(derivationInfo({ purpose: 'svc-column-v1', salt: 'org', context: ['customers', 'email'] })).toBe(
      'svc-column-v1\u0000customers\u0000email',
    );
    expect(derivationInfo({ purpose: 'svc-capsule-v1', salt: 'cap' })).toBe('svc-capsule-v1');
    expect(derivationInfo({ purpose: 'svc-capsule-v1', salt: 'cap', context: [] })).toBe('svc-capsule-v1');
    for (const sample of [stored.column, stored.capsule_document, stored.source_credential]) {
      expect(derivationInfo(sample.derivation)).toBe(sample.hkdf.info_utf8);
    }
  });
});

describe('separation: every part of a derivation is part of the key', () => {
  const base: Derivation = { purpose: 'svc-column-v1', salt: 'org_a', context: ['customers', 'email'] };
  const variants: [string, Derivation][] = [
    ['another purpose', { ...base, purpose: 'svc-column-v2' }],
    ['another salt', { ...base, salt: 'org_b' }],
    ['another table', { ...base, context: ['orders', 'email'] }],
    ['another column', { ...base, context: ['customers', 'phone'] }],
    ['the parts swapped', { ...base, context: ['email', 'customers'] }],
    ['the parts run together', { ...base, context: ['customersemail'] }],
    ['a part fewer', { ...base, context: ['customers'] }],
    ['a part more', { ...base, context: ['customers', 'email', ''] }],
  ];

  it.each(variants)('%s gives another key', (_name, other) => {
    expect(bytesOf(deriveKey(secret(), other))).not.toBe(bytesOf(deriveKey(secret(), base)));
  });

  it('another secret gives another key', () => {
    const other = secret();
    other.writeUInt8(other.readUInt8(0) ^ 1, 0);
    expect(bytesOf(deriveKey(other, base))).not.toBe(bytesOf(deriveKey(secret(), base)));
  });

  it('a value sealed under one purpose does not open under another', () => {
    const sealed = seal(deriveKey(secret(), base), 'ada@example.com');
    expect(() => open(deriveKey(secret(), { ...base, purpose: 'svc-source-credential-v1' }), sealed)).toThrow(
      VaultError,
    );
  });

  it('a salt given as bytes derives as its UTF-8 text does, and is cached apart from other salts', () => {
    const s = secret();
    const text = deriveKey(s, base);
    expect(bytesOf(deriveKey(s, { ...base, salt: Buffer.from('org_a', 'utf8') }))).toBe(bytesOf(text));
    // A text salt that spells another salt's base64 must not meet it in the cache.
    const bytesSalt = Buffer.from([0x69, 0xa6, 0x9a]);
    const lookalike = bytesSalt.toString('base64');
    expect(bytesOf(deriveKey(s, { ...base, salt: bytesSalt }))).not.toBe(
      bytesOf(deriveKey(s, { ...base, salt: lookalike })),
    );
  });
});

describe('the key and the cache', () => {
  it('is a 32-byte secret KeyObject that seals and opens', () => {
    const key = deriveKey(secret(), { purpose: 'svc-capsule-v1', salt: 'cap_1' });
    expect(key.type).toBe('secret');
    expect(key.symmetricKeySize).toBe(32);
    expect(
      open(
        key,
        seal(key, 'document', Buffer.from('cap_1\u0000doc_1')),
        Buffer.from('cap_1\u0000doc_1'),
      ).toString(),
    ).toBe('document');
  });

  it('derives once per secret and derivation, and keeps two secrets with equal bytes apart', () => {
    const s = secret();
    const derivation: Derivation = { purpose: 'svc-column-v1', salt: 'org_a', context: ['t', 'c'] };
    const first = deriveKey(s, derivation);
    expect(deriveKey(s, { ...derivation, context: ['t', 'c'] })).toBe(first);
    const twin = deriveKey(secret(), derivation);
    expect(twin).not.toBe(first);
    expect(bytesOf(twin)).toBe(bytesOf(first));
  });
});

describe('refusals', () => {
  it('refuses an empty purpose, and a NUL inside the purpose or a context part', () => {
    const refused: Derivation[] = [
      { purpose: '', salt: 'org' },
      { purpose: 'svc\u0000column-v1', salt: 'org' },
      { purpose: 'svc-column-v1', salt: 'org', context: ['customers\u0000email'] },
      { purpose: 'svc-column-v1', salt: 'org', context: ['customers', 'email\u0000'] },
    ];
    for (const derivation of refused) {
      expectVaultError(() => deriveKey(secret(), derivation), 'invalid_name');
      expectVaultError(() => derivationInfo(derivation), 'invalid_name');
    }
  });

  it('refuses a secret shorter than a vault secret, or one that is not bytes', () => {
    expectVaultError(() => deriveKey(Buffer.alloc(16, 1), { purpose: 'p', salt: 's' }), 'invalid_key');
    expectVaultError(() => deriveKey(Buffer.alloc(0), { purpose: 'p', salt: 's' }), 'invalid_key');
    expectVaultError(
      () => deriveKey('x'.repeat(32) as unknown as Uint8Array, { purpose: 'p', salt: 's' }),
      'invalid_key',
    );
  });
});
