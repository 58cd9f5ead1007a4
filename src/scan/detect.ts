// The detection core: rules as data, and one pass over a text that runs each rule only around the
// places its keywords occur. A finding carries where it is, what it is and how sure the rule is,
// a masked preview and a keyed fingerprint; never the value itself. Pure: no I/O and no `node:`
// imports (the fingerprint's keyed hash is given by the caller, which holds the key).
import { KeywordSet, foldDigits, type KeywordHits } from './keywords.ts';

export type Category = 'secret' | 'pii';

/** What a rule's `check` sees beside the value: the line it is on and the file's name. */
export interface Context {
  /** The whole line the value is on (at most LINE_WINDOW characters either side of the value). */
  line: string;
  /**
   * The text on the value's line just before it, at most `chars` characters (LINE_WINDOW when
   * not given): where a label such as `phone:` sits.
   */
  before(chars?: number): string;
  /**
   * The line before the value's (at most LINE_WINDOW characters of its end): where a Kubernetes
   * env entry names the `value:` on the value's line (`- name: BUILD_VERSION`).
   */
  lineBefore: string;
  /** The file's path as the scan names it (relative to the scanned folder), or '' for loose text. */
  file: string;
}

export interface DetectionRule {
  /** Stable id, lowercase words with `-`: `aws-access-key-id`. Feedback and plans name rules by it. */
  id: string;
  category: Category;
  /** The kind of value, upper case: the token a clean copy puts in its place (`[AWS_ACCESS_KEY_1]`). */
  type: string;
  /**
   * Lowercase text that every match holds (or lies `near`): the rule runs only in windows around
   * where they occur (the prefilter). A digit in a keyword stands for any digit (`000`: three in
   * a row). An empty list runs the rule on the whole of every text: keep such rules few and cheap,
   * or bound to `files`.
   */
  keywords: readonly string[];
  /**
   * Only texts of files whose path (as the scan names it: relative, `/` between folders) this
   * matches: a file whose name says what it holds (`.pgpass`, Rails's `config/master.key`), where
   * the format has no word to look for. A loose text (no file name) is none of them.
   */
  files?: RegExp;
  /**
   * Global (`g`) expression. The value is the named group `value` when there is one, else the whole
   * match. Written from the provider's documented format; never copied from another scanner.
   */
  pattern: RegExp;
  /** How sure a match is, in [0, 1], before `check`. */
  confidence: number;
  /**
   * How many of a value's first characters its report may show: a documented prefix that names the
   * kind (`ghp_`, `AKIA`), at most 4 and never more than a quarter of the value. Default 0: a
   * password, or a value found by the name it is assigned to, shows only its length.
   */
  shows?: number;
  /**
   * A cheaper global expression that matches (reading no further than `pattern`) at most `lead`
   * characters after every place `pattern` matches, and maybe elsewhere: the pattern is tried only
   * there. For a pattern whose every try is dear (the `u` flag's classes).
   */
  locator?: RegExp;
  /**
   * How many characters before the place that finds it (a keyword's hit, or its locator's match) a
   * match may start: a value whose keyword sits inside it, near its end (an email's `@`). Default:
   * the pattern's longest match before a keyword, 0 before the locator's match.
   */
  lead?: number;
  /**
   * How far from its nearest keyword a match may lie, in characters, when the keyword is not part
   * of the match (a label that `check` reads on the line before the value). Default 0: every match
   * holds one of the keywords.
   */
  near?: number;
  /**
   * What every match holds right after one of its keywords: a sticky expression tried at each hit's
   * end, and a hit it fails opens no window. For a rule whose keywords code is full of (`name`,
   * `token`) while its matches need a `:` or `=` after them. Only with `near` 0: the keyword lies
   * in the match.
   */
  follows?: RegExp;
  /**
   * A second look at a match: false drops it (a placeholder, a failed checksum), a number replaces
   * the confidence. Absent: every match stands.
   */
  check?(value: string, context: Context): boolean | number;
  /**
   * For a rule whose value may be another value encoded (a Kubernetes Secret's `data:` holds each
   * in base64): the text the value encodes, or undefined. Every rule then reads that text where the
   * value stood (after the same name, on the same line), and the surest secret found in it names
   * the match: its rule, type and confidence, at the encoded value's place.
   */
  decodes?(value: string): string | undefined;
  /** With `decodes`: a match stands only when what it encodes holds a secret that names it. */
  decodedOnly?: boolean;
}

export interface Finding {
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units of the line, where the value starts. */
  column: number;
  category: Category;
  type: string;
  rule: string;
  confidence: number;
  /** A keyed hash of the rule's type and the value: the same value is the same fingerprint, across files and scans. */
  fingerprint: string;
  /** The value masked: enough to recognise it, never enough to use it. */
  preview: string;
}

/** A finding before it is described: where the value lies in the text. */
export interface Match {
  rule: DetectionRule;
  /** Offsets of the value in the text, in UTF-16 code units. */
  start: number;
  end: number;
  confidence: number;
  /**
   * The secret the value encodes, when a rule found one in it (see `decodes`): all of what it
   * encodes, or the part that is the secret (a connection string's password).
   */
  decoded?: string;
}

/**
 * A reader of a whole table (a CSV file's labelled columns, say): what one line cannot tell, the
 * file's header can.
 */
export interface TableReader {
  applies(file: string): boolean;
  /** Matches in a text whose first line is the table's header. */
  matches(text: string, file: string): Match[];
}

export interface Detector {
  /**
   * Every match in `text`, the best per overlapping span, in text order. `header` is the file's
   * first line when `text` is a later piece of it, for the table readers. `utf8`, when given, is
   * `text`'s own UTF-8 (valid, no byte order mark): the keyword search reads it instead of
   * encoding the text again.
   */
  matches(text: string, file?: string, header?: string, utf8?: Uint8Array): Match[];
}

/**
 * Where a rule runs: its matches start around each hit of one of its keywords, from `before`
 * characters before the hit's end to `after` characters after it, and its pattern reads at most
 * `reads` characters past the start of a match. A rule without keywords runs on the whole text.
 */
interface Reach {
  before: number;
  after: number;
  reads: number;
  /** The most characters past a match's start its locator reads (0 without one). */
  locatorReads: number;
}

function reachOf(rule: DetectionRule): Reach {
  const extent = patternExtent(rule.pattern);
  const near = rule.near ?? 0;
  const longest = Math.max(0, ...rule.keywords.map((k) => k.length));
  // A match holding a keyword starts before the keyword's end, at most its own length (or its
  // lead) before the keyword; a match beside its keyword starts up to `near` further either way.
  return {
    before: longest + near + (rule.lead ?? extent.length),
    after: near,
    reads: extent.reads,
    locatorReads: rule.locator ? patternExtent(rule.locator).reads : 0,
  };
}

/** Builds a detector over `rules`: each rule's keywords index it, so a text runs only the rules it may match. */
export function detector(rules: readonly DetectionRule[], readers: readonly TableReader[] = []): Detector {
  const ids = new Set<string>();
  for (const rule of rules) {
    if (ids.has(rule.id)) throw new Error(`two detection rules are named ${rule.id}`);
    ids.add(rule.id);
    if (!rule.pattern.global) throw new Error(`detection rule ${rule.id}: its pattern needs the g flag`);
    if (rule.locator && !rule.locator.global)
      throw new Error(`detection rule ${rule.id}: its locator needs the g flag`);
    if (rule.follows && !rule.follows.sticky)
      throw new Error(`detection rule ${rule.id}: its follows needs the y flag`);
    if (rule.follows && (rule.near ?? 0) !== 0)
      throw new Error(
        `detection rule ${rule.id}: follows reads after the keyword, which near puts outside the match`,
      );
  }
  // A located rule's pattern is tried at one place at a time: a sticky copy of it.
  const sticky = rules.map((r) =>
    r.locator ? new RegExp(r.pattern.source, `${r.pattern.flags}y`) : undefined,
  );
  const reaches = rules.map(reachOf);
  const follows = rules.map((r) => r.follows);
  const byKeyword = new Map<string, number[]>();
  rules.forEach((rule, index) => {
    for (const keyword of rule.keywords) {
      // Keywords that read the same to the search (`:12` and `:34` are both `:00`) are one, or a
      // time of day in a log would be a hundred hits of the IPv6 rule's.
      const key = foldDigits(keyword.toLowerCase());
      const rulesOf = byKeyword.get(key) ?? [];
      if (!rulesOf.includes(index)) rulesOf.push(index);
      byKeyword.set(key, rulesOf);
    }
  });
  // One pass finds every keyword a text holds, and where, however many rules there are.
  const keywords = new KeywordSet([...byKeyword.keys()]);
  const keyed = keywords.keywords.map((k) => byKeyword.get(k)!);
  const matches: Detector['matches'] = (text, file = '', header, utf8) => {
    const windows = windowsOf(text, keywords.hits(text, utf8), keyed, reaches, rules, follows);
    const found: Match[] = [];
    // In the rules' own order: of two equally good matches the rule listed first wins, always.
    rules.forEach((rule, index) => {
      const spans = windows[index];
      if (rule.files && !rule.files.test(file)) return;
      if (spans) runRule(rule, sticky[index], text, spans, reaches[index]!, file, found);
    });
    for (const reader of readers) {
      if (!reader.applies(file)) continue;
      if (header === undefined) found.push(...reader.matches(text, file));
      else {
        // A later piece: read with the header before it, offsets moved back into the piece.
        const shift = header.length + 1;
        for (const m of reader.matches(`${header}\n${text}`, file)) {
          if (m.start >= shift) found.push({ ...m, start: m.start - shift, end: m.end - shift });
        }
      }
    }
    if (!found.some((m) => m.rule.decodes)) return bestPerSpan(found);
    return bestPerSpan(found.flatMap((m) => (m.rule.decodes ? (named(m, text, file, matches) ?? []) : m)));
  };
  return { matches };
}

/** Longest name kept before a decoded value, as its line gives it: a contextual rule reads the name. */
const NAME_BEFORE_DECODED = 200;

/**
 * `match` named by the surest secret its value encodes: the decoded text is read after what stood
 * before the value on its line (`TWILIO_AUTH_TOKEN: `), so a rule that needs the name finds it too.
 * Without one, `match` as it was, or nothing for a rule that only finds encoded values.
 */
function named(match: Match, text: string, file: string, detect: Detector['matches']): Match | undefined {
  const decoded = match.rule.decodes!(text.slice(match.start, match.end));
  const unnamed = match.rule.decodedOnly ? undefined : match;
  if (decoded === undefined) return unnamed;
  const before = textBefore(text, match.start, NAME_BEFORE_DECODED);
  let inner: Match | undefined;
  for (const m of detect(`${before}${decoded}`, file)) {
    if (m.rule === match.rule || m.rule.category !== 'secret' || m.start < before.length) continue;
    if (!inner || m.confidence > inner.confidence) inner = m;
  }
  if (!inner) return unnamed;
  const secret = decoded.slice(inner.start - before.length, inner.end - before.length);
  return { ...match, rule: inner.rule, confidence: inner.confidence, decoded: secret };
}

/** Windows closer than this are searched as one. */
const WINDOW_GAP = 256;

/**
 * Per rule, the stretches of `text` where it may match, as [start, end) pairs in text order,
 * overlapping ones merged: around its keywords' hits, or the whole text for a rule without
 * keywords. A rule whose keywords the text lacks has none.
 */
function windowsOf(
  text: string,
  hits: KeywordHits,
  keyed: readonly (readonly number[])[],
  reaches: readonly Reach[],
  rules: readonly DetectionRule[],
  follows: readonly (RegExp | undefined)[],
): (number[] | undefined)[] {
  const windows: (number[] | undefined)[] = rules.map((rule) =>
    rule.keywords.length === 0 ? [0, text.length] : undefined,
  );
  for (let h = 0; h < hits.count; h++) {
    const end = hits.end[h]!;
    for (const index of keyed[hits.keyword[h]!]!) {
      const follow = follows[index];
      if (follow) {
        follow.lastIndex = end;
        if (!follow.test(text)) continue;
      }
      const reach = reaches[index]!;
      // Hits come in the order they end and `before` is the rule's own, so starts never go back.
      const from = Math.max(0, end - reach.before);
      const to = Math.min(text.length, end + reach.after);
      const spans = windows[index];
      if (!spans) windows[index] = [from, to];
      // Windows a few characters apart are joined: reading the gap costs less than another search.
      else if (from <= spans[spans.length - 1]! + WINDOW_GAP) {
        spans[spans.length - 1] = Math.max(to, spans[spans.length - 1]!);
      } else spans.push(from, to);
    }
  }
  return windows;
}

/**
 * Runs `rule` over its windows as a search of the whole text would, finding the same matches: each
 * search starts where the last match ended or at the window's start, whichever is later, and sees
 * all the text before (lookbehinds, `^` and `\b` read it as they would), but only `reads`
 * characters past the window, which is all a match starting inside can look at. A match starts
 * inside some window (every match lies near a keyword), so the searches skip no match.
 */
function runRule(
  rule: DetectionRule,
  sticky: RegExp | undefined,
  text: string,
  spans: readonly number[],
  { reads, locatorReads }: Reach,
  file: string,
  found: Match[],
): void {
  const { pattern, locator } = rule;
  let resume = 0;
  for (let w = 0; w < spans.length; w += 2) {
    const from = spans[w]!;
    const to = spans[w + 1]!;
    if (resume >= to) continue;
    // `slice` shares the text's characters, it does not copy them; one more character for a `\b`
    // or `$` at a match's end.
    const limit = to + reads + 1;
    const subject = limit >= text.length ? text : text.slice(0, limit);
    if (locator && sticky) {
      // Every match of the pattern starts at most `lead` characters before a place the locator
      // matches: those places are tried in order (the locator's matches found overlapping too), and
      // the first where the pattern holds is its next match.
      const lead = rule.lead ?? 0;
      // The locator's own search ends where its last useful match (one starting before
      // `to + lead`) could end: searching on to the pattern's reach read every window's tail
      // again for nothing.
      const located = Math.min(text.length, to + lead + locatorReads + 1);
      const places = located >= subject.length ? subject : subject.slice(0, located);
      let untried = Math.max(from, resume);
      locator.lastIndex = untried;
      for (let at = locator.exec(places); at !== null && at.index - lead < to; at = locator.exec(places)) {
        const last = Math.min(at.index, to - 1);
        for (let p = Math.max(untried, at.index - lead); p <= last;) {
          sticky.lastIndex = p;
          const m = sticky.exec(subject);
          if (m === null || m[0].length === 0) {
            p++;
            continue;
          }
          resume = sticky.lastIndex;
          accept(rule, text, m, file, found);
          p = resume;
        }
        untried = Math.max(last + 1, resume);
        locator.lastIndex = Math.max(at.index + 1, resume);
      }
      continue;
    }
    pattern.lastIndex = Math.max(from, resume);
    for (let m = pattern.exec(subject); m !== null && m.index < to; m = pattern.exec(subject)) {
      // An empty match moves the search on by one, as matchAll does.
      if (m[0].length === 0) pattern.lastIndex++;
      resume = pattern.lastIndex;
      accept(rule, text, m, file, found);
    }
  }
  pattern.lastIndex = 0;
}

/** A match of `rule`'s pattern, after its `check`: added to `found` unless the check drops it. */
function accept(rule: DetectionRule, text: string, m: RegExpExecArray, file: string, found: Match[]): void {
  const value = m.groups?.value ?? m[0];
  if (!value) return;
  const start = m.index + (m.groups?.value === undefined ? 0 : m[0].indexOf(value));
  const end = start + value.length;
  let confidence = rule.confidence;
  if (rule.check) {
    // The line is cut out only for a check that reads it: a long minified line is not copied
    // once per match.
    const verdict = rule.check(value, {
      get line() {
        return lineAt(text, start);
      },
      before: (chars = LINE_WINDOW) => textBefore(text, start, Math.min(chars, LINE_WINDOW)),
      get lineBefore() {
        // The break that ends the line before is looked for within the window, as `before` looks:
        // a long line is not walked back over for every match.
        const from = Math.max(0, start - LINE_WINDOW);
        const found = text.slice(from, start).lastIndexOf('\n');
        if (found === -1 || from + found === 0) return '';
        const end = from + found;
        return textBefore(text, end, Math.min(end, LINE_WINDOW)).replace(/\r$/, '');
      },
      file,
    });
    if (verdict === false) return;
    if (typeof verdict === 'number') confidence = verdict;
  }
  found.push({ rule, start, end, confidence });
}

/**
 * Of matches that overlap, the most confident stays (ties: the longer, then the more specific
 * rule). The kept spans never overlap, so they stay sorted by start and a candidate is checked
 * against its two neighbours only: n log n, however many matches a text has.
 */
function bestPerSpan(found: Match[]): Match[] {
  const ranked = [...found].sort(
    (a, b) =>
      b.confidence - a.confidence ||
      b.end - b.start - (a.end - a.start) ||
      b.rule.keywords.length - a.rule.keywords.length,
  );
  const kept: Match[] = [];
  for (const match of ranked) {
    let low = 0;
    let high = kept.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (kept[mid]!.start < match.start) low = mid + 1;
      else high = mid;
    }
    const before = kept[low - 1];
    const after = kept[low];
    if ((before && before.end > match.start) || (after && after.start < match.end)) continue;
    kept.splice(low, 0, match);
  }
  return kept;
}

/**
 * The line around `offset`, at most LINE_WINDOW characters on each side: a check reads the words
 * near its value, and on a minified line megabytes long a whole line per match made the scan
 * quadratic in the line's length (a 17 MB bundle took 12 s).
 */
export const LINE_WINDOW = 4096;

/**
 * A place right after a string's escape (`\n`, `\t`, `\u00e9`): in `"line1\nghp_…"` the `n` is
 * the escape's, not a letter of a word the token would be part of. A rule that wants no word
 * character before its value accepts this place too (`notAfter`), in JSON, YAML and code alike.
 */
const AFTER_ESCAPE = String.raw`(?<=\\(?:[nrtbf]|u[0-9A-Fa-f]{4}))`;

/** Expression source: no character of the class `chars` right before, unless it ends an escape. */
export const notAfter = (chars: string) => `(?:(?<![${chars}])|${AFTER_ESCAPE})`;

function lineAt(text: string, offset: number): string {
  // Both searches stay inside the window, or each would walk the whole of a long line.
  const floor = Math.max(0, offset - LINE_WINDOW);
  const ceiling = Math.min(text.length, offset + LINE_WINDOW);
  const before = text.slice(floor, offset).lastIndexOf('\n');
  const after = text.slice(offset, ceiling).indexOf('\n');
  return text.slice(before === -1 ? floor : floor + before + 1, after === -1 ? ceiling : offset + after);
}

/** Up to `chars` characters before `offset`, on its line. */
function textBefore(text: string, offset: number, chars: number): string {
  // Within the window only: on a long minified line a search back to the line's start would
  // walk all of it for every match.
  const window = text.slice(Math.max(0, offset - chars), offset);
  return window.slice(window.lastIndexOf('\n') + 1);
}

/**
 * The value masked for a report. A secret shows the first `shows` characters when its rule says
 * they are a documented prefix that names the kind (`ghp_`; at most 4, and never more than a
 * quarter of it), the rest as `*`, and its length. Personal data shows its shape only: its first
 * character, every other letter, mark and digit of any script as `*`, punctuation and spaces kept
 * (`j***@*******.***`, `И*** ******`).
 */
export function preview(value: string, category: Category, shows = 0): string {
  if (category === 'pii') return value.replace(/[\p{L}\p{M}\p{N}]/gu, (c, i: number) => (i === 0 ? c : '*'));
  const shown = Math.min(shows, 4, Math.floor(value.length / 4));
  return `${value.slice(0, shown)}${'*'.repeat(Math.min(12, value.length - shown))} (${value.length} chars)`;
}

/** Turns matches into findings: line and column, preview, and the caller's keyed fingerprint. */
export function describe(
  text: string,
  matches: readonly Match[],
  fingerprint: (type: string, value: string) => string,
): Finding[] {
  const findings: Finding[] = [];
  // Most texts have no match: a minified one would be searched whole for its first line break.
  if (matches.length === 0) return findings;
  let line = 1;
  let lineStart = 0;
  /** The first line break at or after `lineStart`, or -1: found by indexOf, not a character at a time. */
  let nextBreak = text.indexOf('\n');
  for (const match of matches) {
    while (nextBreak !== -1 && nextBreak < match.start) {
      line++;
      lineStart = nextBreak + 1;
      nextBreak = text.indexOf('\n', lineStart);
    }
    const value = text.slice(match.start, match.end);
    findings.push({
      line,
      column: match.start - lineStart + 1,
      category: match.rule.category,
      type: match.rule.type,
      rule: match.rule.id,
      confidence: Math.round(match.confidence * 100) / 100,
      fingerprint: fingerprint(match.rule.type, value),
      // An encoded value's first characters are no prefix of the kind: it shows only its length.
      preview: preview(value, match.rule.category, match.decoded === undefined ? match.rule.shows : 0),
    });
  }
  return findings;
}

/**
 * How far a match of `pattern` can reach: `length`, the most UTF-16 units a match can span, and
 * `reads`, the most units after a match's start that deciding it can look at (lookaheads included).
 * Infinity where a repetition is unbounded. Lookbehinds read before the start and count for neither.
 */
export function patternExtent(pattern: RegExp): { length: number; reads: number } {
  const source = pattern.source;
  const unit = pattern.unicode || pattern.unicodeSets ? 2 : 1;
  const groups = new Map<string, number>();
  let groupCount = 0;
  let at = 0;

  interface Extent {
    length: number;
    reads: number;
  }
  const seq = (a: Extent, b: Extent): Extent => ({
    length: a.length + b.length,
    reads: Math.max(a.reads, a.length + b.reads),
  });
  const repeat = (e: Extent, times: number): Extent =>
    times === 0
      ? { length: 0, reads: 0 }
      : times === 1
        ? e
        : { length: e.length * times, reads: e.length * (times - 1) + e.reads };

  function alternation(): Extent {
    let best = sequence();
    while (source[at] === '|') {
      at++;
      const next = sequence();
      best = { length: Math.max(best.length, next.length), reads: Math.max(best.reads, next.reads) };
    }
    return best;
  }
  function sequence(): Extent {
    let total: Extent = { length: 0, reads: 0 };
    while (at < source.length && source[at] !== '|' && source[at] !== ')') {
      total = seq(total, quantified(atom()));
    }
    return total;
  }
  function quantified(e: Extent): Extent {
    const c = source[at];
    let max: number | undefined;
    if (c === '*' || c === '+') {
      at++;
      max = Infinity;
    } else if (c === '?') {
      at++;
      max = 1;
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at));
      if (m) {
        at += m[0].length;
        max = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]);
      }
    }
    if (max === undefined) return e;
    if (source[at] === '?') at++;
    if (max === Infinity) return e.length === 0 && e.reads === 0 ? e : { length: Infinity, reads: Infinity };
    if (max === 0) return { length: 0, reads: 0 };
    return repeat(e, max);
  }
  function atom(): Extent {
    const c = source[at]!;
    if (c === '(') {
      at++;
      let kind: 'group' | 'ahead' | 'behind' = 'group';
      let name: string | undefined;
      if (source[at] === '?') {
        const rest = source.slice(at);
        const m = /^\?(?:<([A-Za-z_$][\w$]*)>|(<?[=!])|([a-z-]*:))/.exec(rest)!;
        at += m[0].length;
        if (m[1]) {
          name = m[1];
          groupCount++;
        } else if (m[2]) kind = m[2].startsWith('<') ? 'behind' : 'ahead';
      } else groupCount++;
      const number =
        kind === 'group' && (name !== undefined || source[at - 1] === '(') ? groupCount : undefined;
      const inner = alternation();
      at++; // ')'
      if (kind === 'behind') return { length: 0, reads: 0 };
      if (kind === 'ahead') return { length: 0, reads: inner.reads };
      if (number !== undefined) groups.set(String(number), inner.length);
      if (name !== undefined) groups.set(name, inner.length);
      return inner;
    }
    if (c === '[') {
      at++;
      if (source[at] === '^') at++;
      if (source[at] === ']') at++;
      while (source[at] !== ']') at += source[at] === '\\' ? 2 : 1;
      at++;
      return { length: unit, reads: unit };
    }
    if (c === '\\') {
      const e = source[at + 1]!;
      at += 2;
      if (e === 'b' || e === 'B') return { length: 0, reads: 0 };
      if (/[1-9]/.test(e)) {
        let digits = e;
        while (/\d/.test(source[at] ?? '')) digits += source[at++];
        const length = groups.get(digits) ?? Infinity;
        return { length, reads: length };
      }
      if (e === 'k' && source[at] === '<') {
        const close = source.indexOf('>', at);
        const length = groups.get(source.slice(at + 1, close)) ?? Infinity;
        at = close + 1;
        return { length, reads: length };
      }
      if ((e === 'p' || e === 'P') && source[at] === '{') at = source.indexOf('}', at) + 1;
      else if (e === 'u' && source[at] === '{') at = source.indexOf('}', at) + 1;
      else if (e === 'u') at += 4;
      else if (e === 'x') at += 2;
      else if (e === 'c') at += 1;
      return { length: unit, reads: unit };
    }
    at++;
    if (c === '^' || c === '$') return { length: 0, reads: 0 };
    return { length: unit, reads: unit };
  }
  const whole = alternation();
  return whole;
}
