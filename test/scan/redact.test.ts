// Clean copies (src/scan/redact.ts): generated JSON, CSV, YAML and .env documents holding generated
// secrets and personal data stay valid, parse to the same shape, keep their line count and hold
// none of the values; equal values get equal tokens across files. Then the cases one by one:
// escapes, bare literals, flow collections, block scalars, multi-line values, overlapping matches.
import { parseEnv } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { parseCsv } from '../../src/backend/csv.ts';
import { detector, type DetectionRule, type Match } from '../../src/scan/detect.ts';
import { luhnValid } from '../../src/scan/pii/cards.ts';
import { randomBytes } from 'node:crypto';
import { formatOf, redactText, tokenBody, TokenAllocator } from '../../src/scan/redact.ts';
import { DETECTION_RULES, TABLE_READERS } from '../../src/scan/rules.ts';

const find = detector(DETECTION_RULES, TABLE_READERS);

/** Redacts one text with the scanner's rules, as a clean copy of `file` would be. */
function clean(text: string, file: string, tokens = new TokenAllocator()): string {
  return redactText(text, file, find.matches(text, file), tokens).text;
}

const lines = (text: string) => text.split('\n').length;

// ---------------------------------------------------------------------------------------------
// Generated values: each one a value the scanner finds where it stands alone on a line, built at
// test time (the repository holds no credential-looking literal).

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

const chars = (alphabet: string, length: number) =>
  fc
    .array(fc.constantFrom(...alphabet), { minLength: length, maxLength: length })
    .map((list) => list.join(''));

/** Whether the scanner finds exactly `value` as a value of `type` on a line of its own. */
const foundAs = (type: string, value: string, line = value) =>
  find.matches(line).some((m) => m.rule.type === type && line.slice(m.start, m.end) === value);

const email = fc
  .tuple(
    fc.stringMatching(/^[a-z]{3,8}$/),
    fc.stringMatching(/^[a-z]{3,8}$/),
    fc.stringMatching(/^[a-z]{4,9}$/),
    fc.constantFrom('io', 'de', 'fm', 'net', 'org'),
  )
  .map(([first, last, host, tld]) => `${first}.${last}@${host}-mail.${tld}`)
  .filter((value) => foundAs('EMAIL', value));

const awsKey = chars(BASE32, 16)
  .map((body) => `AKIA${body}`)
  .filter((value) => foundAs('AWS_ACCESS_KEY', value));

/** A Visa number: 16 digits, its Luhn check digit last. */
const cardNumber = chars('0123456789', 14)
  .map((body) => {
    const partial = `4${body}`;
    for (let d = 0; d < 10; d++) if (luhnValid(`${partial}${d}`)) return `${partial}${d}`;
    throw new Error('a Luhn check digit always exists');
  })
  .filter((value) => new Set(value).size > 4 && foundAs('CARD_NUMBER', value));

const privateKey = fc
  .tuple(chars(BASE64, 64), chars(BASE64, 64), chars(BASE64, 40))
  .map(([a, b, c]) => `-----BEGIN RSA PRIVATE KEY-----\n${a}\n${b}\n${c}==\n-----END RSA PRIVATE KEY-----`)
  .filter((value) => foundAs('PRIVATE_KEY', value));

/** One value to plant, with the form it takes where a format can hold a number. */
interface Planted {
  value: string;
  /** A card number may stand in JSON and YAML as a bare number. */
  asNumber: boolean;
  multiline: boolean;
}

const planted: fc.Arbitrary<Planted> = fc.oneof(
  email.map((value) => ({ value, asNumber: false, multiline: false })),
  awsKey.map((value) => ({ value, asNumber: false, multiline: false })),
  fc.tuple(cardNumber, fc.boolean()).map(([value, asNumber]) => ({ value, asNumber, multiline: false })),
  privateKey.map((value) => ({ value, asNumber: false, multiline: true })),
);

const plainWord = fc.stringMatching(/^[a-z]{2,9}$/);
/** Words holding what each format must quote or escape: quotes, backslashes, delimiters, YAML indicators. */
const PUNCTUATED = [
  "it's",
  'say "hi"',
  'a,b',
  'x: y',
  '#tag',
  'a #b',
  'back\\slash',
  '- dash',
  '[x]',
  '{y}',
  '&amp',
  '*star',
  '!bang',
  '%pc',
  '@at',
  '`tick`',
  '? q',
  '|pipe',
  '>gt',
];
const anyWord = fc.oneof(
  { weight: 3, arbitrary: plainWord },
  { weight: 1, arbitrary: fc.constantFrom(...PUNCTUATED) },
);

/** A cell: a word, a number, a planted value alone, or a planted value inside a sentence. */
type Cell =
  | { kind: 'word'; text: string }
  | { kind: 'number'; value: number }
  | { kind: 'value'; planted: Planted }
  | { kind: 'sentence'; before: string[]; planted: Planted; after: string[] };

const cellOf = (word: fc.Arbitrary<string>): fc.Arbitrary<Cell> =>
  fc.oneof(
    word.map((text) => ({ kind: 'word' as const, text })),
    fc.integer({ min: 0, max: 99_999 }).map((value) => ({ kind: 'number' as const, value })),
    planted.map((p) => ({ kind: 'value' as const, planted: p })),
    fc
      .tuple(
        fc.array(word, { maxLength: 12 }),
        planted.filter((p) => !p.multiline && !p.asNumber),
        fc.array(word, { maxLength: 12 }),
      )
      .map(([before, p, after]) => ({ kind: 'sentence' as const, before, planted: p, after })),
  );

const COLUMNS = ['alpha', 'beta', 'gamma', 'delta', 'notes', 'ref'];

/** A table: some of COLUMNS, and rows of cells under them. */
const tableOf = (word: fc.Arbitrary<string>) =>
  fc
    .tuple(
      fc.subarray(COLUMNS, { minLength: 1 }),
      fc.integer({ min: 1, max: 6 }),
      fc.array(cellOf(word), { minLength: 36, maxLength: 36 }),
    )
    .map(([columns, count, cells]) =>
      Array.from({ length: count }, (_, r) =>
        Object.fromEntries(columns.map((c, k) => [c, cells[(r * columns.length + k) % cells.length]!])),
      ),
    );
const table = tableOf(anyWord);
/** For .env, whose parsers know no escapes in quotes: words without quotes or backslashes. */
const plainTable = tableOf(plainWord);
type Table = Record<string, Cell>[];

const valueOf = (c: Cell): string | number => {
  switch (c.kind) {
    case 'word':
      return c.text;
    case 'number':
      return c.value;
    case 'value':
      return c.planted.asNumber ? Number(c.planted.value) : c.planted.value;
    case 'sentence':
      return [...c.before, c.planted.value, ...c.after].join(' ');
  }
};
const plantedIn = (rows: Table) =>
  rows.flatMap((row) =>
    Object.values(row).flatMap((c) => (c.kind === 'value' || c.kind === 'sentence' ? [c.planted] : [])),
  );
const plainRows = (rows: Table) =>
  rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, c]) => [k, valueOf(c)])));

// ---------------------------------------------------------------------------------------------
// Writers: a table in each format, in the ways people and libraries write it.

const toJson = (rows: Table, indent: number) => JSON.stringify({ rows: plainRows(rows) }, null, indent);

const YAML_STYLES = [
  {},
  { defaultStringType: 'QUOTE_DOUBLE' },
  { defaultStringType: 'QUOTE_SINGLE' },
  { collectionStyle: 'flow' },
  { lineWidth: 0 },
  { defaultStringType: 'BLOCK_LITERAL' },
] as const;
const toYaml = (rows: Table, style: (typeof YAML_STYLES)[number]) =>
  stringifyYaml({ rows: plainRows(rows) }, style);

/** RFC 4180: a cell is quoted when it must be, or when `quoteAll` says so. */
function toCsv(rows: Table, quoteAll: boolean): string {
  const columns = Object.keys(rows[0]!);
  const field = (value: string | number) => {
    const text = String(value);
    return quoteAll || /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [columns.join(','), ...rows.map((row) => columns.map((c) => field(valueOf(row[c]!))).join(','))]
    .map((line) => `${line}\n`)
    .join('');
}

/** `.env`: one variable per cell, unquoted where it can be, or always quoted one way. */
function toEnv(rows: Table, quoting: 'none' | 'double' | 'single'): string {
  const out: string[] = ['# generated'];
  rows.forEach((row, r) => {
    for (const [column, c] of Object.entries(row)) {
      const value = String(valueOf(c));
      const name = `${column.toUpperCase()}_${r}`;
      const plain = /^[^\s"'`#\\]*$/.test(value);
      if (quoting === 'single' || (quoting === 'none' && !plain && !value.includes("'")))
        out.push(`${name}='${value}'`);
      else if (quoting === 'double' || !plain) out.push(`${name}="${value}"`);
      else out.push(`${name}=${value}`);
    }
  });
  return `${out.join('\n')}\n`;
}

/** The shape of parsed data: its keys and lengths, every scalar the same. */
function shapeOf(data: unknown): unknown {
  if (Array.isArray(data)) return data.map(shapeOf);
  if (typeof data === 'object' && data !== null)
    return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, shapeOf(v)]));
  return 'scalar';
}

/** The planted values' visible forms: a multi-line key's every body line too. */
const formsOf = (p: Planted) =>
  p.multiline ? [p.value, ...p.value.split('\n').filter((l) => !l.startsWith('-----'))] : [p.value];

function expectNoValueLeft(copy: string, values: Planted[]) {
  for (const p of values) for (const form of formsOf(p)) expect(copy).not.toContain(form);
}

const RUNS = { numRuns: 80 };

describe('clean copies of generated documents', () => {
  it('JSON stays valid, keeps its shape and line count, and holds none of the values', () => {
    fc.assert(
      fc.property(table, fc.constantFrom(0, 2, 4), (rows, indent) => {
        const text = toJson(rows, indent);
        const copy = clean(text, 'data/records.json');
        expect(shapeOf(JSON.parse(copy))).toEqual(shapeOf(JSON.parse(text)));
        expect(lines(copy)).toBe(lines(text));
        expectNoValueLeft(copy, plantedIn(rows));
      }),
      RUNS,
    );
  });

  it('YAML in every style the yaml package writes stays valid, with the same shape and lines', () => {
    fc.assert(
      fc.property(table, fc.constantFrom(...YAML_STYLES), (rows, style) => {
        const text = toYaml(rows, style);
        const copy = clean(text, 'config/values.yaml');
        expect(shapeOf(parseYaml(copy))).toEqual(shapeOf(parseYaml(text)));
        expect(lines(copy)).toBe(lines(text));
        expectNoValueLeft(copy, plantedIn(rows));
      }),
      RUNS,
    );
  });

  it('CSV keeps its rows and columns, quoted or not, and its line count', () => {
    fc.assert(
      fc.property(table, fc.boolean(), (rows, quoteAll) => {
        const text = toCsv(rows, quoteAll);
        const copy = clean(text, 'exports/people.csv');
        const before = parseCsv(text);
        const after = parseCsv(copy);
        expect(after.length).toBe(before.length);
        expect(after.map((row) => Object.keys(row))).toEqual(before.map((row) => Object.keys(row)));
        expect(lines(copy)).toBe(lines(text));
        expectNoValueLeft(copy, plantedIn(rows));
      }),
      RUNS,
    );
  });

  it('.env keeps every variable, quoted or not, and its line count', () => {
    fc.assert(
      fc.property(
        plainTable,
        fc.constantFrom('none', 'double', 'single') as fc.Arbitrary<'none'>,
        (rows, q) => {
          const text = toEnv(rows, q);
          const copy = clean(text, '.env');
          expect(Object.keys(parseEnv(copy))).toEqual(Object.keys(parseEnv(text)));
          expect(lines(copy)).toBe(lines(text));
          expectNoValueLeft(copy, plantedIn(rows));
        },
      ),
      RUNS,
    );
  });

  it('gives a value the same token in every file of one copy, and different values different tokens', () => {
    const format = fc.constantFrom('json', 'yaml', 'csv', 'env');
    fc.assert(
      fc.property(
        plainTable,
        plainTable,
        planted.filter((p) => !p.multiline),
        planted.filter((p) => !p.multiline),
        format,
        format,
        (a, b, shared, other, formatA, formatB) => {
          fc.pre(shared.value !== other.value);
          // The shared value in a column of its own in both files, the other value in one of them.
          const tokens = new TokenAllocator();
          const first = a.map((row, r) => ({
            ...row,
            shared: { kind: 'value', planted: shared } as Cell,
            ...(r === 0 ? { other: { kind: 'value', planted: other } as Cell } : {}),
          }));
          const second = b.map((row) => ({ ...row, shared: { kind: 'value', planted: shared } as Cell }));
          const tokenA = sharedToken(first, formatA, tokens);
          const tokenB = sharedToken(second, formatB, tokens);
          expect(tokenA).toMatch(/^\[(EMAIL|AWS_ACCESS_KEY|CARD_NUMBER)_\d+\]$/);
          expect(tokenB).toBe(tokenA);
          expect(tokens.mapping().get(String(tokenA))).toBe(shared.value);
          const otherToken = [...tokens.mapping()].find(([, v]) => v === other.value)?.[0];
          expect(otherToken).toBeDefined();
          expect(otherToken).not.toBe(tokenA);
        },
      ),
      { numRuns: 40 },
    );
  });
});

/** Writes `rows` in `format`, cleans it with `tokens`, and reads back what the first row's `shared` became. */
function sharedToken(rows: Table, format: string, tokens: TokenAllocator): unknown {
  // Every row of a CSV has the same columns: the first row's `other` is added to all.
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const full = rows.map((row) =>
    Object.fromEntries(columns.map((c) => [c, row[c] ?? ({ kind: 'word', text: 'none' } as Cell)])),
  );
  switch (format) {
    case 'json':
      return JSON.parse(clean(toJson(full, 2), 'a.json', tokens)).rows[0].shared;
    case 'yaml':
      return parseYaml(clean(toYaml(full, {}), 'a.yaml', tokens)).rows[0].shared;
    case 'csv':
      return parseCsv(clean(toCsv(full, false), 'a.csv', tokens))[0]!.shared;
    default:
      return parseEnv(clean(toEnv(full, 'none'), '.env', tokens)).SHARED_0;
  }
}

// ---------------------------------------------------------------------------------------------
// The cases one by one, with a rule made for the test: it finds what lies between « and », or a
// marked word, so that each case puts a value exactly where it means to.

const rule = (type: string): DetectionRule => ({
  id: `test-${type.toLowerCase()}`,
  category: 'secret',
  type,
  keywords: [],
  pattern: /x/g,
  confidence: 0.9,
});
const SECRET = rule('SECRET');
const EMAIL = rule('EMAIL');

/** Matches of `values` in `text` (each at every place it occurs), as the detector would give them. */
function at(text: string, values: [string, DetectionRule][]): Match[] {
  const matches: Match[] = [];
  for (const [value, r] of values) {
    for (let i = text.indexOf(value); i !== -1; i = text.indexOf(value, i + value.length)) {
      matches.push({ rule: r, start: i, end: i + value.length, confidence: r.confidence });
    }
  }
  return matches;
}

const redact = (text: string, file: string, values: [string, DetectionRule][]) =>
  redactText(text, file, at(text, values), new TokenAllocator()).text;

describe('tokens', () => {
  it('numbers each type on its own and gives a value the same token again, whatever it was found as', () => {
    const tokens = new TokenAllocator();
    expect(tokens.tokenFor('EMAIL', 'a')).toBe('[EMAIL_1]');
    expect(tokens.tokenFor('EMAIL', 'b')).toBe('[EMAIL_2]');
    expect(tokens.tokenFor('AWS_ACCESS_KEY', 'c')).toBe('[AWS_ACCESS_KEY_1]');
    expect(tokens.tokenFor('EMAIL', 'a')).toBe('[EMAIL_1]');
    // The type it was first found as names it.
    expect(tokens.tokenFor('SECRET', 'c')).toBe('[AWS_ACCESS_KEY_1]');
    expect(tokens.tokensByType()).toEqual({ AWS_ACCESS_KEY: 1, EMAIL: 2 });
    expect([...tokens.mapping()]).toEqual([
      ['[EMAIL_1]', 'a'],
      ['[EMAIL_2]', 'b'],
      ['[AWS_ACCESS_KEY_1]', 'c'],
    ]);
  });

  it('skips the tokens a text already holds, bracketed or as a YAML name, numbering each type past them', () => {
    const tokens = new TokenAllocator();
    tokens.reserve('see [EMAIL_1] and [EMAIL_3], &IBAN_1 and *IBAN_2, but not x&IBAN_3 or [email_2]');
    expect(tokens.tokenFor('EMAIL', 'a')).toBe('[EMAIL_2]');
    expect(tokens.tokenFor('EMAIL', 'b')).toBe('[EMAIL_4]');
    expect(tokens.tokenFor('IBAN', 'c')).toBe('[IBAN_3]');
    expect(tokens.tokensByType()).toEqual({ EMAIL: 2, IBAN: 1 });
    // One text: its own token is kept as text, and its value gets the next.
    const email = 'ana.lopez@example.org';
    expect(redact(`[EMAIL_1] stands for ${email}\n`, 'notes.txt', [[email, EMAIL]])).toBe(
      '[EMAIL_1] stands for [EMAIL_2]\n',
    );
  });

  it('a password found by two rules, in a connection string and in an assignment, is one token', () => {
    const password = `Pw${randomBytes(12).toString('base64url')}!9`;
    const text = `DATABASE_URL=postgres://app:${password}@db.internal:5432/app\nDB_PASSWORD=${password}\n`;
    const types = new Set(find.matches(text, '.env').map((m) => m.rule.type));
    expect(types.size, [...types].join()).toBe(2);
    const copy = clean(text, '.env');
    expect(copy).not.toContain(password);
    expect(copy).toBe(
      'DATABASE_URL=postgres://app:[DATABASE_PASSWORD_1]@db.internal:5432/app\nDB_PASSWORD=[DATABASE_PASSWORD_1]\n',
    );
  });

  it('writes a type that is not a token name as one', () => {
    expect(new TokenAllocator().tokenFor('api-key', 'v')).toBe('[API_KEY_1]');
  });

  it.each([
    ['config/app.json', 'json'],
    ['logs/events.JSONL', 'json'],
    ['deploy/values.yml', 'yaml'],
    ['exports/people.csv', 'csv'],
    ['exports/people.tsv', 'tsv'],
    ['.env', 'env'],
    ['app/.env.local', 'env'],
    ['prod.env', 'env'],
    ['README.md', 'text'],
    ['src\\main.ts', 'text'],
  ])('reads %s as %s', (file, format) => {
    expect(formatOf(file)).toBe(format);
  });
});

describe('where a token goes', () => {
  it.each([
    // [case, file, text, values, clean text]
    [
      'JSON: inside a string, as it is',
      'a.json',
      '{"k": "pw=s3cr3t!"}',
      [['s3cr3t!', SECRET]],
      '{"k": "pw=[SECRET_1]"}',
    ],
    [
      'JSON: a bare number becomes a string',
      'a.json',
      '{"card": 4111, "n": 2}',
      [['4111', SECRET]],
      '{"card": "[SECRET_1]", "n": 2}',
    ],
    [
      'JSON: part of a bare literal quotes all of it',
      'a.json',
      '[12345678]',
      [['5678', SECRET]],
      '["1234[SECRET_1]"]',
    ],
    [
      'JSON: an escaped quote is never cut',
      'a.json',
      '{"k": "a\\"bc"}',
      [['"bc', SECRET]],
      '{"k": "a[SECRET_1]"}',
    ],
    [
      'JSON: a \\u escape is never cut',
      'a.json',
      '{"k": "x\\u0041yz"}',
      [['0041yz', SECRET]],
      '{"k": "x[SECRET_1]"}',
    ],
    [
      'JSON: a backslash at the end is taken whole',
      'a.json',
      '{"k": "ab\\\\"}',
      [['ab\\', SECRET]],
      '{"k": "[SECRET_1]"}',
    ],
    [
      'JSON: across two strings, the punctuation between is kept',
      'a.json',
      '{"a": "xy", "b": "zw"}',
      [['y", "b": "z', SECRET]],
      '{"a": "x[SECRET_1]", "[SECRET_1]": "[SECRET_1]w"}',
    ],
    [
      'JSON Lines: each line on its own',
      'a.jsonl',
      '{"e": 77}\n{"e": 77}\n',
      [['77', SECRET]],
      '{"e": "[SECRET_1]"}\n{"e": "[SECRET_1]"}\n',
    ],
    [
      'YAML: a plain scalar the token would start is quoted',
      'a.yaml',
      'k: secret99\n',
      [['secret99', SECRET]],
      "k: '[SECRET_1]'\n",
    ],
    [
      'YAML: inside a plain scalar the token stays bare',
      'a.yaml',
      'k: pw secret99 ok\n',
      [['secret99', SECRET]],
      'k: pw [SECRET_1] ok\n',
    ],
    [
      'YAML: quoting doubles the quotes already there',
      'a.yaml',
      "k: secret99 it's\n",
      [['secret99', SECRET]],
      "k: '[SECRET_1] it''s'\n",
    ],
    [
      'YAML: a comment stays a comment',
      'a.yaml',
      'k: v # secret99\n',
      [['secret99', SECRET]],
      'k: v # [SECRET_1]\n',
    ],
    [
      'YAML: in a flow sequence every token is quoted',
      'a.yaml',
      'l: [a, secret99, b secret99]\n',
      [['secret99', SECRET]],
      "l: [a, '[SECRET_1]', 'b [SECRET_1]']\n",
    ],
    [
      'YAML: in a flow mapping too',
      'a.yaml',
      '{k: secret99}\n',
      [['secret99', SECRET]],
      "{k: '[SECRET_1]'}\n",
    ],
    [
      'YAML: a double-quoted scalar keeps its escapes',
      'a.yaml',
      'k: "a\\"secret99"\n',
      [['"secret99', SECRET]],
      'k: "a[SECRET_1]"\n',
    ],
    [
      'YAML: a single-quoted scalar keeps its doubled quotes',
      'a.yaml',
      "k: 'a''secret99'\n",
      [["'secret99", SECRET]],
      "k: 'a[SECRET_1]'\n",
    ],
    [
      'YAML: a value where a tag, an anchor or an alias is takes a bare token, the same for the same value',
      'a.yaml',
      'password: !secret99x\nb: &secret99x v\nc: *secret99x\n',
      [['secret99x', SECRET]],
      'password: !SECRET_1\nb: &SECRET_1 v\nc: *SECRET_1\n',
    ],
    [
      'YAML: a directive line is text',
      'a.yaml',
      '%secret99 x\n---\nk: v\n',
      [['secret99', SECRET]],
      '%[SECRET_1] x\n---\nk: v\n',
    ],
    [
      'JSON5: a single-quoted string keeps its quotes and escapes',
      'a.json5',
      "{k: 'it\\'s secret99', n: 1}",
      [['secret99', SECRET]],
      "{k: 'it\\'s [SECRET_1]', n: 1}",
    ],
    [
      'YAML: a key is quoted like any plain scalar',
      'a.yaml',
      'secret99: 1\n',
      [['secret99', SECRET]],
      "'[SECRET_1]': 1\n",
    ],
    [
      'YAML: a sequence entry',
      'a.yaml',
      '- secret99\n- b\n',
      [['secret99', SECRET]],
      "- '[SECRET_1]'\n- b\n",
    ],
    [
      'YAML: a multi-line plain scalar is quoted whole',
      'a.yaml',
      'k: secret99 and\n  more\nz: 1\n',
      [['secret99', SECRET]],
      "k: '[SECRET_1] and\n  more'\nz: 1\n",
    ],
    [
      'YAML: a block scalar takes a token as it is',
      'a.yaml',
      'k: |\n  secret99\n  x\nz: secret99\n',
      [['secret99', SECRET]],
      "k: |\n  [SECRET_1]\n  x\nz: '[SECRET_1]'\n",
    ],
    ['CSV: an unquoted cell', 'a.csv', 'a,b\nx,secret99\n', [['secret99', SECRET]], 'a,b\nx,[SECRET_1]\n'],
    [
      'CSV: a doubled quote is never cut',
      'a.csv',
      'a,b\nx,"say ""secret99"""\n',
      [['"secret99', SECRET]],
      'a,b\nx,"say [SECRET_1]"""\n',
    ],
    [
      'CSV: across cells, the delimiter is kept',
      'a.csv',
      'a,b\nsec,ret\n',
      [['sec,ret', SECRET]],
      'a,b\n[SECRET_1],[SECRET_1]\n',
    ],
    ['TSV: tabs delimit', 'a.tsv', 'a\tb\nx\tsecret99\n', [['secret99', SECRET]], 'a\tb\nx\t[SECRET_1]\n'],
    ['.env: unquoted', '.env', 'A=secret99 # c\n', [['secret99', SECRET]], 'A=[SECRET_1] # c\n'],
    [
      '.env: double-quoted keeps its escapes',
      '.env',
      'A="x\\"secret99"\n',
      [['"secret99', SECRET]],
      'A="x[SECRET_1]"\n',
    ],
    [
      '.env: export and single quotes',
      '.env',
      "export A='secret99'\n",
      [['secret99', SECRET]],
      "export A='[SECRET_1]'\n",
    ],
    ['text: as it is', 'notes.txt', 'mail secret99 now', [['secret99', SECRET]], 'mail [SECRET_1] now'],
    [
      'two types, each numbered',
      'notes.txt',
      'a@b c@d a@b k1',
      [
        ['a@b', EMAIL],
        ['c@d', EMAIL],
        ['k1', SECRET],
      ],
      '[EMAIL_1] [EMAIL_2] [EMAIL_1] [SECRET_1]',
    ],
  ] as [string, string, string, [string, DetectionRule][], string][])(
    '%s',
    (_case, file, text, values, expected) => {
      expect(redact(text, file, values)).toBe(expected);
      expect(lines(expected)).toBe(lines(text));
    },
  );

  it('keeps a multi-line value as its token and lines holding only their indentation', () => {
    const key = 'BEGIN\n  abc\n  def\n  END';
    expect(redact(`k: |\n  ${key}\nz: 1\n`, 'a.yaml', [[key, SECRET]])).toBe(
      'k: |\n  [SECRET_1]\n  \n  \n  \nz: 1\n',
    );
    expect(redact(`A="${key}"\nB=1\n`, '.env', [[key, SECRET]])).toBe('A="[SECRET_1]\n  \n  \n  "\nB=1\n');
    expect(tokenBody('[T_1]', 'a\r\n b\r\n c')).toBe('[T_1]\r\n \r\n ');
  });

  it('merges overlapping matches into one value of the most confident type', () => {
    const text = 'x abcdef y';
    const matches: Match[] = [
      { rule: SECRET, start: 2, end: 6, confidence: 0.5 },
      { rule: EMAIL, start: 4, end: 8, confidence: 0.9 },
    ];
    const tokens = new TokenAllocator();
    expect(redactText(text, 'a.txt', matches, tokens)).toEqual({ text: 'x [EMAIL_1] y', replaced: 1 });
    expect(tokens.mapping().get('[EMAIL_1]')).toBe('abcdef');
  });

  it('ignores matches that are empty or outside the text', () => {
    const matches: Match[] = [
      { rule: SECRET, start: 3, end: 3, confidence: 0.9 },
      { rule: SECRET, start: 8, end: 20, confidence: 0.9 },
    ];
    expect(redactText('abcdefgh', 'a.txt', matches, new TokenAllocator()).text).toBe('abcdefgh');
    expect(redactText('abc', 'a.json', [], new TokenAllocator())).toEqual({ text: 'abc', replaced: 0 });
  });
});
