// The detection core: rules as data, and one pass over a text that runs only the rules whose
// keywords the text holds. A finding carries where it is, what it is and how sure the rule is,
// a masked preview and a keyed fingerprint; never the value itself. Pure: no I/O and no `node:`
// imports (the fingerprint's keyed hash is given by the caller, which holds the key).
import { KeywordSet } from './keywords.ts';

export type Category = 'secret' | 'pii';

/** What a rule's `check` sees beside the value: the line it is on and the file's name. */
export interface Context {
  /** The whole line the value is on. */
  line: string;
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
   * Lowercase text that any match must have nearby: the rule runs only on a text holding one of
   * them (the prefilter). An empty list runs the rule on every text: keep such rules few and cheap.
   */
  keywords: readonly string[];
  /**
   * Global (`g`) expression. The value is the named group `value` when there is one, else the whole
   * match. Written from the provider's documented format; never copied from another scanner.
   */
  pattern: RegExp;
  /** How sure a match is, in [0, 1], before `check`. */
  confidence: number;
  /**
   * A second look at a match: false drops it (a placeholder, a failed checksum), a number replaces
   * the confidence. Absent: every match stands.
   */
  check?(value: string, context: Context): boolean | number;
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
   * first line when `text` is a later piece of it, for the table readers.
   */
  matches(text: string, file?: string, header?: string): Match[];
}

/** Builds a detector over `rules`: each rule's keywords index it, so a text runs only the rules it may match. */
export function detector(rules: readonly DetectionRule[], readers: readonly TableReader[] = []): Detector {
  const ids = new Set<string>();
  for (const rule of rules) {
    if (ids.has(rule.id)) throw new Error(`two detection rules are named ${rule.id}`);
    ids.add(rule.id);
    if (!rule.pattern.global) throw new Error(`detection rule ${rule.id}: its pattern needs the g flag`);
  }
  const always = rules.filter((r) => r.keywords.length === 0);
  const byKeyword = new Map<string, DetectionRule[]>();
  for (const rule of rules) {
    for (const keyword of rule.keywords) {
      const key = keyword.toLowerCase();
      byKeyword.set(key, [...(byKeyword.get(key) ?? []), rule]);
    }
  }
  // One pass finds every keyword a text holds, however many rules there are.
  const keywords = new KeywordSet([...byKeyword.keys()]);
  const keyed = keywords.keywords.map((k) => byKeyword.get(k)!);
  return {
    matches(text, file = '', header) {
      const chosen = new Set(always);
      for (const index of keywords.found(text.toLowerCase())) {
        for (const rule of keyed[index]!) chosen.add(rule);
      }
      const found: Match[] = [];
      // In the rules' own order: of two equally good matches the rule listed first wins, always.
      for (const rule of rules) {
        if (!chosen.has(rule)) continue;
        rule.pattern.lastIndex = 0;
        for (const m of text.matchAll(rule.pattern)) {
          const value = m.groups?.value ?? m[0];
          if (!value) continue;
          const start = m.index + (m.groups?.value === undefined ? 0 : m[0].indexOf(value));
          const end = start + value.length;
          let confidence = rule.confidence;
          if (rule.check) {
            // The line is cut out only for a check that reads it: a long minified line is not
            // copied once per match.
            const verdict = rule.check(value, {
              get line() {
                return lineAt(text, start);
              },
              file,
            });
            if (verdict === false) continue;
            if (typeof verdict === 'number') confidence = verdict;
          }
          found.push({ rule, start, end, confidence });
        }
      }
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
      return bestPerSpan(found);
    },
  };
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
const LINE_WINDOW = 4096;

function lineAt(text: string, offset: number): string {
  // Both searches stay inside the window, or each would walk the whole of a long line.
  const floor = Math.max(0, offset - LINE_WINDOW);
  const ceiling = Math.min(text.length, offset + LINE_WINDOW);
  const before = text.slice(floor, offset).lastIndexOf('\n');
  const after = text.slice(offset, ceiling).indexOf('\n');
  return text.slice(before === -1 ? floor : floor + before + 1, after === -1 ? ceiling : offset + after);
}

/**
 * The value masked for a report: its first characters when they name the kind (a documented
 * prefix such as `AKIA` or `ghp_`, at most 4, and never more than a quarter of it), the rest as
 * `*`, and its length. Personal data shows its shape only: its first character, every other letter
 * and digit as `*`, punctuation kept (`j***@*******.***`).
 */
export function preview(value: string, category: Category): string {
  if (category === 'pii') return value.replace(/[A-Za-z0-9]/g, (c, i: number) => (i === 0 ? c : '*'));
  const shown = Math.min(4, Math.floor(value.length / 4));
  return `${value.slice(0, shown)}${'*'.repeat(Math.min(12, value.length - shown))} (${value.length} chars)`;
}

/** Turns matches into findings: line and column, preview, and the caller's keyed fingerprint. */
export function describe(
  text: string,
  matches: readonly Match[],
  fingerprint: (type: string, value: string) => string,
): Finding[] {
  const findings: Finding[] = [];
  let line = 1;
  let lineStart = 0;
  let scanned = 0;
  for (const match of matches) {
    for (; scanned < match.start; scanned++) {
      if (text.charCodeAt(scanned) === 10) {
        line++;
        lineStart = scanned + 1;
      }
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
      preview: preview(value, match.rule.category),
    });
  }
  return findings;
}
