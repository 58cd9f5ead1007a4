// The prefilter's one-pass keyword search finds exactly the keywords a text holds, as searching
// for each keyword on its own would, overlapping and nested keywords included.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { KeywordSet } from '../../src/scan/keywords.ts';

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
