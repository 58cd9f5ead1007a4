// Sealing: the GCM spec's AES-256 known answers, the stored layout, old stores, and every way a value fails to open.
import { createDecipheriv, createSecretKey, generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deriveKey } from '../../src/vault/derive.ts';
import { VaultError } from '../../src/vault/key-vault.ts';
import { readVectors, storedSamples, unhex } from '../vectors/read.ts';
import { open, seal, unseal, type SealKey } from '../../src/vault/seal.ts';

/**
 * IVs the next seals take instead of random ones, so a seal can be checked against a published
 * answer without the module offering a fixed-IV seal that real code could misuse.
 */
const forcedIvs = vi.hoisted(() => [] as Buffer[]);
const ivRequests = vi.hoisted(() => [] as number[]);
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  const randomBytes = (size: number): Buffer => {
    ivRequests.push(size);
    return forcedIvs.shift() ?? actual.randomBytes(size);
  };
  return { ...actual, default: { ...actual, randomBytes }, randomBytes };
});
afterEach(() => {
  forcedIvs.length = 0;
  ivRequests.length = 0;
});

interface GcmVector {
  name: string;
  key: string;
  iv: string;
  plaintext: string;
  aad: string;
  ciphertext: string;
  tag: string;
}

const gcm = readVectors<{ source: string; vectors: GcmVector[] }>('gcm-spec-b-aes256.json');
const stored = storedSamples();

/** The sealed form of a vector: base64 of IV ‖ C ‖ T, written out here rather than by the module. */
const sealedOf = (v: GcmVector): string =>
  Buffer.concat([unhex(v.iv), unhex(v.ciphertext), unhex(v.tag)]).toString('base64');
/** A copy of `raw` with bit `bit` inverted; bit 0 is the low bit of the first byte. */
function flipBit(raw: Buffer, bit: number): Buffer {
  const out = Buffer.from(raw);
  out.writeUInt8(out.readUInt8(bit >> 3) ^ (1 << (bit & 7)), bit >> 3);
  return out;
}

/** Asserts the typed, closed failure, and that its message carries none of the secrets involved. */
function expectCorrupt(attempt: () => unknown, ...secrets: string[]): void {
  let thrown: unknown;
  try {
    attempt();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(VaultError);
  expect((thrown as VaultError).code).toBe('sealed_corrupt');
  for (const secret of secrets.filter((s) => s.length >= 4)) {
    expect((thrown as VaultError).message).not.toContain(secret);
  }
}

const tc16 = gcm.vectors.find((v) => v.name === 'Test Case 16')!;
const tc16Key = unhex(tc16.key);
const tc16Sealed = sealedOf(tc16);
const tc16Raw = Buffer.from(tc16Sealed, 'base64');

describe('the GCM specification, Appendix B, AES-256 test cases (McGrew and Viega)', () => {
  it('cites its source and holds the four 96-bit-IV AES-256 cases', () => {
    expect(gcm.source).toMatch(/McGrew and J\. Viega.*Appendix B/);
    expect(gcm.vectors.map((v) => v.name)).toEqual([
      'Test Case 13',
      'Test Case 14',
      'Test Case 15',
      'Test Case 16',
    ]);
  });

  it.each(gcm.vectors)('$name: seal with the test IV gives IV ‖ C ‖ T', (v) => {
    forcedIvs.push(unhex(v.iv));
    const sealed = seal(unhex(v.key), unhex(v.plaintext), v.aad ? unhex(v.aad) : undefined);
    expect(ivRequests).toEqual([12]);
    expect(sealed).toBe(sealedOf(v));
  });

  it.each(gcm.vectors)('$name: open gives P, with the key as bytes and as a KeyObject', (v) => {
    const aad = v.aad ? unhex(v.aad) : undefined;
    expect(open(unhex(v.key), sealedOf(v), aad).toString('hex')).toBe(v.plaintext);
    expect(open(createSecretKey(unhex(v.key)), sealedOf(v), aad).toString('hex')).toBe(v.plaintext);
  });
});

describe('the stored form', () => {
  it('is base64 of a fresh 12-byte IV, the ciphertext (as long as the plaintext) and a 16-byte tag', () => {
    const key = createSecretKey(tc16Key);
    const plaintext = 'an example value, sealed twice';
    const aad = Buffer.from('where it belongs');
    const first = Buffer.from(seal(key, plaintext, aad), 'base64');
    const second = Buffer.from(seal(key, plaintext, aad), 'base64');
    expect(first).toHaveLength(12 + Buffer.byteLength(plaintext) + 16);
    // A fresh IV each time: the same value sealed twice never repeats, nor does its IV.
    expect(first.subarray(0, 12).equals(second.subarray(0, 12))).toBe(false);
    expect(first.equals(second)).toBe(false);
    // Opened here with node:crypto and the documented offsets alone, not with the module.
    const decipher = createDecipheriv('aes-256-gcm', tc16Key, first.subarray(0, 12));
    decipher.setAAD(aad);
    decipher.setAuthTag(first.subarray(first.length - 16));
    const opened = Buffer.concat([decipher.update(first.subarray(12, first.length - 16)), decipher.final()]);
    expect(opened.toString('utf8')).toBe(plaintext);
  });

  it.each([
    ['column', stored.column],
    ['capsule_document', stored.capsule_document],
    ['source_credential', stored.source_credential],
  ] as const)('opens a %s sealed before sealing moved to src/vault', (_name, sample) => {
    const aad = Buffer.from(sample.aad_utf8, 'utf8');
    const derived = deriveKey(unhex(stored.secrets[sample.secret]), sample.derivation);
    expect(unseal(derived, sample.sealed, aad)).toBe(sample.plaintext_utf8);
    expect(unseal(unhex(sample.key), sample.sealed, aad)).toBe(sample.plaintext_utf8);
    expectCorrupt(
      () => unseal(derived, sample.sealed, Buffer.from(`${sample.aad_utf8}x`)),
      sample.plaintext_utf8,
    );
  });
});

describe('round trips', () => {
  const key = createSecretKey(unhex(stored.column.key));
  const everyByte = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const large = Buffer.alloc(1 << 20, 0xa5);

  it.each([
    ['empty text', ''],
    ['text', 'ada@example.com'],
    ['text beyond ASCII', 'Grüße, 世界, 🙂'],
  ])('%s, with and without additional data', (_name, text) => {
    expect(unseal(key, seal(key, text))).toBe(text);
    const aad = Buffer.from('org\u0000table\u0000column\u00001');
    expect(unseal(key, seal(key, text, aad), aad)).toBe(text);
  });

  it.each([
    ['every byte value', everyByte],
    ['1 MiB', large],
    ['no bytes', Buffer.alloc(0)],
  ])('bytes: %s', (_name, bytes) => {
    const aad = Buffer.from([0, 1, 2]);
    expect(open(key, seal(key, bytes, aad), aad).equals(bytes)).toBe(true);
  });

  it('treats absent and empty additional data as the same', () => {
    expect(unseal(key, seal(key, 'x'), Buffer.alloc(0))).toBe('x');
    expect(unseal(key, seal(key, 'x', Buffer.alloc(0)))).toBe('x');
  });

  it('seals an empty plaintext to exactly 28 bytes, which opens', () => {
    const sealed = seal(key, '');
    expect(Buffer.from(sealed, 'base64')).toHaveLength(28);
    expect(open(key, sealed)).toHaveLength(0);
  });
});

describe('failing closed: a value that is not what was sealed never opens, and fails one typed way', () => {
  const aad = unhex(tc16.aad);
  const plaintextHex = tc16.plaintext;

  it('refuses every truncation, by bytes and by characters', () => {
    for (let length = 0; length < tc16Raw.length; length++) {
      expectCorrupt(() => open(tc16Key, tc16Raw.subarray(0, length).toString('base64'), aad), plaintextHex);
    }
    for (let length = 0; length < tc16Sealed.length; length++) {
      expectCorrupt(() => open(tc16Key, tc16Sealed.slice(0, length), aad), plaintextHex);
    }
  });

  it('refuses one flipped bit anywhere: in the IV, the ciphertext or the tag', () => {
    const regions = {
      iv: [0, 12],
      ciphertext: [12, tc16Raw.length - 16],
      tag: [tc16Raw.length - 16, tc16Raw.length],
    };
    for (const [from, to] of Object.values(regions)) {
      for (let bit = from! * 8; bit < to! * 8; bit++) {
        expectCorrupt(() => open(tc16Key, flipBit(tc16Raw, bit).toString('base64'), aad), plaintextHex);
      }
    }
  });

  it('refuses a value with bytes added at either end', () => {
    for (const longer of [
      Buffer.concat([tc16Raw, Buffer.from([0])]),
      Buffer.concat([Buffer.from([0]), tc16Raw]),
    ]) {
      expectCorrupt(() => open(tc16Key, longer.toString('base64'), aad));
    }
  });

  it('refuses the wrong key: another key, or the right one with one bit flipped', () => {
    expectCorrupt(() => open(unhex(stored.column.key), tc16Sealed, aad), plaintextHex);
    for (const bit of [0, 7, 128, 255]) {
      expectCorrupt(() => open(flipBit(tc16Key, bit), tc16Sealed, aad), plaintextHex);
      expectCorrupt(() => open(createSecretKey(flipBit(tc16Key, bit)), tc16Sealed, aad), plaintextHex);
    }
  });

  it('refuses the wrong additional data: other bytes, one bit off, shorter, longer, or none', () => {
    const wrong = [
      Buffer.from('another place'),
      flipBit(aad, 0),
      flipBit(aad, aad.length * 8 - 1),
      aad.subarray(0, aad.length - 1),
      Buffer.concat([aad, Buffer.from([0])]),
      Buffer.alloc(0),
      undefined,
    ];
    for (const other of wrong) expectCorrupt(() => open(tc16Key, tc16Sealed, other), plaintextHex);
    // And a value sealed with no additional data does not open when some is given.
    const bare = seal(tc16Key, 'no place');
    expectCorrupt(() => open(tc16Key, bare, Buffer.from('a place')), 'no place');
  });

  it('refuses empty input', () => {
    expectCorrupt(() => open(tc16Key, ''));
    expectCorrupt(() => unseal(tc16Key, '', aad));
  });

  it('refuses what is not canonical base64, even where a lenient decoder would find the value', () => {
    const urlSafe = tc16Sealed.replace(/\+/g, '-').replace(/\//g, '_');
    const notBase64 = [
      '!!!!',
      'not base64 at all',
      `${tc16Sealed}!`,
      `${tc16Sealed}\n`,
      ` ${tc16Sealed}`,
      `${tc16Sealed.slice(0, 40)} ${tc16Sealed.slice(40)}`,
      `${tc16Sealed}====`,
      tc16Sealed.replace(/=+$/, ''),
    ];
    if (urlSafe !== tc16Sealed) notBase64.push(urlSafe);
    for (const text of notBase64) expectCorrupt(() => open(tc16Key, text, aad), plaintextHex);
    // Padding bits that are not zero decode to the same bytes, but no seal ever wrote them.
    const sealed = seal(tc16Key, 'x', aad); // 29 bytes: one '=' of padding, two spare bits
    const last = sealed.at(-2)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const skewed = `${sealed.slice(0, -2)}${alphabet[alphabet.indexOf(last) ^ 1]}=`;
    expect(Buffer.from(skewed, 'base64').equals(Buffer.from(sealed, 'base64'))).toBe(true);
    expectCorrupt(() => open(tc16Key, skewed, aad), 'x');
  });

  it('refuses a value that is not a string at all', () => {
    for (const value of [null, undefined, 42, tc16Raw]) {
      expectCorrupt(() => open(tc16Key, value as unknown as string, aad));
    }
  });
});

describe('keys that are not AES-256 keys', () => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const wrongKeys: [string, SealKey][] = [
    ['16 bytes', Buffer.alloc(16, 1)],
    ['31 bytes', Buffer.alloc(31, 1)],
    ['33 bytes', Buffer.alloc(33, 1)],
    ['a 16-byte KeyObject', createSecretKey(Buffer.alloc(16, 1))],
    ['an Ed25519 private key', privateKey],
    ['a string', 'k'.repeat(32) as unknown as SealKey],
  ];

  it.each(wrongKeys)('refuses %s for seal and open, as invalid_key', (_name, key) => {
    for (const attempt of [() => seal(key, 'x'), () => open(key, tc16Sealed, unhex(tc16.aad))]) {
      expect(attempt).toThrow(VaultError);
      try {
        attempt();
      } catch (error) {
        expect((error as VaultError).code).toBe('invalid_key');
      }
    }
  });
});
