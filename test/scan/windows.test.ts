// A rule runs only in windows around its keywords' hits (and, with a locator, only where that
// matches): its matches must be the ones a search of the whole text finds. The reference is the
// same pattern with no keywords and no locator, which runs on the whole text. Texts mix every rule's sample values, every keyword and noise, cut and joined anywhere.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detector, patternExtent, type DetectionRule } from '../../src/scan/detect.ts';
import { DETECTION_RULES } from '../../src/scan/rules.ts';
import { SAMPLES, sampleFiller, seeded } from './secret-samples.ts';

const filler = sampleFiller(seeded(20261124));
const secretValues = Object.values(SAMPLES).flatMap((s) =>
  (typeof s === 'string' ? [s] : [...s]).map(filler.fill),
);
/** Personal values of every kind, labelled and not, and the labels their checks read. */
const personal = [
  'jane.roe@mail-host.co.uk',
  'contact: +44 20 7946 1234',
  'call (415) 555-2671',
  'phone: 030 1234567',
  'Name: Jane Roe',
  // Under the `u` flag, `ſ` matches `s` when case is ignored: the name's locator must take it too.
  'ſurname: Jane Roe',
  '"full_name": "Marie de la Cruz"',
  // Capitals past ASCII, one of them outside the BMP: the name rule reads them by the `u` flag.
  'author: Émile Zola',
  "owner = '\u{1d400}da Lovelace'",
  'born 1984-03-17',
  'DOB: 17/03/1984',
  'née le 3 March 1971',
  '4111 1111 1111 1111',
  '4556737586899855',
  'DE89370400440532013000',
  'GB82 WEST 1234 5698 7654 32',
  'SSN 123-45-6789',
  '078-05-1120',
  // Valid ones, which the check keeps: dashed, and bare after a label.
  '536-22-8726',
  'SSN: 536228726',
  // Cards grouped by dashes, and Amex's 4-6-5.
  '4556-7375-8689-9855',
  '3714 496353 98431',
  '93.184.216.34',
  '2a03:2880:f12f:83:face:b00c:0:25de',
  'postgres://admin:Xy7#kQ9@db.internal:5432/app',
];
const keywords = [...new Set(DETECTION_RULES.flatMap((r) => r.keywords))];
const noise = fc.string({
  unit: fc.constantFrom(...'aZ09_-.:@+/= \n\t"\'`,;()[]{}xX'),
  maxLength: 80,
});
const piece = fc.oneof(
  fc.constantFrom(...secretValues),
  fc.constantFrom(...personal),
  fc.constantFrom(...keywords),
  fc.constantFrom(...keywords).map((k) => k.toUpperCase()),
  noise,
  // Digits of every kind in runs: where card, social security and phone numbers start.
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 24 }),
  // Long runs of what patterns read, so windows end inside them.
  fc
    .tuple(fc.constantFrom('0', 'a', 'A', 'f', ' ', '9 '), fc.integer({ min: 1, max: 600 }))
    .map(([c, n]) => c.repeat(n)),
);
const texts = fc
  .array(fc.tuple(piece, fc.constantFrom('', ' ', '\n', '=', ': ', '"', '\n\n')), { maxLength: 40 })
  .map((parts) => parts.map(([p, sep]) => p + sep).join(''));

// The reference runs the pattern alone, on the whole text: no keywords, no locator.
const pairs = DETECTION_RULES.filter((r) => r.keywords.length > 0 || r.locator).map((rule) => {
  const { locator: _, ...plain } = rule;
  return [rule.id, detector([rule]), detector([{ ...plain, keywords: [] }])] as const;
});
const spans = (d: ReturnType<typeof detector>, text: string, file: string) =>
  d.matches(text, file).map((m) => [m.start, m.end, m.confidence]);

describe('a rule run in windows around its keywords', () => {
  it('finds what a search of the whole text finds, for every rule', () => {
    fc.assert(
      fc.property(
        texts,
        fc.constantFrom('', 'src/app.ts', 'test/app.test.ts', 'people.csv'),
        (text, file) => {
          for (const [id, windowed, whole] of pairs) {
            expect([id, spans(windowed, text, file)]).toEqual([id, spans(whole, text, file)]);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('finds every sample value with only noise around it, farther than any reach', () => {
    const pad = `\n${'x '.repeat(2500)}\n`;
    const text = [...secretValues, ...personal].join(pad);
    for (const [id, windowed, whole] of pairs) {
      expect([id, spans(windowed, text, '')]).toEqual([id, spans(whole, text, '')]);
    }
  });

  it('reads a lookahead past the window whole, and the text before it', () => {
    // The window ends 4 characters after `@`; the lookahead reads 6. The lookbehind reads back past
    // the window's start.
    const rule: DetectionRule = {
      id: 'probe',
      category: 'secret',
      type: 'PROBE',
      keywords: ['@'],
      pattern: /(?<!q[a-z]{0,9})[a-z]{1,3}@(?!b{1,5}c)/g,
      confidence: 0.5,
    };
    const found = (text: string) =>
      detector([rule])
        .matches(text)
        .map((m) => text.slice(m.start, m.end));
    expect(found('xyz@bbbbbc')).toEqual([]);
    expect(found('xyz@bbbbbd')).toEqual(['xyz@']);
    expect(found('qrstuvwxyz@bbbbbd xy@')).toEqual(['xy@']);
  });

  it('opens no window at a hit its rule says the match cannot follow', () => {
    const rule: DetectionRule = {
      id: 'probe',
      category: 'secret',
      type: 'PROBE',
      keywords: ['key'],
      // Wider than `follows` on purpose, so a window opened where it fails would show: `key(x)`.
      pattern: /key\W(?<value>\w{1,5})/gi,
      follows: /=/y,
      confidence: 0.5,
    };
    const found = (text: string) =>
      detector([rule])
        .matches(text)
        .map((m) => text.slice(m.start, m.end));
    // Farther apart than windows are joined across.
    const gap = ' '.repeat(300);
    expect(found(`key=abc${gap}key(x)${gap}KEY=def`)).toEqual(['abc', 'def']);
    expect(detector([{ ...rule, follows: undefined }]).matches('key(x)')).toHaveLength(1);
    // Refused: a follows that is not sticky, or one beside a keyword that `near` puts outside the match.
    expect(() => detector([{ ...rule, follows: /=/g }])).toThrow(/needs the y flag/);
    expect(() => detector([{ ...rule, near: 10 }])).toThrow(/near puts outside the match/);
  });
});

describe('how far a pattern reaches', () => {
  it.each([
    [/abc/g, 3, 3],
    [/a{2,5}(?=xy)/g, 5, 7],
    [/(?<=ENV +)a|bc?/g, 2, 2],
    [/(?<v>\d{3})-\k<v>/g, 7, 7],
    [/([ -])\d\1/g, 3, 3],
    [/\p{Lu}\p{Ll}{0,3}/gu, 8, 8],
    [/a+/g, Infinity, Infinity],
    [/[a\]b]{2}$/gm, 2, 2],
  ])('%s spans at most %d and reads %d', (pattern, length, reads) => {
    expect(patternExtent(pattern)).toEqual({ length, reads });
  });
});
