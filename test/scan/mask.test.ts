// Masking secrets out of text: every encoding an upstream may echo, any run of MASK_WINDOW
// characters of one, the caller's own reflected request, and the cut made after masking. The
// encodings the tests expect are written here with the platform's own encoders (Buffer,
// JSON.stringify, encodeURIComponent, URLSearchParams), not with the module's.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MASK, MASK_WINDOW, MIN_MASKED_LENGTH, Masker, maskSecret } from '../../src/scan/mask.ts';

const SECRET = 'sk-live-7f3a9c1e5b2d8f60aa41';
const b64 = (text: string) => Buffer.from(text).toString('base64');
/** Python's json.dumps (ensure_ascii): every non-ASCII UTF-16 unit as \uxxxx. */
const pythonJson = (text: string) =>
  JSON.stringify(text).replace(
    /[\u0080-\uffff]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
const form = (text: string) => new URLSearchParams({ x: text }).toString().slice(2);

/**
 * The encodings of a secret an upstream may echo, from the platform's encoders: as given,
 * JSON-escaped (JavaScript, Python), percent-encoded (encodeURIComponent, form encoding, lower
 * hex), base64 and base64url whole and at each byte offset inside a longer text, and the base64
 * form of the secret (an HTTP Basic credential) percent-encoded.
 */
function encodings(secret: string): string[] {
  const bytes = Buffer.from(secret);
  const forms = [
    secret,
    JSON.stringify(secret).slice(1, -1),
    pythonJson(secret).slice(1, -1),
    encodeURIComponent(secret.toWellFormed()),
    encodeURIComponent(secret.toWellFormed()).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
    form(secret),
    bytes.toString('base64'),
    bytes.toString('base64url'),
    form(bytes.toString('base64')),
    encodeURIComponent(bytes.toString('base64')),
  ];
  for (let offset = 0; offset < 3; offset++) {
    const shifted = Buffer.concat([Buffer.alloc(offset), bytes, Buffer.alloc(2)]);
    const first = Math.ceil((8 * offset) / 6);
    const end = Math.floor((8 * (offset + bytes.length)) / 6);
    for (const encoding of ['base64', 'base64url'] as const) {
      forms.push(shifted.toString(encoding).slice(first, end));
    }
  }
  return forms.filter((f) => f.length >= MIN_MASKED_LENGTH);
}

/** What of a secret's encodings `text` still shows: runs of MASK_WINDOW characters, or a short form whole. */
function leaks(text: string, secret: string): string[] {
  const found: string[] = [];
  for (const f of encodings(secret)) {
    if (f.length < MASK_WINDOW) {
      if (text.includes(f)) found.push(f);
      continue;
    }
    for (let i = 0; i + MASK_WINDOW <= f.length; i++) {
      const run = f.slice(i, i + MASK_WINDOW);
      if (text.includes(run)) found.push(run);
    }
  }
  return found;
}

describe('maskSecret: every encoding, whole or in part', () => {
  const special = 'pä"ss/wörd<&> +ok😀';
  it.each([
    ['as given, every occurrence', `a ${SECRET} b ${SECRET}`, SECRET, `a ${MASK} b ${MASK}`],
    ['base64, as HTTP Basic carries it', `Basic ${b64('user:pw-9xyzzy')}`, 'user:pw-9xyzzy', `Basic ${MASK}`],
    ['base64url', `t=${Buffer.from(SECRET).toString('base64url')}.`, SECRET, `t=${MASK}.`],
    ['JSON-escaped', JSON.stringify({ s: special }), special, `{"s":"${MASK}"}`],
    ['JSON with non-ASCII as \\uxxxx (Python)', `{"s":${pythonJson(special)}}`, special, `{"s":"${MASK}"}`],
    [
      'JSON with non-ASCII as \\uXXXX and / as \\/ (upper hex)',
      `{"s":"${JSON.stringify(special)
        .slice(1, -1)
        .replaceAll('/', '\\/')
        .replace(
          /[\u0080-\uffff]/g,
          (ch) => `\\u${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`,
        )}"}`,
      special,
      `{"s":"${MASK}"}`,
    ],
    [
      'JSON with <, > and & escaped (Go)',
      `{"s":"${JSON.stringify(special)
        .slice(1, -1)
        .replace(/[<>&]/g, (ch) => `\\u00${ch.charCodeAt(0).toString(16)}`)}"}`,
      special,
      `{"s":"${MASK}"}`,
    ],
    ['percent-encoded (encodeURIComponent)', `q=${encodeURIComponent(special)}&x`, special, `q=${MASK}&x`],
    ['form-encoded (space as +)', `${new URLSearchParams({ q: special })}&x`, special, `q=${MASK}&x`],
    [
      'percent-encoded in lower hex',
      `q=${encodeURIComponent(special).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())}`,
      special,
      `q=${MASK}`,
    ],
    [
      'a Basic header echoed form-encoded',
      new URLSearchParams({ a: `Basic ${b64('u:p+/?x~')}` }).toString(),
      'u:p+/?x~',
      `a=Basic+${MASK}`,
    ],
    ['text without the secret is unchanged', 'nothing here', SECRET, 'nothing here'],
    ['a secret shorter than four characters is not masked', 'abc abc', 'abc', 'abc abc'],
  ])('%s', (_name, text, secret, expected) => {
    expect(maskSecret(text, secret)).toBe(expected);
  });

  it.each([0, 1, 2])('base64 of a longer text with the secret %i bytes past a 3-byte group', (offset) => {
    const text = b64(`${'x'.repeat(offset)}Authorization: Bearer ${SECRET}\r\n`);
    const masked = maskSecret(text, SECRET);
    expect(masked).toContain(MASK);
    expect(leaks(masked, SECRET)).toEqual([]);
  });

  it(`any ${MASK_WINDOW} characters in a row of the secret are masked, wherever they start; ${MASK_WINDOW - 1} are not`, () => {
    for (let start = 0; start + MASK_WINDOW <= SECRET.length; start++) {
      const part = SECRET.slice(start, start + MASK_WINDOW);
      expect(maskSecret(`<${part}>`, SECRET)).toBe(`<${MASK}>`);
      expect(maskSecret(`<${b64(part)}>`, SECRET), `base64 of ${part}`).not.toContain(b64(part).slice(1, -2));
    }
    const short = SECRET.slice(3, 3 + MASK_WINDOW - 1);
    expect(maskSecret(`<${short}>`, SECRET)).toBe(`<${short}>`);
  });

  it('a secret shorter than the window is masked where it occurs whole', () => {
    expect(maskSecret('a x7Qp2 b x7Qp c', 'x7Qp2')).toBe(`a ${MASK} b x7Qp c`);
  });

  it('masked runs that touch are one marker', () => {
    expect(maskSecret(`${SECRET}${b64(SECRET)}`, SECRET)).toBe(MASK);
  });
});

describe('the caller’s reflected request', () => {
  it('is masked whether or not it matches the secret, so a guess looks the same right or wrong', () => {
    const right = SECRET.slice(5, 5 + MASK_WINDOW);
    const wrong = `${right.slice(0, -1)}${right.endsWith('x') ? 'y' : 'x'}`;
    const answer = (guess: string) =>
      new Masker([SECRET], { reflected: [guess] }).mask(JSON.stringify({ echo: guess, note: 'ok' }));
    expect(answer(right)).toBe(`{"echo":"${MASK}","note":"ok"}`);
    expect(answer(wrong)).toBe(answer(right));
  });

  it('text shorter than the window is not masked', () => {
    expect(new Masker([SECRET], { reflected: ['42'] }).mask('id 42')).toBe('id 42');
  });
});

describe('answer: the whole text masked, then cut', () => {
  const masker = new Masker([SECRET]);

  it('a secret across the limit leaves no part of it, at every offset of the cut', () => {
    for (let inside = 1; inside < SECRET.length; inside++) {
      const text = `${'a'.repeat(100 - inside)}Bearer ${SECRET} and more`;
      const { text: out, truncated } = masker.answer(text, { limitBytes: 100 + 7, complete: true });
      expect(truncated).toBe(inside < `${MASK} and more`.length);
      // The marker takes the run's place, and is kept only if it fits whole.
      const kept = inside >= MASK.length ? `${MASK}${' and more'.slice(0, inside - MASK.length)}` : '';
      expect(out).toBe(`${'a'.repeat(100 - inside)}Bearer ${kept}`);
    }
  });

  it('a read that stopped inside a copy of the secret drops the fragment it ends with', () => {
    for (const length of [1, 3, MASK_WINDOW - 1]) {
      const text = `x: Bearer ${SECRET.slice(0, length)}`;
      expect(masker.answer(text, { limitBytes: 1000, complete: false })).toEqual({
        text: 'x: Bearer ',
        truncated: true,
      });
    }
  });

  it('a whole answer within the limit is kept as is, masked', () => {
    expect(masker.answer(`ok ${SECRET}`, { limitBytes: 1000, complete: true })).toEqual({
      text: `ok ${MASK}`,
      truncated: false,
    });
  });

  it('the limit counts UTF-8 bytes and never splits a character', () => {
    const { text } = masker.answer('é'.repeat(10), { limitBytes: 5, complete: true });
    expect(text).toBe('éé');
  });
});

/** Echo shapes an upstream may answer with: the request's header and body, in some encoding. */
const SHAPES: Record<string, (header: string, body: string) => string> = {
  raw: (header, body) => `${body}\nauthorization: ${header}\nhost: api\n`,
  json: (header, body) => JSON.stringify({ body, headers: { authorization: header, host: 'api' } }),
  python: (header, body) => `{"body": ${pythonJson(body)}, "authorization": ${pythonJson(header)}}`,
  form: (header, body) => new URLSearchParams({ body, authorization: header }).toString(),
  base64: (header, body) => b64(SHAPES.raw!(header, body)),
  base64url: (header, body) => Buffer.from(SHAPES.json!(header, body)).toString('base64url'),
};

describe('property: no run of the secret comes back in any encoding, whatever the padding and cut', () => {
  it(`for random secrets, paddings, echo shapes and limits, no ${MASK_WINDOW} characters of any encoding survive`, () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 48, unit: 'binary' }),
        fc.string({ maxLength: 400, unit: 'binary' }),
        fc.constantFrom(...Object.keys(SHAPES)),
        fc.constantFrom('bearer', 'basic', 'header'),
        fc.integer({ min: 16, max: 1200 }),
        fc.boolean(),
        (secret, padding, shape, scheme, limitBytes, complete) => {
          const header =
            scheme === 'bearer' ? `Bearer ${secret}` : scheme === 'basic' ? `Basic ${b64(secret)}` : secret;
          const masker = new Masker([secret], { reflected: [padding] });
          const { text } = masker.answer(SHAPES[shape]!(header, padding), { limitBytes, complete });
          expect(leaks(text, secret)).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a guess echoed back looks the same whether it is right or wrong', () => {
    const token = fc.string({
      minLength: 12,
      maxLength: 40,
      unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'),
    });
    fc.assert(
      fc.property(
        token,
        fc.nat(),
        fc.integer({ min: MASK_WINDOW, max: 12 }),
        fc.constantFrom('raw', 'json', 'python', 'form'),
        (secret, at, length, shape) => {
          const start = at % (secret.length - length + 1);
          const right = secret.slice(start, start + length);
          const wrong = `${right.slice(0, -1)}${right.endsWith('0') ? '1' : '0'}`;
          const answer = (guess: string) =>
            new Masker([secret], { reflected: [guess] }).answer(SHAPES[shape]!(`Bearer ${secret}`, guess), {
              limitBytes: 4096,
              complete: true,
            });
          expect(answer(wrong)).toEqual(answer(right));
        },
      ),
      { numRuns: 200 },
    );
  });
});
