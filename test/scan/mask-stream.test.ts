// The streaming masker: a command's output masked chunk by chunk. Property-tested: random text with
// secrets inserted in every encoding (written here with the platform's encoders), several secrets,
// one a substring of another, the whole cut at random chunk boundaries: no form survives, the text
// around them is written unchanged, and the result is exactly one pass of mask.ts over the whole.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MASK, MASK_WINDOW, Masker } from '../../src/scan/mask.ts';
import { HELD_BACK, StreamMasker } from '../../src/scan/mask-stream.ts';

/** Every encoding `svc run` promises to mask, from the platform's encoders. */
const ENCODINGS: Record<string, (s: string) => string> = {
  exact: (s) => s,
  base64: (s) => Buffer.from(s).toString('base64'),
  base64url: (s) => Buffer.from(s).toString('base64url'),
  url: (s) => encodeURIComponent(s),
  hex: (s) => Buffer.from(s).toString('hex'),
  HEX: (s) => Buffer.from(s).toString('hex').toUpperCase(),
  json: (s) => JSON.stringify(s).slice(1, -1),
};

/** Masks `chunks` through a StreamMasker: the output written and the masks counted. */
function streamed(secrets: string[], chunks: string[]): { out: string; fired: number } {
  const stream = new StreamMasker(secrets);
  let out = '';
  for (const chunk of chunks) out += stream.push(chunk);
  out += stream.end();
  return { out, fired: stream.fired };
}

/** `text` cut at the given (sorted, deduplicated) positions. */
function cut(text: string, at: number[]): string[] {
  const points = [...new Set(at.map((p) => p % (text.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let from = 0;
  for (const point of points) {
    chunks.push(text.slice(from, point));
    from = point;
  }
  chunks.push(text.slice(from));
  return chunks;
}

// Secrets hold letters, digits and characters every encoding changes; the text around them holds
// none of the characters any form of them can hold, so what is masked is exactly what was inserted.
const SECRET_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"\\/+=é'.split('');
const FILLER_CHARS = ' #|;<>!\n\t'.split('');
const secretArb = fc
  .array(fc.constantFrom(...SECRET_CHARS), { minLength: 4, maxLength: 40 })
  .map((c) => c.join(''));
const fillerArb = fc
  .array(fc.constantFrom(...FILLER_CHARS), { minLength: 1, maxLength: 30 })
  .map((c) => c.join(''));

describe('StreamMasker', () => {
  it('masks every form of several secrets, one inside another, at any chunking', () => {
    fc.assert(
      fc.property(
        secretArb,
        secretArb,
        fc.tuple(secretArb, secretArb),
        fc.array(fc.tuple(fc.nat(2), fc.constantFrom(...Object.keys(ENCODINGS)), fillerArb), {
          minLength: 1,
          maxLength: 12,
        }),
        fillerArb,
        fc.array(fc.nat(), { maxLength: 20 }),
        (first, inner, [before, after], inserts, lead, cuts) => {
          // The third secret holds the second whole: a secret that is a substring of another.
          const secrets = [first, inner, before + inner + after];
          let text = lead;
          let expected = lead;
          const inserted: string[] = [];
          for (const [which, encoding, filler] of inserts) {
            const form = ENCODINGS[encoding]!(secrets[which]!);
            inserted.push(form);
            text += form + filler;
            expected += MASK + filler;
          }
          const { out, fired } = streamed(secrets, cut(text, cuts));
          for (const form of inserted) expect(out).not.toContain(form);
          expect(out).toBe(expected);
          expect(fired).toBe(inserts.length);
          expect(out).toBe(new Masker(secrets).mask(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('writes the same as one pass over the whole text, whatever the text and the chunking', () => {
    fc.assert(
      fc.property(
        fc.array(secretArb, { minLength: 1, maxLength: 3 }),
        fc.array(
          fc.oneof(
            fc.string({ maxLength: 20 }),
            fc.tuple(fc.nat(2), fc.constantFrom(...Object.keys(ENCODINGS)), fc.nat(40), fc.nat(40)),
          ),
          { maxLength: 10 },
        ),
        fc.array(fc.nat(), { maxLength: 30 }),
        (secrets, parts, cuts) => {
          // Pieces of forms too, cut anywhere: runs that touch, overlap or stop short.
          const text = parts
            .map((part) => {
              if (typeof part === 'string') return part;
              const [which, encoding, from, to] = part;
              const form = ENCODINGS[encoding]!(secrets[which % secrets.length]!);
              return form.slice(Math.min(from, to), Math.max(from, to) + MASK_WINDOW);
            })
            .join('');
          expect(streamed(secrets, cut(text, cuts)).out).toBe(new Masker(secrets).mask(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('holds back at most HELD_BACK characters, never the start of a form', () => {
    const secret = 'tok_9fA2kQ7zLmP3xR8w';
    const stream = new StreamMasker([secret]);
    expect(stream.push('hello world\n')).toBe('hello');
    // Every character of the secret arrives alone: nothing of it is ever written.
    let out = '';
    for (const ch of `value=${secret}!`) {
      const piece = stream.push(ch);
      out += piece;
      expect(out).not.toContain(secret.slice(0, MASK_WINDOW));
    }
    out += stream.end();
    expect(out).toBe(` world\nvalue=${MASK}!`);
    expect(stream.fired).toBe(1);
    expect(HELD_BACK).toBe(MASK_WINDOW - 1);
  });

  it('writes text without secrets unchanged, emoji split between chunks included', () => {
    const text = 'plain 😀 text, nothing secret here 😀';
    const stream = new StreamMasker(['unrelated-secret-value']);
    const pieces = [...text].map((ch) => stream.push(ch));
    // No piece ends inside a surrogate pair.
    for (const piece of pieces) expect(piece).not.toMatch(/[\ud800-\udbff]$/);
    expect(pieces.join('') + stream.end()).toBe(text);
    expect(stream.fired).toBe(0);
  });
});
