// Clean copies: a text with every value the detector found replaced by a typed token
// (`[EMAIL_1]`, `[AWS_ACCESS_KEY_1]`), its structure kept. The same value of the same type gets the
// same token in every file of one copy (a `TokenAllocator` is shared across the files); a token
// never breaks the file's syntax, and no line break is added or removed, so every line keeps its
// number. Pure: no I/O and no `node:` imports, like detect.ts (docs/SCAN.md, Clean copies).
//
// How a token is written depends on where the value lies, and that depends on the format, read
// from the file's name (`formatOf`). Each format's reader cuts the text into regions:
// - `text`: a token goes in as it is (plain text, comments, unquoted CSV cells and .env values,
//   YAML block scalars);
// - `string`: the inside of a quoted string; a token goes in as it is (it holds no quote, no
//   backslash), but the edges of a value are moved out of an escape sequence (`\"`, `\u0041`,
//   `''`), never cutting one in half;
// - `scalar`: a value outside quotes where a token could change the syntax (a JSON number, a YAML
//   plain scalar): the whole scalar is quoted, with the token in it, when it must be;
// - `name`: a YAML anchor, alias or tag (`&x`, `*x`, `!x`), where brackets may not go: the token
//   goes in without them (`&SECRET_1`), the same value giving the same name, so an alias still
//   names its anchor;
// and what lies between regions (quotes, brackets, delimiters, keys' punctuation) is kept. A value
// no region holds is replaced as in `text`: a copy never keeps a value the detector found.
import type { Match } from './detect.ts';
import { bitsPerChar } from './secrets/rule.ts';

/**
 * Hands out tokens for one clean copy: the same value gets the same token everywhere in it,
 * whichever rule found it (the type it was first found as names it: a password in a connection
 * string and again in `DB_PASSWORD=` is one token), and each type is numbered on its own
 * (`[EMAIL_1]`, `[EMAIL_2]`, `[IBAN_1]`). A token a source already holds as text is never handed
 * out (see `reserve`). It holds the values too, for the owner's reversible mapping: never log or
 * print it.
 */
export class TokenAllocator {
  private readonly tokens = new Map<string, string>();
  /** Each token's value as each place wrote it (see `sameValue`), in the order met. */
  private readonly values = new Map<string, string[]>();
  /** Per token and way of writing its value, the files of the copy that wrote it so (`tokenFor`'s `writtenIn`). */
  private readonly writers = new Map<string, Map<string, Set<string>>>();
  /** Per token, the source files its value was found in (`tokenFor`'s `from`). */
  private readonly sources = new Map<string, Set<string>>();
  /** Distinct values of each type. */
  private readonly counts = new Map<string, number>();
  /** The last number handed out for each type. */
  private readonly numbers = new Map<string, number>();
  /** Tokens the sources hold as text (`KIND_N`, without brackets). */
  private readonly taken = new Set<string>();

  /**
   * Leaves every token `text` already holds (`[EMAIL_1]`, or `&EMAIL_1` as a YAML name) out of the
   * numbering: a document about clean copies, or a copy of a copy, keeps its own `[EMAIL_1]` as
   * text, and a value found beside it becomes `[EMAIL_2]`. Otherwise one token would stand for two
   * things in the copy, and putting values back would turn the source's own text into a value.
   */
  reserve(text: string): void {
    if (!text.includes('_')) return;
    for (const [, bracketed, named] of text.matchAll(WRITTEN_TOKEN)) this.taken.add((bracketed ?? named)!);
  }

  /**
   * The token of `value` found as `type` (a rule's type, upper case). With a `scope`, the value is
   * equal only to the same value in the same scope: a file the reader may have only clean shares no
   * token with files the reader may write, or writing a guess into one would tell by its token
   * whether the other holds it.
   */
  tokenFor(
    type: string,
    value: string,
    scope?: string,
    writtenIn?: string,
    /** The source file (or the folder, for a value in a name) the value was found in. */
    from?: string,
  ): string {
    const key = scope === undefined ? sameValue(value) : `${scope}\u0000${sameValue(value)}`;
    let token = this.tokens.get(key);
    if (token === undefined) {
      const kind = type.toUpperCase().replace(/[^A-Z0-9_]/g, '_') || 'VALUE';
      let number = this.numbers.get(kind) ?? 0;
      do number++;
      while (this.taken.has(`${kind}_${number}`));
      this.numbers.set(kind, number);
      this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
      token = `[${kind}_${number}]`;
      this.tokens.set(key, token);
      this.values.set(token, [value]);
    } else if (!this.values.get(token)!.includes(value)) this.values.get(token)!.push(value);
    if (writtenIn !== undefined) {
      let ways = this.writers.get(token);
      if (!ways) this.writers.set(token, (ways = new Map()));
      let files = ways.get(value);
      if (!files) ways.set(value, (files = new Set()));
      files.add(writtenIn);
    }
    if (from !== undefined) {
      let files = this.sources.get(token);
      if (!files) this.sources.set(token, (files = new Set()));
      files.add(from);
    }
    return token;
  }

  /**
   * Per token, the source files its value was found in: putting a token's value back is a read of
   * each, whatever file the token is put back into (a clean-copy-only file's tokens copied into
   * another file are still that file's values).
   */
  provenance(): Record<string, string[]> {
    return Object.fromEntries([...this.sources].map(([token, files]) => [token, [...files].sort()]));
  }

  /**
   * How many distinct values of each type have a token: what a report may say. A value in a file of
   * its own scope counts there on its own (it has a token of its own).
   */
  tokensByType(): Record<string, number> {
    return Object.fromEntries([...this.counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** Token to value (as first written): the reversible mapping, for the owner who asked to keep it sealed. */
  mapping(): Map<string, string> {
    return new Map([...this.values].map(([token, forms]) => [token, forms[0]!]));
  }

  /**
   * Token and value, once for each way the copy's files wrote the value (a key block with `\n` or
   * `\r\n`, indented in YAML, escaped in JSON): what putting values back needs to restore each
   * place as it was. A value written more than one way names the files that wrote each way, so
   * that each file gets its own back (two keys escaped in JSON, one with `\r\n`, are one token).
   */
  forms(): Form[] {
    return [...this.values].flatMap(([token, forms]) =>
      forms.map((form): Form => {
        const files = forms.length > 1 ? this.writers.get(token)?.get(form) : undefined;
        return files ? [token, form, [...files].sort()] : [token, form];
      }),
    );
  }
}

/** A token and one way its value was written, with the files of the copy that wrote it so when there are several ways. */
export type Form = readonly [token: string, value: string, writtenIn?: readonly string[]];

/** A token as a copy writes it: in brackets, or after a YAML name's mark (`&`, `*`, `!`). */
const WRITTEN_TOKEN = /\[([A-Z0-9_]+_\d+)\]|(?<![\w])[&*!]([A-Z0-9_]+_\d+)(?![\w])/g;

/**
 * What makes two matches the same value: the text itself, or for a value over several lines (a
 * key block) its lines without their line endings, indentation and JSON's `\n` escapes. A key in
 * a `.pem` file, indented in a YAML block, with Windows line endings and escaped in a JSON string
 * is one value and one token.
 */
function sameValue(value: string): string {
  // Key blocks only: a password that holds the letters `\n` is that password, not another's.
  if (!/[\r\n]/.test(value) && !value.includes('-----BEGIN')) return value;
  return value
    .replace(/\\r\\n|\\n|\\r/g, '\n')
    .split(/\r?\n|\r/)
    .map((line) => line.trim())
    .filter(Boolean)
    .join('\n');
}

/** What a copy needs of a match: where the value lies, its type, and how sure the rule was. */
export type Found = Pick<Match, 'start' | 'end' | 'confidence'> & {
  rule: Pick<Match['rule'], 'type' | 'category'>;
};

/** Values shorter than this are not looked for elsewhere: too many other words are as short. */
const KNOWN_MIN_LENGTH = 6;
/** A secret this long is looked for anywhere (`mysql -pXk29vQpL7rTz44Wm`); shorter values as whole words. */
const KNOWN_ANYWHERE_LENGTH = 12;
const WORD_CHAR = 'A-Za-z0-9\u00c0-\u024f';

/**
 * The values one copy found, to be replaced wherever else they stand in it: a password the
 * detector found after `DB_PASSWORD=` is replaced in a note that runs `psql -W` with it too, and a
 * name found in a CSV's name column in the prose that mentions it. Values on one line only; dates
 * of birth are left out, as the same date is often just a date elsewhere, and so are names of one
 * word. Holds values: never log it.
 */
export class KnownValues {
  private readonly types = new Map<string, Found['rule']>();
  private search: RegExp[] | undefined;

  /** Keeps the values of `matches` in `text`. */
  add(text: string, matches: readonly Found[]): void {
    for (const m of matches) {
      const value = text.slice(m.start, m.end);
      if (value.length < KNOWN_MIN_LENGTH || /[\r\n]/.test(value) || m.rule.type === 'DATE_OF_BIRTH')
        continue;
      // A name of one word (a first-name column's `Madison`) is a place, a month or a word of code
      // elsewhere: only a whole name is looked for.
      if (m.rule.type === 'PERSON_NAME' && !/\s/.test(value.trim())) continue;
      if (!this.types.has(value)) {
        this.types.set(value, m.rule);
        this.search = undefined;
      }
    }
  }

  /**
   * The known secrets nobody could guess (20 characters or more, nearly all different: 3.9 bits of
   * entropy a character or more, as random tokens have and people's passwords seldom do), for a
   * file only its clean copy may leave: a value found elsewhere is replaced there too, or the copy
   * would keep it wherever the file's own look missed it. Guessable values stay out: an agent that
   * writes a guess into a file it may write would learn, from a token in the clean copy, that the
   * protected file holds it.
   */
  /** The values of this set and of `other` (this one's type where both hold a value). */
  with(other: KnownValues): KnownValues {
    const both = new KnownValues();
    for (const [value, rule] of other.types) both.types.set(value, rule);
    for (const [value, rule] of this.types) both.types.set(value, rule);
    return both;
  }

  unguessable(): KnownValues {
    const kept = new KnownValues();
    for (const [value, rule] of this.types) {
      if (rule.category === 'secret' && value.length >= 20 && bitsPerChar(value) >= 3.9) {
        kept.types.set(value, rule);
      }
    }
    return kept;
  }

  /** The places in `text` where a known value stands and none of `matches` lies: more to replace. */
  elsewhere(text: string, matches: readonly Found[]): Found[] {
    if (this.types.size === 0) return [];
    this.search ??= this.expressions();
    let taken = [...matches].sort((a, b) => a.start - b.start);
    const more: Found[] = [];
    for (const expression of this.search) {
      // Hits come in text order: one pointer walks the spans already taken.
      let k = 0;
      let farthest = 0;
      const found: Found[] = [];
      for (const hit of text.matchAll(expression)) {
        const start = hit.index;
        const end = start + hit[0].length;
        while (k < taken.length && taken[k]!.start < end) farthest = Math.max(farthest, taken[k++]!.end);
        // Taken spans that start before this hit's end: any of them reaching past its start overlaps.
        if (farthest > start) continue;
        found.push({ start, end, confidence: 1, rule: this.types.get(hit[0])! });
      }
      more.push(...found);
      taken = [...taken, ...found].sort((a, b) => a.start - b.start);
    }
    return more;
  }

  /** One alternation per kind of edge, longest values first, so a value is taken whole. */
  private expressions(): RegExp[] {
    const escape = (value: string) => value.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
    const values = [...this.types.keys()].sort((a, b) => b.length - a.length);
    const anywhere = new Set(
      values.filter((v) => this.types.get(v)!.category === 'secret' && v.length >= KNOWN_ANYWHERE_LENGTH),
    );
    const words = values.filter((v) => !anywhere.has(v));
    const out: RegExp[] = [];
    if (anywhere.size) out.push(new RegExp([...anywhere].map(escape).join('|'), 'g'));
    if (words.length) {
      out.push(new RegExp(`(?<![${WORD_CHAR}])(?:${words.map(escape).join('|')})(?![${WORD_CHAR}])`, 'g'));
    }
    return out;
  }
}

/** The formats whose syntax a clean copy keeps; anything else is `text`. */
export type CopyFormat = 'json' | 'json5' | 'yaml' | 'csv' | 'tsv' | 'env' | 'text';

/** The format of a file, from its name (a path with `/` or `\` between parts is fine). */
export function formatOf(file: string): CopyFormat {
  const name = file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1).toLowerCase();
  if (name.endsWith('.json5')) return 'json5';
  if (/\.(?:json|jsonc|jsonl|ndjson|geojson|webmanifest)$/.test(name)) return 'json';
  if (/\.ya?ml$/.test(name)) return 'yaml';
  if (name.endsWith('.csv')) return 'csv';
  if (name.endsWith('.tsv')) return 'tsv';
  if (name === '.env' || name.startsWith('.env.') || name.endsWith('.env')) return 'env';
  return 'text';
}

/** A part of the text that can hold a value, and how a token is written there. */
type Region =
  | { kind: 'text' | 'name'; start: number; end: number }
  | {
      kind: 'string';
      start: number;
      end: number;
      /** How the string escapes: `\x` (and JSON's `\uXXXX`), or a quote written twice. */
      escapes: 'backslash' | 'doubled';
      quote: string;
    }
  | {
      kind: 'scalar';
      start: number;
      end: number;
      /** `always`: any token makes it quoted; `at-start`: only a token that would start it. */
      quoteWhen: 'always' | 'at-start';
      /** The quoting that keeps the format valid: a JSON string, or a YAML single-quoted scalar. */
      quoteAs: 'json' | 'yaml';
    };

/** A value to replace: where it lies and the type it was found as. */
interface Span {
  start: number;
  end: number;
  type: string;
  /** The whole value, for a part of one that lies across regions: each part gets its token. */
  value?: string;
}

export interface CleanText {
  text: string;
  /** How many values were replaced (overlapping matches count once). */
  replaced: number;
}

/**
 * The clean text of `text` (named `file`, which decides its format): every match replaced by its
 * type's token from `tokens`. Matches may come in any order and may overlap: overlapping ones
 * become one value, of the most confident match's type.
 */
export function redactText(
  text: string,
  file: string,
  matches: readonly Found[],
  tokens: TokenAllocator,
  {
    scope,
    writtenIn,
    from,
  }: {
    /** The file's own scope for equal values (`TokenAllocator.tokenFor`); none shares the copy's. */
    scope?: string;
    /** The file's name in the copy, recorded with each way it writes a value (`TokenAllocator.forms`). */
    writtenIn?: string;
    /** The source file the text is (or whose name it is), recorded with each token (`TokenAllocator.provenance`). */
    from?: string;
  } = {},
): CleanText {
  const spans = spansOf(text, matches);
  if (spans.length === 0) return { text, replaced: 0 };
  tokens.reserve(text);
  const regions = READERS[formatOf(file)](text);
  // The token of the text a span finally covers (after its edges left any escape): what the copy
  // replaced is what the mapping gives back.
  const tokenOf = (span: Span) =>
    tokens.tokenFor(span.type, span.value ?? text.slice(span.start, span.end), scope, writtenIn, from);
  const edits: Edit[] = [];
  const held = new Array<boolean>(spans.length).fill(false);
  let first = 0;
  for (const region of regions) {
    if (region.end <= region.start) continue;
    while (first < spans.length && spans[first]!.end <= region.start) first++;
    const inside: Span[] = [];
    for (let i = first; i < spans.length && spans[i]!.start < region.end; i++) {
      const span = spans[i]!;
      held[i] = true;
      const start = Math.max(span.start, region.start);
      const end = Math.min(span.end, region.end);
      const whole = start === span.start && end === span.end;
      inside.push({
        start,
        end,
        type: span.type,
        ...(whole ? {} : { value: text.slice(span.start, span.end) }),
      });
    }
    if (inside.length > 0) edits.push(...editsIn(text, region, inside, tokenOf));
  }
  // A value where the reader saw none (syntax it does not know): replaced as it is.
  spans.forEach((span, i) => {
    if (!held[i]) edits.push({ ...span, text: tokenBody(tokenOf(span), text.slice(span.start, span.end)) });
  });
  return { text: applyEdits(text, edits), replaced: spans.length };
}

/** Matches as sorted, disjoint values with their types. */
function spansOf(text: string, matches: readonly Found[]): Span[] {
  const sorted = matches
    .map((m) => ({
      start: Math.max(0, m.start),
      end: Math.min(text.length, m.end),
      type: m.rule.type,
      confidence: m.confidence,
    }))
    .filter((m) => m.start < m.end)
    .sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: typeof sorted = [];
  for (const match of sorted) {
    const last = merged.at(-1);
    if (last && match.start < last.end) {
      // The detector keeps the best match per span already; should two still overlap, their union
      // is one value, so that nothing of either is left in the copy.
      last.end = Math.max(last.end, match.end);
      if (match.confidence > last.confidence) {
        last.type = match.type;
        last.confidence = match.confidence;
      }
    } else merged.push({ ...match });
  }
  return merged.map(({ start, end, type }) => ({ start, end, type }));
}

/**
 * What replaces `value`: the token, then the value's line breaks, each followed by the blanks that
 * began its line. A multi-line value (a PEM block) becomes its token on its first line and lines
 * holding only their indentation, so every line after it keeps its number and its indentation
 * (which a YAML block or a quoted multi-line value needs).
 */
export function tokenBody(token: string, value: string): string {
  if (!value.includes('\n')) return token;
  const lines = value.split('\n');
  let body = lines[0]!.endsWith('\r') ? `${token}\r` : token;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const last = i === lines.length - 1;
    body += `\n${/^[ \t]*/.exec(line)![0]}${!last && line.endsWith('\r') ? '\r' : ''}`;
  }
  return body;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

function editsIn(text: string, region: Region, spans: Span[], tokenOf: (span: Span) => string): Edit[] {
  const asText = (s: Span) => ({ ...s, text: tokenBody(tokenOf(s), text.slice(s.start, s.end)) });
  switch (region.kind) {
    case 'text':
      return spans.map(asText);
    case 'name':
      return spans.map((s) => ({ ...s, text: tokenOf(s).slice(1, -1) }));
    case 'string':
      return disjoint(snapToEscapes(text, region, spans)).map(asText);
    case 'scalar': {
      const quote = region.quoteWhen === 'always' || spans.some((s) => s.start === region.start);
      if (!quote) return spans.map(asText);
      // The whole scalar is rewritten quoted: its own characters escaped as that quoting needs,
      // the tokens as they are (they hold nothing to escape).
      const escape =
        region.quoteAs === 'json'
          ? (part: string) => JSON.stringify(part).slice(1, -1)
          : (part: string) => part.replace(/'/g, "''");
      const mark = region.quoteAs === 'json' ? '"' : "'";
      let body = '';
      let at = region.start;
      for (const span of spans) {
        body +=
          escape(text.slice(at, span.start)) + tokenBody(tokenOf(span), text.slice(span.start, span.end));
        at = span.end;
      }
      body += escape(text.slice(at, region.end));
      return [{ start: region.start, end: region.end, text: `${mark}${body}${mark}` }];
    }
  }
}

/**
 * Moves each value's edges out of the escape sequences of a quoted string (`\"`, `\\`, `\u0041`,
 * a doubled quote) and out of the middle of a surrogate pair, so that what is left stays a valid
 * string of the format. The token stands for the text it replaced, escape and all, so that putting
 * values back restores the string as it was.
 */
function snapToEscapes(text: string, region: Extract<Region, { kind: 'string' }>, spans: Span[]): Span[] {
  // The string is read as units (a character, an escape, a doubled quote, a surrogate pair): a
  // value begins where the unit holding its first character begins and ends where the unit
  // holding its last one ends.
  const snapped: Span[] = [];
  let next = 0;
  let pendingStart: number | undefined;
  for (let at = region.start; at < region.end && next < spans.length;) {
    const code = text.charCodeAt(at);
    let length = 1;
    if (region.escapes === 'backslash' && code === 0x5c) {
      length = text[at + 1] === 'u' && /^[0-9A-Fa-f]{4}$/.test(text.slice(at + 2, at + 6)) ? 6 : 2;
    } else if (region.escapes === 'doubled' && text[at] === region.quote && text[at + 1] === region.quote) {
      length = 2;
    } else if (code >= 0xd800 && code <= 0xdbff) {
      const low = text.charCodeAt(at + 1);
      if (low >= 0xdc00 && low <= 0xdfff) length = 2;
    }
    const unitEnd = Math.min(region.end, at + length);
    const span = spans[next]!;
    if (pendingStart === undefined && span.start < unitEnd) pendingStart = at;
    if (pendingStart !== undefined && span.end <= unitEnd) {
      snapped.push({ ...span, start: pendingStart, end: unitEnd });
      pendingStart = undefined;
      next++;
      // The next value may start inside this same unit: look at it again.
      continue;
    }
    at = unitEnd;
  }
  return snapped;
}

/** Values that snapping made overlap become one (the first one's token). */
function disjoint(spans: Span[]): Span[] {
  const out: Span[] = [];
  for (const span of spans) {
    const last = out.at(-1);
    if (last && span.start < last.end) last.end = Math.max(last.end, span.end);
    else out.push({ ...span });
  }
  return out;
}

function applyEdits(text: string, edits: Edit[]): string {
  edits.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const edit of edits) {
    if (edit.start < at) continue;
    out += text.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + text.slice(at);
}

// ---------------------------------------------------------------------------------------------
// The readers: each cuts a text of its format into regions, in order, never overlapping. They
// read what is there without judging it: a file that is not valid in its format still gets a copy
// (with its tokens written as that format would need them).

const READERS: Record<CopyFormat, (text: string) => Region[]> = {
  json: (text) => jsonRegions(text, false),
  json5: (text) => jsonRegions(text, true),
  yaml: yamlRegions,
  csv: (text) => csvRegions(text, ','),
  tsv: (text) => csvRegions(text, '\t'),
  env: envRegions,
  text: (text) => [{ kind: 'text', start: 0, end: text.length }],
};

const lineEndAt = (text: string, from: number) => {
  const end = text.indexOf('\n', from);
  return end === -1 ? text.length : end;
};

/** The end of a line's content: before its `\r\n` or `\n`. */
const contentEnd = (text: string, end: number) => (text[end - 1] === '\r' ? end - 1 : end);

/**
 * JSON (and JSON Lines, and JSON with comments): strings, comments, and bare literals (numbers,
 * true, false, null). A token in a bare literal makes it a string: `4111…` becomes `"[CARD_NUMBER_1]"`.
 * JSON5 strings may be single-quoted too.
 */
function jsonRegions(text: string, json5: boolean): Region[] {
  const regions: Region[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text[i]!;
    if (c === '"' || (json5 && c === "'")) {
      let j = i + 1;
      while (j < n && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      j = Math.min(j, n);
      regions.push({ kind: 'string', start: i + 1, end: j, escapes: 'backslash', quote: c });
      i = text[j] === c ? j + 1 : j;
    } else if (c === '/' && text[i + 1] === '/') {
      const end = lineEndAt(text, i);
      regions.push({ kind: 'text', start: i, end });
      i = end;
    } else if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      const end = close === -1 ? n : close + 2;
      regions.push({ kind: 'text', start: i, end });
      i = end;
    } else if (/[\s,:[\]{}]/.test(c)) {
      i++;
    } else {
      let j = i + 1;
      while (j < n && !/[\s,:[\]{}"']/.test(text[j]!)) j++;
      regions.push({ kind: 'scalar', start: i, end: j, quoteWhen: 'always', quoteAs: 'json' });
      i = j;
    }
  }
  return regions;
}

/**
 * CSV (RFC 4180) and TSV: a quoted cell's inside (a quote written twice is one quote; line breaks
 * may be inside) and unquoted cells. Delimiters, quotes and line breaks are kept.
 */
function csvRegions(text: string, delimiter: string): Region[] {
  const regions: Region[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (text[i] === '"') {
      let j = i + 1;
      for (; j < n; j++) {
        if (text[j] !== '"') continue;
        if (text[j + 1] === '"') j++;
        else break;
      }
      regions.push({ kind: 'string', start: i + 1, end: Math.min(j, n), escapes: 'doubled', quote: '"' });
      i = j + 1;
    }
    // An unquoted cell, or what follows a closing quote up to the delimiter.
    let j = i;
    while (j < n && text[j] !== delimiter && text[j] !== '\n' && text[j] !== '\r') j++;
    if (j > i) regions.push({ kind: 'text', start: i, end: j });
    i = j;
    while (i < n && (text[i] === delimiter || text[i] === '\n' || text[i] === '\r')) {
      i++;
      // A cell starts after each delimiter or line break: a quote there opens a quoted cell.
      if (text[i] === '"') break;
    }
  }
  return regions;
}

const ENV_ASSIGNMENT = /^[ \t]*(?:export[ \t]+)?[A-Za-z_][A-Za-z0-9_.-]*[ \t]*[=:][ \t]*/;

/**
 * `.env`: `KEY=value`, `export KEY="value"`, comments. A quoted value may span lines (a PEM key);
 * double quotes escape with `\`, single quotes and backticks do not. An unquoted value takes a
 * token as it is: the dotenv parsers take `[` and `]` literally, and a shell does not expand them
 * in an assignment.
 */
function envRegions(text: string): Region[] {
  const regions: Region[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const end = lineEndAt(text, i);
    const assignment = ENV_ASSIGNMENT.exec(text.slice(i, end));
    if (!assignment) {
      regions.push({ kind: 'text', start: i, end: contentEnd(text, end) });
      i = end + 1;
      continue;
    }
    const value = i + assignment[0].length;
    regions.push({ kind: 'text', start: i, end: value });
    const quote = text[value];
    if (quote === '"' || quote === "'" || quote === '`') {
      let j = value + 1;
      while (j < n && text[j] !== quote) j += quote === '"' && text[j] === '\\' ? 2 : 1;
      j = Math.min(j, n);
      regions.push({
        kind: 'string',
        start: value + 1,
        end: j,
        escapes: quote === '"' ? 'backslash' : 'doubled',
        quote,
      });
      // What follows the closing quote on its line: a comment, usually.
      const after = Math.min(n, j + 1);
      const lineEnd = lineEndAt(text, after);
      regions.push({ kind: 'text', start: after, end: contentEnd(text, lineEnd) });
      i = lineEnd + 1;
    } else {
      regions.push({ kind: 'text', start: value, end: contentEnd(text, end) });
      i = end + 1;
    }
  }
  return regions;
}

const isBlank = (c: string | undefined) =>
  c === undefined || c === ' ' || c === '\t' || c === '\n' || c === '\r';
const FLOW_INDICATORS = ',[]{}';

/**
 * YAML: double-quoted scalars (`\` escapes), single-quoted ones (`''`), block scalars (`|`, `>`:
 * their lines take a token as it is), comments, and plain scalars. A token inside a plain scalar
 * is fine in block context, but one that would start it would read as a flow sequence, and a flow
 * collection (`[a, b]`) allows no `[` in a plain scalar: then the scalar is single-quoted.
 * A plain scalar may go on over lines more indented than its parent; it is followed to its end.
 */
function yamlRegions(text: string): Region[] {
  const regions: Region[] = [];
  const n = text.length;
  let i = 0;
  let flow = 0;
  /** Inside a block scalar: lines indented more than `threshold` (or blank) are its content. */
  let block: { threshold: number; content?: Region } | undefined;
  let lineStart = 0;
  let atLineStart = true;
  /** The column a value on this line belongs to: its key's, or its `- ` entry's. */
  let parentColumn: number | undefined;
  /** Where the last scalar on this line began: a key, if a `:` follows. */
  let scalarColumn: number | undefined;
  const indentAt = (from: number) => {
    let k = from;
    while (text[k] === ' ') k++;
    return k - from;
  };
  while (i < n) {
    if (atLineStart) {
      atLineStart = false;
      lineStart = i;
      parentColumn = undefined;
      scalarColumn = undefined;
      const end = lineEndAt(text, i);
      const indent = indentAt(i);
      const blank = text.slice(i + indent, end).trim() === '';
      const marker = (text.startsWith('---', i) || text.startsWith('...', i)) && isBlank(text[i + 3]);
      if (block) {
        if (!marker && (blank || indent > block.threshold)) {
          // One region for all its lines, so that a value over several of them is one token.
          if (!blank) {
            if (block.content) block.content.end = contentEnd(text, end);
            else {
              block.content = { kind: 'text', start: i + indent, end: contentEnd(text, end) };
              regions.push(block.content);
            }
          }
          i = end + 1;
          atLineStart = true;
          continue;
        }
        block = undefined;
      }
      if (flow === 0 && marker) {
        // A document's start: a block scalar right after it holds the rest of the document.
        parentColumn = -1;
        i += 3;
        continue;
      }
      if (flow === 0 && text[i] === '%') {
        // A directive (`%YAML 1.2`): text as a comment is.
        regions.push({ kind: 'text', start: i, end: contentEnd(text, end) });
        i = end;
        continue;
      }
      i += indent;
      continue;
    }
    const c = text[i]!;
    const column = i - lineStart;
    if (c === '\n') {
      i++;
      atLineStart = true;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      i++;
    } else if (c === '#' && (i === lineStart || isBlank(text[i - 1]))) {
      const end = contentEnd(text, lineEndAt(text, i));
      regions.push({ kind: 'text', start: i, end });
      i = end;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      for (; j < n; j++) {
        if (c === '"' && text[j] === '\\') j++;
        else if (text[j] === c) {
          if (c === "'" && text[j + 1] === "'") j++;
          else break;
        }
      }
      j = Math.min(j, n);
      regions.push({
        kind: 'string',
        start: i + 1,
        end: j,
        escapes: c === '"' ? 'backslash' : 'doubled',
        quote: c,
      });
      scalarColumn = column;
      lineStart = lineStartAfter(text, i, j, lineStart);
      i = j + 1;
    } else if (c === '[' || c === '{') {
      flow++;
      i++;
    } else if (c === ']' || c === '}') {
      flow = Math.max(0, flow - 1);
      i++;
    } else if (c === ',' && flow > 0) {
      i++;
    } else if (
      (c === '-' || c === '?' || c === ':') &&
      (isBlank(text[i + 1]) ||
        (c === ':' && (text[i - 1] === '"' || text[i - 1] === "'")) ||
        (c === ':' && flow > 0 && FLOW_INDICATORS.includes(text[i + 1]!)))
    ) {
      if (c === '-') parentColumn = column;
      else if (c === ':') parentColumn = scalarColumn ?? parentColumn;
      i++;
    } else if ((c === '|' || c === '>') && flow === 0) {
      // A block scalar's header: its content is the lines indented more than its parent.
      block = { threshold: parentColumn ?? column - 1 };
      // The rest of the header line: indicators, and maybe a comment.
      const end = contentEnd(text, lineEndAt(text, i));
      regions.push({ kind: 'text', start: i, end });
      i = end;
    } else if (c === '&' || c === '*' || c === '!') {
      // An anchor, an alias or a tag: a name, not a value; but an unquoted password may start with
      // `!` or `*`, and then the name is where it lies.
      const start = i + 1;
      while (i < n && !isBlank(text[i]) && !(flow > 0 && FLOW_INDICATORS.includes(text[i]!))) i++;
      regions.push({ kind: 'name', start, end: i });
    } else {
      const end = plainScalarEnd(text, i, flow > 0, parentColumn === undefined ? column : parentColumn + 1);
      regions.push({
        kind: 'scalar',
        start: i,
        end,
        quoteWhen: flow > 0 ? 'always' : 'at-start',
        quoteAs: 'yaml',
      });
      scalarColumn = column;
      lineStart = lineStartAfter(text, i, end - 1, lineStart);
      i = end;
    }
  }
  return regions;
}

/**
 * Where the line holding `at` starts, for a scalar read from `from` to `at` on a line that started
 * at `lineStart`: only a line break inside the scalar moves it. (A search back from `at` alone would
 * cross the whole line each time, and a long flow-style line holds thousands of scalars.)
 */
function lineStartAfter(text: string, from: number, at: number, lineStart: number): number {
  for (let k = Math.min(at, text.length - 1); k >= from; k--) if (text.charCodeAt(k) === 10) return k + 1;
  return lineStart;
}

/**
 * Where a YAML plain scalar that starts at `start` ends (after its last non-blank character): at
 * `: `, at ` #`, at a flow indicator inside a flow collection, or at the end of a line that the
 * next non-blank line does not continue (in block context a continuation is indented at least
 * `minIndent`; in a flow collection it does not start with a flow indicator).
 */
function plainScalarEnd(text: string, start: number, inFlow: boolean, minIndent: number): number {
  const n = text.length;
  let end = start + 1;
  let j = start;
  while (j < n) {
    const c = text[j]!;
    if (c === '\n' || (c === '\r' && text[j + 1] === '\n')) {
      // The next line that is not blank continues this scalar when it is indented enough (in a
      // flow collection: unless it starts with a flow indicator).
      let k = c === '\r' ? j + 2 : j + 1;
      for (;;) {
        const lineEnd = lineEndAt(text, k);
        if (text.slice(k, lineEnd).trim() !== '' || lineEnd >= n) break;
        k = lineEnd + 1;
      }
      if (k >= n) break;
      let indent = 0;
      while (text[k + indent] === ' ') indent++;
      const first = text[k + indent];
      const marker = (text.startsWith('---', k) || text.startsWith('...', k)) && isBlank(text[k + 3]);
      if (first === '#' || marker || first === undefined || isBlank(first)) break;
      if (inFlow ? FLOW_INDICATORS.includes(first) : indent < minIndent) break;
      j = k + indent;
      continue;
    }
    if (c === ':' && (isBlank(text[j + 1]) || (inFlow && FLOW_INDICATORS.includes(text[j + 1]!)))) break;
    if (c === '#' && isBlank(text[j - 1])) break;
    if (inFlow && FLOW_INDICATORS.includes(c)) break;
    if (c !== ' ' && c !== '\t' && c !== '\r') end = j + 1;
    j++;
  }
  return Math.max(end, start + 1);
}
