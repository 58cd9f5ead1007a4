// What every secret rule shares: the placeholder test, entropy, and the builders that turn a
// provider's documented format into a DetectionRule whose second look drops placeholders.
// Pure: no I/O and no `node:` imports.

import { notAfter, type Context, type DetectionRule } from '../detect.ts';

/** The shape of a secret rule before the shared second look is put in front of its own. */
export interface SecretFormat {
  id: string;
  type: string;
  keywords: readonly string[];
  files?: RegExp;
  pattern: RegExp;
  confidence: number;
  /** As DetectionRule's: where the pattern may match, found cheaply. */
  locator?: RegExp;
  lead?: number;
  near?: number;
  follows?: RegExp;
  shows?: number;
  check?(value: string, context: Context): boolean | number;
  decodes?(value: string): string | undefined;
  decodedOnly?: boolean;
}

/** Shannon entropy of a string, in bits per character. */
export function bitsPerChar(value: string): number {
  const counts = new Map<string, number>();
  for (const c of value) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * Words that mark a value as a stand-in written for a reader: documentation, templates, examples.
 * The AWS documentation's example keys (AKIAIOSFODNN7EXAMPLE and its secret) end in EXAMPLE/EXAMPLEKEY.
 */
const PLACEHOLDER_WORDS =
  /example|your[_-]?|placeholder|changeme|change[_-]me|redacted|dummy|sample|fake|replace[_-]?(?:me|with)|insert[_-]|here$|^here|todo|fixme|notreal|not[_-]a[_-]real|lorem|xxxx/gi;

/**
 * Marks of a template or of text left out: `***`, `...`, `<key>`, `${KEY}`, `{{key}}`, `$KEY`,
 * `%KEY%`, and whole values that are a templating tool's slot: `#{db_password}` (Octopus, Azure
 * DevOps, Ruby), `__DB_PASSWORD__` and `@@DB_PASSWORD@@` (token-replacement tasks), `{password}`
 * (a format string's field).
 */
const PLACEHOLDER_MARKS =
  /\*{3}|\.{3}|…|<[^>]*>|\$\{|\{\{|^\$[A-Za-z_]|^%[A-Za-z_]+%$|^#\{[^}]*\}$|^__\w+__$|^@@\w+@@$|^\{[A-Za-z_][\w.]*\}$/;

/**
 * Random characters spell short words by chance: `fAKE` or `TodO` turns up in about one token in
 * three thousand, and `fake` in about one RSA key in a hundred. So a word of fewer than six letters
 * counts only as a person writes it: in one case (`fake`, `FAKE`, `Fake`), and standing apart, at
 * an end of the value or next to what is not a letter or digit (`sk_live_your_key`), or starting a
 * word in camel case (`myFakeToken`). In a long value (a key block, whose base64 holds `+` and `/`
 * at random) only `_`, `-` and `.` set a word apart. Longer words, and `xxxx`, count anywhere.
 */
const RANDOM_HOLDS_WORDS = 64;

/** The same words, for the first look: most values hold none. */
const ANY_PLACEHOLDER_WORD = new RegExp(PLACEHOLDER_WORDS.source, 'i');

function placeholderWord(value: string): boolean {
  if (!ANY_PLACEHOLDER_WORD.test(value)) return false;
  const long = value.length > RANDOM_HOLDS_WORDS;
  const apart = (c: string | undefined) =>
    c === undefined || (long ? /[_.-]/.test(c) : !/[A-Za-z0-9]/.test(c));
  for (const hit of value.matchAll(PLACEHOLDER_WORDS)) {
    const word = hit[0];
    if (word.length >= 6 || /^x+$/i.test(word)) return true;
    const letters = word.replace(/[_-]/g, '');
    if (!/^(?:[a-z]+|[A-Z]+|[A-Z][a-z]+)$/.test(letters)) continue;
    const before = value[hit.index - 1];
    const after = value[hit.index + word.length];
    const starts = apart(before) || (!long && /^[A-Z]/.test(letters) && /[a-z0-9]/.test(before!));
    const ends =
      apart(after) ||
      /[_-]$/.test(word) ||
      (!long && (/[a-z]$/.test(letters) ? /[A-Z0-9]/.test(after!) : /[a-z0-9]/.test(after!)));
    if (starts && ends) return true;
  }
  return false;
}

/** Values that name where a secret comes from instead of being one. */
const REFERENCE =
  /^(?:process\.env|import\.meta\.env|os\.environ|os\.getenv|getenv|env\.|env\(|secrets\.|vault:|ENV\[|projects\/[^/]+\/secrets\/)/i;

/** Whole values that documentation and local setups use in place of a password. */
const STAND_INS = new Set([
  'password',
  'passwd',
  'pass',
  'secret',
  'token',
  'apikey',
  'api_key',
  'none',
  'null',
  'undefined',
  'true',
  'false',
  'admin',
  'root',
  'test',
  'guest',
  'user',
  'username',
]);

/**
 * A value that stands in for a secret rather than being one: a template reference (`${API_KEY}`,
 * `{{token}}`, `<key>`, `%KEY%`), a documented example, `xxxx` or `***`, `REDACTED`, one character
 * repeated over half the value, or a run of six or more consecutive characters (`abcdef`, `123456`).
 */
export function isPlaceholder(value: string): boolean {
  if (value.length === 0) return true;
  if (STAND_INS.has(value.toLowerCase())) return true;
  if (placeholderWord(value) || PLACEHOLDER_MARKS.test(value) || REFERENCE.test(value)) return true;
  if (longestRun(value) * 2 >= value.length) return true;
  return hasSequence(value, 6);
}

function longestRun(value: string): number {
  let best = 0;
  let run = 0;
  for (let i = 0; i < value.length; i++) {
    run = i > 0 && value[i] === value[i - 1] ? run + 1 : 1;
    if (run > best) best = run;
  }
  return best;
}

/** `length` characters in a row whose codes each rise (or each fall) by one: `abcdef`, `987654`. */
function hasSequence(value: string, length: number): boolean {
  let up = 1;
  let down = 1;
  for (let i = 1; i < value.length; i++) {
    const step = value.charCodeAt(i) - value.charCodeAt(i - 1);
    up = step === 1 ? up + 1 : 1;
    down = step === -1 ? down + 1 : 1;
    if (up >= length || down >= length) return true;
  }
  return false;
}

/** A path that reads as a test, a fixture or a mock: values there that say `test` are test values. */
export function isTestFile(file: string): boolean {
  return /(?:^|[\\/])(?:tests?|__tests__|__mocks__|spec|specs|fixtures?|testdata|mocks?)[\\/]|[._-](?:test|spec)\.[a-z]+$|(?:^|[\\/])test_[^\\/]*$/i.test(
    file,
  );
}

/** The shared second look, then the rule's own: placeholders and test values in test files are no finding. */
export function secretRule(format: SecretFormat): DetectionRule {
  const own = format.check;
  return {
    ...format,
    category: 'secret',
    check(value, context) {
      if (isPlaceholder(value)) return false;
      if (isTestFile(context.file) && /test/i.test(value)) return false;
      return own ? own(value, context) : true;
    },
  };
}

/** Characters that may not sit right before or after a token: it would be part of a longer word. */
const WORD = 'A-Za-z0-9_';

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

export interface TokenFormat {
  id: string;
  type: string;
  /** The documented prefix, matched as written (case matters). Its lowercase form is the keyword. */
  prefix: string;
  /** The expression source for what follows the prefix. */
  body: string;
  /** Default 0.95: a documented prefix and a fixed shape. */
  confidence?: number;
  /** Default: the prefix in lowercase. */
  keywords?: readonly string[];
  check?(value: string, context: Context): boolean | number;
}

/** A token that opens with a documented prefix: the whole token is the value. */
export function token(format: TokenFormat): DetectionRule {
  return secretRule({
    id: format.id,
    type: format.type,
    keywords: format.keywords ?? [format.prefix.toLowerCase()],
    pattern: new RegExp(`${notAfter(`${WORD}-`)}${escape(format.prefix)}${format.body}(?![${WORD}-])`, 'g'),
    // A match starts where its prefix, the keyword, does: the search runs from each keyword on,
    // not from as far before it as the longest token could reach, and only from a prefix its body
    // follows (most `pat` of code are `path` or `pattern`).
    ...(format.keywords ? {} : { lead: 0, follows: new RegExp(format.body, 'y') }),
    confidence: format.confidence ?? 0.95,
    // The prefix names the kind, and a report may show it.
    shows: format.prefix.length,
    ...(format.check ? { check: format.check } : {}),
  });
}

/**
 * Between a name and its value: `=`, `:`, `:=`, `=>`, with optional quotes and spaces, and the
 * bracket of a key set by subscript (`os.environ['API_KEY'] = '…'`, `ENV["TOKEN"] = …`).
 */
export const ASSIGN = `["']?\\]?\\s{0,40}(?::=|=>|=|:)\\s{0,40}["'\`]?`;

/**
 * Between a name and its value, wherever a name gives one: an assignment (ASSIGN), a call that sets
 * it (`os.Setenv("NAME", "value")`, `os.environ.setdefault("NAME", "value")`), a Dockerfile's older
 * `ENV NAME value`, the AWS command line's `aws configure set NAME value`, and a Kubernetes env
 * entry (`- name: NAME`, then `value: ...` on the next line).
 */
export const NAMED_VALUE = `(?:${ASSIGN}|["'][ \\t]{0,40},[ \\t]{0,40}["']|(?<=(?:^|\\n)[ \\t]{0,40}ENV[ \\t]{1,40}[\\w.-]+)[ \\t]{1,40}|(?<=\\baws[ \\t]{1,8}configure[ \\t]{1,8}set[ \\t]{1,8}[\\w.-]+)[ \\t]{1,8}|["']?[ \\t]{0,40}\\r?\\n[ \\t]{0,40}value:[ \\t]{0,40}["']?)`;

export interface ContextFormat {
  id: string;
  type: string;
  /**
   * Lowercase words, one of which starts the name the value is assigned to (`twilio` in
   * `TWILIO_AUTH_TOKEN`); they are the keywords too.
   */
  names: readonly string[];
  /** A word the rest of the name must hold (`token|secret`), or '' for any name. */
  secretWord?: string;
  /** The expression source for the value itself. */
  value: string;
  /** Default 0.7: the format alone would not say whose it is. */
  confidence?: number;
  check?(value: string, context: Context): boolean | number;
}

/**
 * Where a word of a camel-case name starts (`xFunctionsKey`, `prodAwsSecret`): an upper-case letter
 * after a lower-case one or a digit, told apart inside a pattern that ignores case by a group that
 * does not.
 */
const CAMEL_START = '(?-i:(?<=[a-z0-9])(?=[A-Z]))';

/**
 * A value whose format is not distinctive on its own (32 hex digits), found where a name that says
 * whose it is gets it: `TWILIO_AUTH_TOKEN=...`, `"datadog_api_key": "..."`,
 * `os.Setenv("TWILIO_AUTH_TOKEN", "...")`.
 */
export function contextual(format: ContextFormat): DetectionRule {
  // Names as each kind of file spells them: `line_channel` in a `.env`, `line.channel` in Java
  // properties, `line-channel` in YAML keys, `LineChannel` in code (the pattern ignores case). Joined
  // only where two words make a long enough name: `gh_` or `fb_` joined would be in every word.
  const joined = (n: string) => {
    const words = n.replaceAll('_', '');
    return /[a-z0-9]_[a-z0-9]/.test(n) && words.length >= 8 ? [words] : [];
  };
  const spellings = [
    ...new Set(
      format.names.flatMap((n) => [n, n.replaceAll('_', '.'), n.replaceAll('_', '-'), ...joined(n)]),
    ),
  ];
  const names = spellings.map(escape).join('|');
  const rest = format.secretWord ? `[\\w.-]{0,30}?(?:${format.secretWord})[\\w.-]{0,30}?` : '[\\w.-]{0,40}?';
  // After other words of a camel-case name, a name that does not say secret itself (`together`,
  // `travis`) must be followed by a word that does: `bundledTogetherHash` is a digest, not a key.
  const secretish = new RegExp(UUID_SECRET_WORDS);
  const sayingSecret = spellings.filter((n) => secretish.test(n)).map(escape);
  const saying = format.secretWord ? spellings.map(escape) : sayingSecret;
  const silent = format.secretWord ? [] : spellings.filter((n) => !secretish.test(n)).map(escape);
  const camel = [
    ...(saying.length > 0 ? [`(?:${saying.join('|')})${rest}`] : []),
    ...(silent.length > 0
      ? [`(?:${silent.join('|')})[\\w.-]{0,30}?(?:${UUID_SECRET_WORDS})[\\w.-]{0,30}?`]
      : []),
  ].join('|');
  return secretRule({
    id: format.id,
    type: format.type,
    keywords: spellings,
    pattern: new RegExp(
      `(?:${notAfter('A-Za-z0-9')}(?:${names})${rest}|${CAMEL_START}(?:${camel}))${NAMED_VALUE}(?<value>${format.value})(?![A-Za-z0-9_+/=-])`,
      'gi',
    ),
    // A match starts at its name, which starts with a keyword; the rest of the name and the
    // assignment follow the keyword.
    lead: 0,
    follows: new RegExp(`${rest}${NAMED_VALUE}`, 'iy'),
    confidence: format.confidence ?? 0.7,
    ...(format.check ? { check: format.check } : {}),
  });
}

/**
 * The words a name must hold when its value is a UUID: a service's project, app and account ids
 * are UUIDs too (`HEROKU_APP_ID`, `RAILWAY_PROJECT_ID`), and name no secret.
 */
export const UUID_SECRET_WORDS = 'key|token|secret|auth|pass';

/** A value needs at least this much entropy per character to read as generated. */
export function minBits(bits: number): (value: string) => boolean {
  return (value) => bitsPerChar(value) >= bits;
}
