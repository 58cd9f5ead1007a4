// Masking secrets out of text that came from outside. Every encoded form of a secret an upstream
// may echo is looked for, and so is any part of one, so neither a cut copy nor a re-encoded one gets
// through. Pure (no I/O, no node: imports): shared by the answers from external APIs and, later,
// the scanner's redactions and `svc run`'s output.
//
// What is masked, for each secret:
// - its forms (`encodedForms`): as given; JSON-string-escaped (plain; with every non-ASCII
//   character as \uXXXX in lower or upper hex; with `/` as `\/`; with <, > and & as \u escapes, as
//   Go writes them); percent-encoded (five common sets of characters left as they are, upper and
//   lower hex, space as %20 or +); base64 and base64url of the UTF-8 bytes of the given and of the
//   JSON-escaped forms: whole, and, at each of the three byte offsets, the characters that depend on
//   the secret alone, so a secret base64-encoded inside a larger text (a header line, a JSON
//   document) is found too; hex of the UTF-8 bytes of the given and JSON-escaped forms, in lower
//   and upper case (a hex dump, a debug print of a buffer).
// - any run of at least MASK_WINDOW characters of any form, wherever it starts or ends, so a copy
//   cut short, or a fragment, is masked as surely as a whole one. A form shorter than MASK_WINDOW
//   (a short secret) is masked where it occurs whole.
// - when asked, the caller's own request echoed back ("reflected"), in the same encodings and with
//   the same window, whether or not it matches the secret: an answer masked only where the request
//   matched the secret would tell the caller which guesses were right.
// Masked runs that touch become one MASK, so the number and place of markers say nothing about
// which rule masked what.
//
// Known limits: at most MASK_WINDOW - 1 characters of a form in a row can come through unmasked (a
// fragment an upstream cut itself: say, the first 7 characters of a token); encodings other than
// those above (double encoding, compression, changed case, hex with separators) are not recognised; a form shorter
// than MIN_MASKED_LENGTH is never masked; where a reflected request meets an escape the upstream
// added (a quote it escaped, the bytes after it in base64), one window may mix the two and be
// masked only when the guess was right.

export const MASK = '[credential]';

/**
 * Forms shorter than this are not masked: they would match everywhere and hide nothing. (A secret
 * of 1 to 3 characters still has its base64 form masked, which is 4 characters or more.)
 */
export const MIN_MASKED_LENGTH = 4;

/**
 * Any run of this many characters of a form is masked. Eight characters of a random token's form
 * carry some 40 to 48 bits, too many to guess blind; a shorter window would match ordinary text
 * (a word of a low-entropy password, a few base64 characters) far more often. A caller can thus see
 * at most 7 characters of a form in a row: a fragment an upstream cut itself.
 */
export const MASK_WINDOW = 8;

// ---------------------------------------------------------------------------------------------
// Encodings

const encoder = new TextEncoder();
const utf8 = (text: string): Uint8Array => encoder.encode(text);
const hex = (n: number, digits: number, upper: boolean) => {
  const h = n.toString(16).padStart(digits, '0');
  return upper ? h.toUpperCase() : h;
};
const isAlnum = (code: number) =>
  (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);

/**
 * A character-by-character encoder: a table for ASCII, a function for the rest (given one code
 * point, or a lone surrogate).
 */
interface CharEncoder {
  ascii: readonly string[];
  other: (ch: string) => string;
}

function encodeWith({ ascii, other }: CharEncoder, text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) {
      out += ascii[code]!;
      continue;
    }
    const next = text.charCodeAt(i + 1);
    const pair = code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
    out += other(pair ? text.slice(i, i + 2) : text[i]!);
    if (pair) i++;
  }
  return out;
}

const asciiTable = (encode: (code: number, ch: string) => string) =>
  Array.from({ length: 0x80 }, (_, code) => encode(code, String.fromCharCode(code)));

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

interface JsonStyle {
  /** Characters from U+0080 on as \uXXXX, in this case of hex (Python's ensure_ascii, PHP); else as they are. */
  ascii: 'lower' | 'upper' | null;
  /** `/` as `\/` (PHP). */
  slash: boolean;
  /** <, > and & as \u003c, \u003e, \u0026 (Go). */
  html: boolean;
}

/** The body of a JSON string (without its quotes), as one encoder style writes it. */
function jsonEncoder(style: JsonStyle): CharEncoder {
  const upper = style.ascii === 'upper';
  // One escape per UTF-16 code unit: a pair is written as two.
  const unicode = (ch: string) => {
    let out = '';
    for (let i = 0; i < ch.length; i++) out += `\\u${hex(ch.charCodeAt(i), 4, upper)}`;
    return out;
  };
  return {
    ascii: asciiTable((code, ch) => {
      if (SHORT_ESCAPES[ch]) return SHORT_ESCAPES[ch];
      if (code < 0x20) return unicode(ch);
      if (ch === '/' && style.slash) return '\\/';
      if ((ch === '<' || ch === '>' || ch === '&') && style.html) return unicode(ch);
      return ch;
    }),
    // Every encoder escapes a lone surrogate (JSON.stringify included); a pair is kept unless all
    // of U+0080 on is escaped.
    other: (ch) => (style.ascii || (ch.length === 1 && /[\ud800-\udfff]/.test(ch)) ? unicode(ch) : ch),
  };
}

const JSON_STYLES: JsonStyle[] = (['lower', 'upper', null] as const).flatMap((ascii) =>
  [false, true].flatMap((slash) => [false, true].map((html) => ({ ascii, slash, html }))),
);

/**
 * Characters besides letters and digits that common percent-encoders leave as they are: RFC 3986
 * unreserved (section 2.3), JavaScript's encodeURIComponent, the WHATWG form encoding (and Java's
 * URLEncoder), Python's quote, and a path encoder that leaves every sub-delimiter, `:` and `@`.
 */
const URL_SAFE_SETS = ['-._~', "-._~!*'()", '-._*', '-._~/', "-._~!$&'()*+,;=:@/"];

interface UrlStyle {
  safe: string;
  upper: boolean;
  /** Space as `+` (form encoding), else as %20. */
  plus: boolean;
}

const URL_STYLES: UrlStyle[] = URL_SAFE_SETS.flatMap((safe) =>
  [true, false].flatMap((upper) => [false, true].map((plus) => ({ safe, upper, plus }))),
);

/** Percent-encoding of UTF-8 bytes (a lone surrogate is the replacement character, as UTF-8 encoders write it). */
function urlEncoder(style: UrlStyle): CharEncoder {
  const escape = (byte: number) => `%${hex(byte, 2, style.upper)}`;
  return {
    ascii: asciiTable((code, ch) => {
      if (isAlnum(code) || style.safe.includes(ch)) return ch;
      if (ch === ' ' && style.plus) return '+';
      return escape(code);
    }),
    other: (ch) => [...utf8(ch)].map(escape).join(''),
  };
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** Two characters for every 12 bits, for each alphabet. */
const PAIRS = [BASE64, BASE64URL].map((alphabet) =>
  Array.from({ length: 4096 }, (_, n) => alphabet[n >> 6]! + alphabet[n & 63]!),
);

/** RFC 4648 base64 (section 4) of `bytes`, `=`-padded, or base64url (section 5), unpadded. */
function base64(bytes: Uint8Array, url: boolean): string {
  const pairs = PAIRS[url ? 1 : 0]!;
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += pairs[n >> 12]! + pairs[n & 4095]!;
  }
  const rest = bytes.length - i;
  if (rest > 0) {
    const n = (bytes[i]! << 16) | ((rest === 2 ? bytes[i + 1]! : 0) << 8);
    const tail = pairs[n >> 12]! + pairs[n & 4095]!;
    out += rest === 1 ? tail.slice(0, 2) : tail.slice(0, 3);
    if (!url) out += rest === 1 ? '==' : '=';
  }
  return out;
}

/**
 * The base64 forms of `text`: whole (padded base64, unpadded base64url), and for each byte offset
 * the text may sit at inside a longer encoded text (0, 1 or 2 bytes past a 3-byte group), the
 * characters every one of whose 6 bits comes from the text.
 */
function base64Forms(text: string): string[] {
  const bytes = utf8(text);
  const forms = [base64(bytes, false), base64(bytes, true)];
  for (let offset = 0; offset < 3; offset++) {
    const shifted = new Uint8Array(offset + bytes.length + 2);
    shifted.set(bytes, offset);
    const first = Math.ceil((8 * offset) / 6);
    const end = Math.floor((8 * (offset + bytes.length)) / 6);
    for (const url of [false, true]) forms.push(base64(shifted, url).slice(first, end));
  }
  return forms;
}

/** The UTF-8 bytes of `text` in hex, two digits a byte, without separators. */
function hexForm(text: string, upper: boolean): string {
  let out = '';
  for (const byte of utf8(text)) out += hex(byte, 2, upper);
  return out;
}

type Encoder = (text: string) => string;

const JSON_ENCODERS: Encoder[] = JSON_STYLES.map(jsonEncoder).map((e) => (text) => encodeWith(e, text));
const URL_ENCODERS: Encoder[] = URL_STYLES.map(urlEncoder).map((e) => (text) => encodeWith(e, text));

/**
 * Every form of `text` that is masked: as given; JSON-escaped and percent-encoded; base64 of the
 * given and JSON-escaped forms (an HTTP Basic credential travels so); and those base64 forms
 * JSON-escaped and percent-encoded in turn (an echoed header in a JSON or form-encoded answer).
 * Forms shorter than MIN_MASKED_LENGTH are left out.
 *
 * With `only`, an encoder is applied only where it changes the matching form of at least one of
 * those texts (see `Masker`): for the reflected request, whose forms need to cover only what the
 * secrets' forms could match.
 */
function encodedForms(text: string, only?: readonly string[]): string[] {
  const keep = (encoders: Encoder[], samples: readonly string[] | undefined) =>
    samples ? encoders.filter((encode) => samples.some((sample) => encode(sample) !== sample)) : encoders;
  const json = keep(JSON_ENCODERS, only);
  const url = keep(URL_ENCODERS, only);
  const bases = [...new Set([text, ...json.map((encode) => encode(text))])];
  const encoded = [...new Set(bases.flatMap(base64Forms))];
  // Which encoders change the secrets' base64 forms (those with +, / or =); on base64 text an
  // encoder does no more than its way with those three characters, so one of each way is enough.
  const samples = only && [
    ...new Set(only.flatMap((s) => [s, ...json.map((e) => e(s))]).flatMap(base64Forms)),
  ];
  const again = [...keep(JSON_ENCODERS, samples), ...keep(URL_ENCODERS, samples)].filter(
    (encode, i, all) => all.findIndex((other) => other('+/=') === encode('+/=')) === i,
  );
  const hexed = bases.flatMap((base) => [hexForm(base, false), hexForm(base, true)]);
  const forms = new Set([...bases, ...url.map((encode) => encode(text)), ...encoded, ...hexed]);
  for (const encode of again) for (const form of encoded) forms.add(encode(form));
  return [...forms].filter((form) => form.length >= MIN_MASKED_LENGTH);
}

// ---------------------------------------------------------------------------------------------
// Finding runs: every window of a form's characters is hashed into a set; the text is scanned
// with a rolling hash of the same width, and each window found marks its characters. A hash
// collision can only mask too much, never too little.

// Two polynomial hashes modulo 2^32 with different odd bases, in 32-bit integer arithmetic.
const B1 = 0x01000193;
const B2 = 0x5bd1e995;

function power(base: number, exponent: number): number {
  let result = 1;
  for (let i = 0; i < exponent; i++) result = Math.imul(result, base);
  return result;
}

/** Calls `visit` with the hashes and start of every window of `width` characters of `text`. */
function scanWindows(
  text: string,
  width: number,
  visit: (h1: number, h2: number, start: number) => void,
): void {
  if (text.length < width) return;
  const top1 = power(B1, width - 1);
  const top2 = power(B2, width - 1);
  let h1 = 0;
  let h2 = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (i >= width) {
      const out = text.charCodeAt(i - width);
      h1 = (h1 - Math.imul(out, top1)) | 0;
      h2 = (h2 - Math.imul(out, top2)) | 0;
    }
    h1 = (Math.imul(h1, B1) + code) | 0;
    h2 = (Math.imul(h2, B2) + code) | 0;
    // -1 marks an empty slot of a WindowSet: that hash joins -2 (a collision only masks more).
    if (i >= width - 1) visit(h1 === -1 ? -2 : h1, h2, i - width + 1);
  }
}

/** The hashes of every window of `width` characters of some texts: open addressing over two Int32Arrays. */
class WindowSet {
  readonly width: number;
  private readonly first: Int32Array;
  private readonly second: Int32Array;
  private readonly mask: number;

  constructor(width: number, texts: readonly string[]) {
    this.width = width;
    const windows = texts.reduce((n, t) => n + Math.max(0, t.length - width + 1), 0);
    let slots = 16;
    while (slots < windows * 2) slots *= 2;
    // No hash is -1 (see scanWindows), so it marks an empty slot.
    this.first = new Int32Array(slots).fill(-1);
    this.second = new Int32Array(slots);
    this.mask = slots - 1;
    for (const text of texts) scanWindows(text, width, (h1, h2) => this.add(h1, h2));
  }

  private slot(h1: number, h2: number): number {
    return (Math.imul(h1, 0x9e3779b1) ^ h2) & this.mask;
  }

  private add(h1: number, h2: number): void {
    let i = this.slot(h1, h2);
    while (this.first[i] !== -1) {
      if (this.first[i] === h1 && this.second[i] === h2) return;
      i = (i + 1) & this.mask;
    }
    this.first[i] = h1;
    this.second[i] = h2;
  }

  has(h1: number, h2: number): boolean {
    let i = this.slot(h1, h2);
    while (this.first[i] !== -1) {
      if (this.first[i] === h1 && this.second[i] === h2) return true;
      i = (i + 1) & this.mask;
    }
    return false;
  }
}

type Span = [start: number, end: number];

/** Spans sorted and joined where they overlap or touch. */
function joined(spans: Span[]): Span[] {
  spans.sort((a, b) => a[0] - b[0]);
  const out: Span[] = [];
  for (const span of spans) {
    const last = out.at(-1);
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else out.push([span[0], span[1]]);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The masker

export interface MaskerOptions {
  /**
   * Texts the caller sent with its request (path, query, body) that the answer may echo. They are
   * masked in the answer whether or not they match a secret (see the file comment).
   */
  reflected?: readonly string[];
}

export interface AnswerOptions {
  /** The answer's size limit in UTF-8 bytes. */
  limitBytes: number;
  /** Whether `text` is the whole answer; false when reading stopped before its end. */
  complete: boolean;
}

const utf8Length = (code: number) => (code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4);

/** Masks some secrets (and, if asked, the caller's reflected request) out of texts. */
export class Masker {
  private readonly forms: string[];
  /** Forms shorter than MASK_WINDOW: masked where they occur whole. */
  private readonly short: string[];
  private readonly windows: WindowSet;
  /** Reflected request texts, when their window is narrower than the secrets' one. */
  private readonly reflectedWindows: WindowSet | undefined;

  constructor(secrets: readonly string[], options: MaskerOptions = {}) {
    this.forms = [...new Set(secrets.filter((s) => s.length > 0).flatMap((s) => encodedForms(s)))];
    this.short = this.forms.filter((form) => form.length < MASK_WINDOW);
    const long = this.forms.filter((form) => form.length >= MASK_WINDOW);
    // A reflected request is masked in windows no wider than the narrowest form, so that a guess
    // of a short secret, whole, is masked as a reflection too.
    const narrowest = Math.min(MASK_WINDOW, ...this.forms.map((form) => form.length));
    // Only the encoders that change a secret matter: one that leaves every secret as it is cannot
    // turn a reflected guess into a window of a form that the plain guess does not already cover.
    const reflected =
      this.forms.length === 0
        ? []
        : [...new Set((options.reflected ?? []).flatMap((text) => encodedForms(text, secrets)))];
    if (narrowest === MASK_WINDOW) {
      this.windows = new WindowSet(MASK_WINDOW, [...long, ...reflected]);
    } else {
      this.windows = new WindowSet(MASK_WINDOW, long);
      if (reflected.length) this.reflectedWindows = new WindowSet(narrowest, reflected);
    }
  }

  /** Where `text` is masked: joined spans, each to be replaced by one MASK. */
  private spans(text: string): Span[] {
    const spans: Span[] = [];
    const mark = (start: number) => {
      const last = spans.at(-1);
      if (last && start <= last[1]) last[1] = start + MASK_WINDOW;
      else spans.push([start, start + MASK_WINDOW]);
    };
    const windows = this.windows;
    scanWindows(text, MASK_WINDOW, (h1, h2, start) => {
      if (windows.has(h1, h2)) mark(start);
    });
    const reflected = this.reflectedWindows;
    if (reflected) {
      scanWindows(text, reflected.width, (h1, h2, start) => {
        if (reflected.has(h1, h2)) spans.push([start, start + reflected.width]);
      });
    }
    for (const form of this.short) {
      for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + 1)) {
        spans.push([at, at + form.length]);
      }
    }
    return joined(spans);
  }

  /**
   * Where `text` is masked: sorted runs that neither overlap nor touch, each replaced by one MASK.
   * A match needs at most MASK_WINDOW characters, so in a text still growing only the last
   * MASK_WINDOW - 1 characters can yet join a run (what the streaming masker relies on).
   */
  runs(text: string): [start: number, end: number][] {
    return this.spans(text);
  }

  /** `text` with every masked run replaced by MASK. */
  mask(text: string): string {
    let out = '';
    let at = 0;
    for (const [start, end] of this.spans(text)) {
      out += text.slice(at, start) + MASK;
      at = end;
    }
    return out + text.slice(at);
  }

  /**
   * How many characters at the end of `text` to drop because they could begin a form: a copy of
   * a secret cut short there. (Any longer run was masked already.)
   */
  private cutFragment(text: string): number {
    let drop = 0;
    const longest = Math.min(text.length, MASK_WINDOW - 1);
    for (const form of this.forms) {
      for (let length = Math.min(longest, form.length); length > drop; length--) {
        if (text.endsWith(form.slice(0, length))) {
          drop = length;
          break;
        }
      }
    }
    return drop;
  }

  /**
   * An answer to hand back: the whole of `text` masked first, then cut to `limitBytes` (never
   * inside a MASK, and without a tail that could begin a form). When `text` is not the whole
   * answer, a tail that could begin a form is dropped first too, since the read stopped there.
   */
  answer(text: string, { limitBytes, complete }: AnswerOptions): { text: string; truncated: boolean } {
    const spans = this.spans(text);
    let end = text.length;
    if (!complete) end -= this.cutFragment(text.slice(spans.at(-1)?.[1] ?? 0));
    let out = '';
    let bytes = 0;
    let truncated = !complete;
    /** Appends what fits of a plain piece; false when it did not all fit. */
    const plain = (piece: string): boolean => {
      let length = 0;
      let size = 0;
      for (const ch of piece) {
        const next = utf8Length(ch.codePointAt(0)!);
        if (bytes + size + next > limitBytes) {
          const kept = piece.slice(0, length);
          out += kept.slice(0, kept.length - this.cutFragment(kept));
          return false;
        }
        size += next;
        length += ch.length;
      }
      out += piece;
      bytes += size;
      return true;
    };
    let at = 0;
    for (const [start, stop] of spans) {
      if (!plain(text.slice(at, start))) return { text: out, truncated: true };
      if (bytes + MASK.length > limitBytes) return { text: out, truncated: true };
      out += MASK;
      bytes += MASK.length;
      at = stop;
    }
    if (!plain(text.slice(at, end))) truncated = true;
    return { text: out, truncated };
  }
}

/** `text` with every masked form of `secret` replaced by MASK (no reflections, no cut). */
export function maskSecret(text: string, secret: string): string {
  return new Masker([secret]).mask(text);
}
