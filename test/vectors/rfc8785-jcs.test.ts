// RFC 8785 known answers run through canonicalText and canonicalBytes, the canonicalizer svc signs with.
import { readFileSync } from 'node:fs';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalBytes, canonicalText } from '../../src/proofs/format.ts';

interface JcsVectors {
  source: string;
  serialization: { source: string; input_json: string; canonical: string; canonical_utf8_hex: string };
  sorting: { source: string; input_json: string; expected_value_order: string[] };
  numbers: {
    source: string;
    finite: { ieee754_hex: string; canonical: string; note?: string }[];
    refused: { ieee754_hex: string; note: string }[];
  };
}

const vectors = JSON.parse(
  readFileSync(new URL('./rfc8785-jcs.json', import.meta.url), 'utf8'),
) as JcsVectors;

/** The double with these 64 bits: built from the bits so no decimal parser stands between RFC and test. */
function double(ieee754Hex: string): number {
  return Buffer.from(ieee754Hex, 'hex').readDoubleBE(0);
}

describe('RFC 8785 section 3.2.2: numbers, escapes and literals', () => {
  const { input_json, canonical, canonical_utf8_hex } = vectors.serialization;

  it('canonicalizes the example object to the text the RFC gives', () => {
    expect(canonicalText(JSON.parse(input_json))).toBe(canonical);
  });

  it('yields the UTF-8 bytes of section 3.2.4, which are what svc hashes and signs', () => {
    expect(Buffer.from(canonicalBytes(JSON.parse(input_json))).toString('hex')).toBe(canonical_utf8_hex);
  });

  it('leaves canonical text unchanged when canonicalized again', () => {
    // A verifier re-serializes the parsed payload; that must give back the stored bytes.
    expect(canonicalText(JSON.parse(canonical))).toBe(canonical);
  });
});

describe('RFC 8785 section 3.2.3: property names sorted by UTF-16 code units', () => {
  const { input_json, expected_value_order } = vectors.sorting;
  const input = JSON.parse(input_json) as Record<string, string>;
  const nameOf = new Map(Object.entries(input).map(([name, value]) => [value, name]));

  it('puts the properties in the order the RFC gives', () => {
    // Each member is written as the RFC's string rules have it (\r escaped, U+0080 and above as is).
    const members = expected_value_order.map((value) => `${JSON.stringify(nameOf.get(value))}:${JSON.stringify(value)}`);
    expect(canonicalText(input)).toBe(`{${members.join(',')}}`);
  });

  it('differs from code point order, so the sample really tests UTF-16 sorting', () => {
    const emoji = nameOf.get('Emoji: Grinning Face')!;
    const dalet = nameOf.get('Hebrew Letter Dalet With Dagesh')!;
    expect(emoji.codePointAt(0)!).toBeGreaterThan(dalet.codePointAt(0)!);
    expect(expected_value_order.indexOf('Emoji: Grinning Face')).toBeLessThan(
      expected_value_order.indexOf('Hebrew Letter Dalet With Dagesh'),
    );
  });
});

describe('RFC 8785 appendix B: number serialization', () => {
  it.each(vectors.numbers.finite.map((v) => [v.ieee754_hex, v.canonical] as const))(
    '%s is written %s',
    (hex, expected) => {
      const value = double(hex);
      expect(canonicalText(value)).toBe(expected);
      expect(canonicalText({ n: value })).toBe(`{"n":${expected}}`);
    },
  );

  it.each(vectors.numbers.finite.map((v) => [v.ieee754_hex, v.canonical] as const))(
    'the text for %s reads back as the same double (minus zero as zero)',
    (hex, text) => {
      // Guards the transcription: a mistyped digit would name another double.
      const value = double(hex);
      expect(Number(text)).toBe(Object.is(value, -0) ? 0 : value);
    },
  );

  it.each(vectors.numbers.refused.map((v) => [v.note, v.ieee754_hex] as const))(
    '%s (%s) is refused, never signed as null',
    (_note, hex) => {
      expect(() => canonicalText(double(hex))).toThrow();
      expect(() => canonicalText({ v: 1, n: double(hex) })).toThrow();
      expect(() => canonicalBytes([double(hex)])).toThrow();
    },
  );
});

describe('canonicalText beyond the RFC examples', () => {
  // Objects already in canonical order are written by JSON.stringify after a check; others are
  // built member by member. Both paths must give the same text for the same value.
  const shuffled = (record: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(record).reverse()) as Record<string, unknown>;

  it.each([
    ['flat', { a: 1, b: 'two', c: null, d: true }],
    ['nested', { a: { x: [1, { q: 2, p: 1 }], w: 'v' }, b: [] }],
    ['integer-like names, sorted as text', { '1': 'a', '10': 'b', '2': 'c', x: 'd' }],
    ['names past the BMP', { '\u20ac': 1, '\ud83d\ude00': 2, '\ufb33': 3 }],
  ])('writes the same text whatever the insertion order (%s)', (_name, record) => {
    const text = canonicalText(record);
    expect(canonicalText(shuffled(record))).toBe(text);
    // Sorted by UTF-16 code units, at every level.
    expect(canonicalText(JSON.parse(text))).toBe(text);
  });

  it('puts integer-like names in text order, not the numeric order objects enumerate them in', () => {
    expect(canonicalText({ '2': 0, '10': 0, '1': 0 })).toBe('{"1":0,"10":0,"2":0}');
  });

  it('skips undefined, function and symbol members and writes them as null in arrays', () => {
    expect(canonicalText({ b: undefined, a: 1, c: () => 1, d: Symbol('s') })).toBe('{"a":1}');
    expect(canonicalText([undefined, () => 1, 2])).toBe('[null,null,2]');
  });

  it('writes what toJSON answers, as JSON.stringify does', () => {
    const at = new Date('2026-01-02T03:04:05.000Z');
    expect(canonicalText({ at })).toBe('{"at":"2026-01-02T03:04:05.000Z"}');
  });

  it('refuses a lone surrogate in a value or a name, sorted or not', () => {
    expect(() => canonicalText({ a: 'x\ud800' })).toThrow(/lone surrogate/);
    expect(() => canonicalText({ b: 1, a: '\udc00' })).toThrow(/lone surrogate/);
    expect(() => canonicalText({ '\ud800': 1 })).toThrow(/lone surrogate/);
    expect(canonicalText({ a: '\ud83d\ude00' })).toBe('{"a":"\ud83d\ude00"}');
  });

  it('refuses bigints, a value that refers to itself, and a bare undefined', () => {
    expect(() => canonicalText({ n: 1n })).toThrow(/bigint/);
    const loop: Record<string, unknown> = { a: 1 };
    loop.self = loop;
    expect(() => canonicalText(loop)).toThrow(/nested too deeply/);
    expect(() => canonicalText(undefined)).toThrow(/cannot be canonicalized/);
  });
});

describe('canonicalText against an independent RFC 8785 implementation', () => {
  it('gives the canonicalize package\'s text for generated JSON values, in any member order', () => {
    // Full Unicode names and strings (no lone surrogates), integer-like names, doubles of every size.
    const json = fc.jsonValue({ maxDepth: 4, stringUnit: 'grapheme' });
    fc.assert(
      fc.property(json, (value) => {
        const expected = canonicalize(value);
        expect(canonicalText(value)).toBe(expected);
        expect(canonicalText(JSON.parse(expected!))).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});
