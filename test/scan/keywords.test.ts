// The prefilter's one-pass keyword search finds exactly the keywords a text holds, as searching
// for each keyword on its own would, overlapping and nested keywords included.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { KeywordSet, foldDigits, lineBreaks } from '../../src/scan/keywords.ts';
import { KEYWORD_SCAN_WASM } from '../../src/scan/keyword-scan-wasm.ts';
import { compileKeywordScan } from '../../scripts/keyword-wasm-compile.ts';

const letters = fc.string({ unit: fc.constantFrom('a', 'b', 'é', '_', '-'), minLength: 1, maxLength: 5 });

it('finds the same keywords as one search per keyword', () => {
  fc.assert(
    fc.property(
      fc.array(letters, { minLength: 1, maxLength: 30 }),
      fc.string({ unit: fc.constantFrom('a', 'b', 'é', '_', '-', 'x'), maxLength: 200 }),
      (keywords, text) => {
        const set = new KeywordSet(keywords);
        const found = [...set.found(text)].map((i) => set.keywords[i]).sort();
        expect(found).toEqual(set.keywords.filter((k) => text.includes(k)).sort());
      },
    ),
    { numRuns: 3000 },
  );
});

it('keywords inside other keywords and at the very end of the text', () => {
  const set = new KeywordSet(['ghp_', 'hp_', 'p_', 'sk-ant-', 'ant', 'xoxb-']);
  const found = (text: string) => [...set.found(text)].map((i) => set.keywords[i]).sort();
  expect(found('token ghp_')).toEqual(['ghp_', 'hp_', 'p_']);
  expect(found('sk-ant-api03')).toEqual(['ant', 'sk-ant-']);
  expect(found('nothing here')).toEqual([]);
});

it('a digit in a keyword stands for any digit, in short texts and long', () => {
  const set = new KeywordSet(['000', '+1', 'ya29.']);
  const found = (text: string) => [...set.found(text)].map((i) => set.keywords[i]).sort();
  expect(found('card 4111')).toEqual(['000']);
  expect(found('call +44 20')).toEqual(['+1']);
  expect(found('ya31.x and 12 34')).toEqual(['ya29.']);
  expect(found('no runs: 12 3.4 a1b2')).toEqual([]);
  // Walked in four lanes, the text's own bytes given.
  const long = `${'x'.repeat(1400)} +7 ${'y'.repeat(400)} 987`;
  expect(found(long)).toEqual(['+1', '000']);
  const hits = set.hits(long, new TextEncoder().encode(long));
  expect([...hits.end.subarray(0, hits.count)]).toEqual([1403, long.length]);
});

// The text is walked as UTF-8 bytes (keyword-scan.wat): its hits must be those of a search by
// brute force over the text folded a UTF-16 unit at a time, offsets in units included, whatever
// the text holds: letters outside ASCII in either case, astral characters, lone surrogates, the
// Kelvin sign (which folds to `k`).
// A capital sigma folds to `σ` alone, whatever is beside it (in a word's end, lower-casing the word
// would make it `ς`).
const KEYWORDS = ['née', 'ghp_', 'hp_', 'key', 'akia', 'né le', 'ä', '@', 'ǅx', 'σ'];
const unit = fc.constantFrom(
  ...['a', 'k', 'K', 'e', 'E', 'n', 'N', 'é', 'É', 'ä', 'Ä', ' ', 'l', 'g', 'h', 'p', '_', '@', 'i', 'I'],
  ...['😀', '\ud800', '\udc00', 'ǅ', 'ǆ', 'Ǆ', 'x', 'ß', 'ẞ', '\n', 'Σ', 'σ', 'ς'],
);

/** Every (keyword index, end) of `set`'s keywords in `text`, found one keyword at a time. */
function bruteForce(set: KeywordSet, text: string): [number, number][] {
  // Per UTF-16 unit: its lower case when that is one unit, digits as `0`.
  const folded = text.replace(/[^ -~\n]|[A-Z1-9]/g, (c) => {
    if (c >= '1' && c <= '9') return '0';
    const lower = c.toLowerCase();
    return lower.length === 1 ? lower : c;
  });
  const pairs: [number, number][] = [];
  set.keywords.map(foldDigits).forEach((keyword, index) => {
    for (let at = folded.indexOf(keyword); at !== -1; at = folded.indexOf(keyword, at + 1)) {
      pairs.push([index, at + keyword.length]);
    }
  });
  return pairs.sort((a, b) => a[1] - b[1] || a[0] - b[0]);
}

it.each([
  ['of any characters', unit],
  ['holding the Kelvin sign', fc.oneof(unit, fc.constant('\u212a'))],
])('a text %s gives the hits of a search by brute force', (_, unit) => {
  const set = new KeywordSet(KEYWORDS);
  fc.assert(
    // Up to 1,023 bytes a text is walked in one lane; longer, in four side by side: keywords across
    // the lanes' cuts are found once each.
    fc.property(fc.string({ unit, maxLength: 3000, size: 'max' }), (text) => {
      const hits = set.hits(text);
      const bytes: [number, number][] = [];
      for (let h = 0; h < hits.count; h++) bytes.push([hits.keyword[h]!, hits.end[h]!]);
      expect(bytes.sort((a, b) => a[1] - b[1] || a[0] - b[0])).toEqual(bruteForce(set, text));
    }),
    { numRuns: 500 },
  );
});

it('a text longer than the walk takes at once gives the same hits, keywords and pairs across its cuts', () => {
  const set = new KeywordSet(KEYWORDS);
  // The walk takes 3 MiB of UTF-8 at once: 1 Mi characters of a string, 3 MiB of a file's bytes.
  const around = (at: number, cut: string) => `${'x'.repeat(at - 3)}${cut}${'é'.repeat(40)}`;
  for (const text of [
    around(1 << 20, 'ghp_akia key'),
    // A surrogate pair where a piece of a string would end, and a keyword right after it.
    `${'x'.repeat((1 << 20) - 1)}😀née${'x'.repeat(1 << 20)}née`,
    `${'😀'.repeat(600_000)}KEY née`,
  ]) {
    const hits = set.hits(text);
    const walked: [number, number][] = [];
    for (let h = 0; h < hits.count; h++) walked.push([hits.keyword[h]!, hits.end[h]!]);
    expect(walked.sort((a, b) => a[1] - b[1] || a[0] - b[0])).toEqual(bruteForce(set, text));
    // The same text handed over as its bytes, cut every 3 MiB at any byte.
    const bytes = set.hits(text, new TextEncoder().encode(text));
    expect(bytes.count).toBe(hits.count);
    expect([...bytes.end.subarray(0, bytes.count)]).toEqual([...hits.end.subarray(0, hits.count)]);
  }
});

it('a text with more hits than the walk writes at once loses none', () => {
  const set = new KeywordSet(['a', 'aa']);
  // Each lane of 64 KiB writes at most 16 Ki pairs: a keyword at every byte is walked again in
  // shorter lanes, twice over.
  for (const length of [40_000, 300_000]) {
    const hits = set.hits('a'.repeat(length));
    expect(hits.count).toBe(length + length - 1);
    expect(hits.end[hits.count - 1]).toBe(length);
    const ends = hits.end.subarray(0, hits.count);
    expect(ends.every((end, h) => h === 0 || end >= ends[h - 1]!)).toBe(true);
  }
});

it('counts the line breaks of any bytes, sixteen at a time and one by one, pieces longer than it takes at once', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
      expect(lineBreaks(bytes)).toBe(bytes.filter((b) => b === 10).length);
    }),
    { numRuns: 1000 },
  );
  const long = new Uint8Array(3 * 1024 * 1024 + 7).fill(10, 5, 2_000_000);
  expect(lineBreaks(long)).toBe(2_000_000 - 5);
});

it('the embedded WebAssembly is its source compiled (npm run build:wasm)', async () => {
  const wat = readFileSync(new URL('../../src/scan/keyword-scan.wat', import.meta.url), 'utf8');
  const compiled = Buffer.from(await compileKeywordScan(wat)).toString('base64');
  expect(compiled).toBe(KEYWORD_SCAN_WASM);
});
