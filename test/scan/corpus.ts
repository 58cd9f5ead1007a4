// A synthetic corpus for measuring the scanner: realistic files (TypeScript, Python and Go sources,
// .env, shell, Kubernetes and CI YAML, JSON, INI, TOML, Java properties, Maven XML, key files, CSV
// customer exports, application logs, lock files, docs) written into a folder, with secrets and
// personal data planted at known places, and hard negatives that must not be found: placeholders,
// documented examples, test values in tests, hashes, identifiers, private addresses, example mail.
// Seeded: one seed writes the same files every time. Every value is generated when the corpus is
// written, from the formats alone: the repository holds no credential-looking literal.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import type { Category, Finding } from '../../src/scan/detect.ts';
import { SECRET_RULES } from '../../src/scan/secrets/index.ts';
import { ALPHABETS, SAMPLES, SAMPLE_FILES, sampleFiller, seeded } from './secret-samples.ts';

/** A value planted in the corpus: where it is (its first character to just after its last) and what it is. */
export interface Planted {
  file: string;
  /** 1-based line and column (UTF-16 code units) of its first character. */
  line: number;
  column: number;
  /** Line and column just after its last character. */
  endLine: number;
  endColumn: number;
  category: Category;
  /** The type a finding should carry: a secret rule's type, or a personal-data type. */
  type: string;
  /** For a secret: the rule whose documented format it was built from. */
  rule?: string;
  /** How it was written: `env`, `yaml`, `csv`, `log`, ... */
  form: string;
}

/** A hard negative: a value that looks like one and is not (recorded to name it when it is found). */
export interface Decoy {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  label: string;
}

export interface Corpus {
  files: string[];
  bytes: number;
  planted: Planted[];
  decoys: Decoy[];
}

// ---------------------------------------------------------------- building a file

interface Plant {
  plant: true;
  value: string;
  category: Category;
  type: string;
  rule?: string;
  form: string;
}
interface Lure {
  decoy: true;
  value: string;
  label: string;
}
type Piece = string | Plant | Lure;

const isPlant = (p: Piece): p is Plant => typeof p === 'object' && 'plant' in p;

/** A file's text, written piece by piece; planted values and decoys record where they land. */
class FileText {
  text = '';
  private line = 1;
  private column = 1;
  readonly planted: Planted[] = [];
  readonly decoys: Decoy[] = [];

  readonly file: string;

  constructor(file: string) {
    this.file = file;
  }

  add(...pieces: Piece[]): this {
    for (const piece of pieces) {
      const value = typeof piece === 'string' ? piece : piece.value;
      const start = { line: this.line, column: this.column };
      this.advance(value);
      if (typeof piece === 'string') continue;
      const at = { file: this.file, ...start, endLine: this.line, endColumn: this.column };
      if (isPlant(piece)) {
        this.planted.push({
          ...at,
          category: piece.category,
          type: piece.type,
          form: piece.form,
          ...(piece.rule ? { rule: piece.rule } : {}),
        });
      } else this.decoys.push({ ...at, label: piece.label });
    }
    return this;
  }

  /** One line: the pieces, then a line break. */
  ln(...pieces: Piece[]): this {
    return this.add(...pieces, '\n');
  }

  private advance(value: string): void {
    this.text += value;
    const last = value.lastIndexOf('\n');
    if (last === -1) {
      this.column += value.length;
      return;
    }
    for (let i = value.indexOf('\n'); i !== -1; i = value.indexOf('\n', i + 1)) this.line++;
    this.column = value.length - last;
  }
}

const decoy = (value: string, label: string): Lure => ({ decoy: true, value, label });

// ---------------------------------------------------------------- random values

/** Every random choice of the corpus, from one seed. */
class Dice {
  readonly next: () => number;
  readonly fill: (template: string) => string;
  readonly pick: (alphabet: string, count: number) => string;

  constructor(seed: number) {
    this.next = seeded(seed);
    const filler = sampleFiller(this.next);
    this.fill = filler.fill;
    this.pick = filler.pick;
  }

  int(low: number, high: number): number {
    return low + Math.floor(this.next() * (high - low + 1));
  }
  one<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  digits(n: number): string {
    return this.pick(ALPHABETS.d!, n);
  }
  hex(n: number): string {
    return this.pick(ALPHABETS.h!, n);
  }
  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
  }
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
}

// ---------------------------------------------------------------- personal data

const FIRST = [
  'Amara', 'Kenji', 'Sofia', 'Mateo', 'Aisha', 'Lukas', 'Priya', 'Oluwaseun', 'Ingrid', 'Tomasz',
  'Mei', 'Rafael', 'Chloé', 'Dmitri', 'Fatima', 'Jonas', 'Leilani', 'Arjun', 'Zoe', 'Emeka',
  'Hannah', 'Diego', 'Yuki', 'Nadia', 'Björn', 'Isabela', 'Kwame', 'Elif', 'Marta', 'Thabo',
  'Siobhan', 'Hiroshi', 'Valentina', 'Anders', 'Leila', 'Tobias', 'Ximena', 'Rohan', 'Agnieszka', 'Malik',
]; // prettier-ignore
const LAST = [
  'Okafor', 'Tanaka', 'Rossi', 'Fernández', 'Khan', 'Becker', 'Sharma', 'Adeyemi', 'Larsen', 'Kowalski',
  'Chen', 'Oliveira', 'Dubois', 'Volkov', 'Haddad', 'Schneider', 'Kahale', 'Patel', 'Nguyen', 'Eze',
  'Müller', 'Ramírez', 'Sato', 'Petrova', 'Lindqvist', 'Costa', 'Mensah', 'Yılmaz', 'Novak', 'Dlamini',
  "O'Brien", 'Smith-Jones', 'Moreau', 'Johansson', 'Castillo', 'Banerjee', 'Wójcik', 'Hoffmann', 'Achebe', 'Ito',
]; // prettier-ignore
const MAIL_DOMAINS = [
  'fastmail.fm', 'gmail.com', 'outlook.com', 'proton.me', 'web.de', 'orange.fr', 'icloud.com', 'gmx.net',
  'hotmail.co.uk', 'yahoo.co.jp', 'northwind-traders.io', 'kestrel-analytics.com', 'bluefjord.no', 'libero.it',
]; // prettier-ignore

/** A's letters without accents, lowercased, for a mailbox. */
const ascii = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ı/g, 'i')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();

interface Person {
  first: string;
  last: string;
  full: string;
  email: string;
}

/** The issued lengths and first digits of a few card networks (their published IIN ranges). */
const CARD_SHAPES: readonly { prefixes: readonly string[]; length: number }[] = [
  { prefixes: ['4'], length: 16 },
  { prefixes: ['51', '52', '53', '54', '55', '2221', '2300', '2500', '2720'], length: 16 },
  { prefixes: ['34', '37'], length: 15 },
  { prefixes: ['6011', '65'], length: 16 },
  { prefixes: ['3528', '3540', '3589'], length: 16 },
];

/** ISO/IEC 7812-1 annex B, written here apart from the scanner's so the corpus checks it. */
function luhnSum(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10;
}

/** BBAN shapes by country (ISO 13616 registry): `d` a digit, `L` an upper-case letter. */
const BBANS: Record<string, string> = {
  DE: 'd'.repeat(18),
  FR: 'd'.repeat(23),
  ES: 'd'.repeat(20),
  IT: 'L' + 'd'.repeat(22),
  NL: 'LLLL' + 'd'.repeat(10),
  GB: 'LLLL' + 'd'.repeat(14),
  BE: 'd'.repeat(12),
  AT: 'd'.repeat(16),
  CH: 'd'.repeat(17),
  PL: 'd'.repeat(24),
};

/** Mobile and geographic number shapes per country: the generator keeps those its plan holds. */
const PHONE_SHAPES: Record<string, readonly string[]> = {
  US: ['212', '312', '415', '503', '617', '646', '702', '713', '206', '305'].map((a) => `+1${a}NXXdddd`),
  GB: ['+447Mdddddddd', '+4420Ndddddddd'.replace('N', '3')],
  DE: ['+4915Mdddddddd', '+4917Mddddddd', '+4930ddddddd'],
  FR: ['+336dddddddd', '+337Mddddddd'],
  ES: ['+346dddddddd'],
  IT: ['+393Mdddddddd'],
  NL: ['+316dddddddd'],
  IN: ['+919ddddddddd'],
  AU: ['+614dddddddd'],
  BR: ['+55119dddddddd'],
  JP: ['+8190dddddddd'],
};

/** First octets of addresses assigned to networks that serve people (none is a special-purpose /8). */
const PUBLIC_FIRST_OCTETS = [23, 31, 37, 46, 51, 62, 77, 78, 81, 82, 85, 86, 88, 91, 93, 94, 95, 104, 109, 141, 145, 151, 176, 178, 185, 188, 193, 194, 195, 212, 213, 217]; // prettier-ignore
const PUBLIC_V6_PREFIXES = ['2a00', '2a01', '2a02', '2a03', '2a05', '2600', '2601', '2603', '2604', '2607', '2800', '2c0f', '2404', '2409']; // prettier-ignore
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']; // prettier-ignore

/** Personal data of people who do not exist, valid by each kind's own rules. */
class People {
  private readonly dice: Dice;

  constructor(dice: Dice) {
    this.dice = dice;
  }

  person(): Person {
    const first = this.dice.one(FIRST);
    const last = this.dice.one(LAST);
    const local = this.dice.one([
      `${ascii(first)}.${ascii(last)}`,
      `${ascii(first)[0]}${ascii(last)}`,
      `${ascii(first)}_${ascii(last)}${this.dice.int(1, 99)}`,
      `${ascii(last)}.${ascii(first)}`,
    ]);
    return { first, last, full: `${first} ${last}`, email: `${local}@${this.dice.one(MAIL_DOMAINS)}` };
  }

  /** A number its country's plan holds, outside fiction ranges, in E.164. */
  phone(country?: string): { country: string; e164: string; international: string; national: string } {
    for (;;) {
      const c = country ?? this.dice.one(Object.keys(PHONE_SHAPES));
      const shape = this.dice.one(PHONE_SHAPES[c]!);
      const e164 = shape.replace(/[dNMX]/g, (slot) =>
        slot === 'd' || slot === 'X' ? this.dice.digits(1) : String(this.dice.int(slot === 'N' ? 2 : 4, 9)),
      );
      // NANPA's 555 exchange and Ofcom's drama ranges are fiction, never a person's line.
      if (/^\+1\d{3}555/.test(e164) || /^\+44(?:7700900|20794)/.test(e164)) continue;
      const parsed = parsePhoneNumberFromString(e164);
      if (!parsed?.isValid()) continue;
      return {
        country: c,
        e164,
        international: parsed.formatInternational(),
        national: parsed.formatNational(),
      };
    }
  }

  card(): string {
    for (;;) {
      const shape = this.dice.one(CARD_SHAPES);
      const prefix = this.dice.one(shape.prefixes);
      const body = prefix + this.dice.digits(shape.length - prefix.length - 1);
      const check = (10 - luhnSum(body + '0')) % 10;
      const number = body + String(check);
      if (new Set(number).size >= 4) return number;
    }
  }

  /** A number of a card's length and first digits whose Luhn check fails: an order number, say. */
  notCard(): string {
    const number = this.card();
    const last = Number(number.slice(-1));
    return number.slice(0, -1) + String((last + 1 + this.dice.int(0, 7)) % 10);
  }

  iban(country = this.dice.one(Object.keys(BBANS))): string {
    const bban = BBANS[country]!.replace(/[dL]/g, (slot) =>
      slot === 'd' ? this.dice.digits(1) : this.dice.pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 1),
    );
    // ISO 7064 MOD 97-10: check digits make the rearranged number's remainder 1.
    const numeric = `${bban}${country}00`.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
    const check = 98 - Number(BigInt(numeric) % 97n);
    return `${country}${String(check).padStart(2, '0')}${bban}`;
  }

  ssn(): string {
    for (;;) {
      const area = this.dice.int(1, 899);
      if (area === 666) continue;
      const ssn = `${String(area).padStart(3, '0')}-${String(this.dice.int(1, 99)).padStart(2, '0')}-${String(this.dice.int(1, 9999)).padStart(4, '0')}`;
      if (!['078-05-1120', '219-09-9999', '123-45-6789'].includes(ssn)) return ssn;
    }
  }

  ipv4(): string {
    return [
      this.dice.one(PUBLIC_FIRST_OCTETS),
      this.dice.int(0, 255),
      this.dice.int(0, 255),
      this.dice.int(1, 254),
    ].join('.');
  }

  ipv6(): string {
    const group = () => this.dice.int(0x100, 0xffff).toString(16);
    const head = `${this.dice.one(PUBLIC_V6_PREFIXES)}:${group()}:${group()}`;
    return this.dice.chance(0.5)
      ? `${head}::${group()}`
      : `${head}:${group()}:${group()}:${group()}:${group()}:${group()}`;
  }

  birthDate(): { iso: string; written: string } {
    const year = this.dice.int(1941, 2006);
    const month = this.dice.int(1, 12);
    const day = this.dice.int(1, 28);
    const pad = (n: number) => String(n).padStart(2, '0');
    const iso = `${year}-${pad(month)}-${pad(day)}`;
    const written = this.dice.one([
      iso,
      `${pad(day)}/${pad(month)}/${year}`,
      `${pad(month)}/${pad(day)}/${year}`,
      `${day} ${MONTHS[month - 1]} ${year}`,
      `${MONTHS[month - 1]} ${day}, ${year}`,
      `${pad(day)}.${pad(month)}.${year}`,
      `${year}/${pad(month)}/${pad(day)}`,
    ]);
    return { iso, written };
  }
}

const pii = (value: string, type: string, form: string): Plant => ({
  plant: true,
  value,
  category: 'pii',
  type,
  form,
});

/** Card numbers as printed: in groups of four (American Express: 4-6-5). */
function grouped(card: string, separator: string): string {
  if (card.length === 15) return [card.slice(0, 4), card.slice(4, 10), card.slice(10)].join(separator);
  return card.replace(/(\d{4})(?=\d)/g, `$1${separator}`);
}

// ---------------------------------------------------------------- secrets

const RULE_TYPES = new Map(SECRET_RULES.map((r) => [r.id, r.type]));

/**
 * A secret as its sample writes it: a name and a value (`GITHUB_TOKEN=ghp_...`, `token: ...`), a
 * line that only reads well as written (`curl -H ...`, `<password>...`), or a block (a PEM key).
 */
type Shape =
  | { kind: 'pair'; name: string; value: string }
  | { kind: 'line'; text: string }
  | { kind: 'block'; text: string }
  /** A file whose name says what it holds (`.pgpass`, `config/master.key`), the sample its whole text. */
  | { kind: 'file'; file: string; text: string };

interface SecretValue {
  rule: string;
  type: string;
  shape: Shape;
}

const unquote = (v: string) => v.replace(/,$/, '').replace(/^(["'])(.*)\1$/, '$2');

/** Reads a filled sample line as a name and a value where it is one. */
function shapeOf(rule: string, text: string): Shape {
  if (text.includes('\n')) return { kind: 'block', text };
  const pair =
    /^(?<name>[A-Za-z_][\w.]*)=(?<value>\S.*)$/.exec(text) ??
    /^"?(?<name>[A-Za-z_][\w-]*)"?: (?<value>.+)$/.exec(text) ??
    /^(?<name>[A-Za-z_][\w.]*) = (?<value>.+)$/.exec(text);
  // An .npmrc setting (`_auth = ...`) is written as its line, in an .npmrc: no other file spells it so.
  if (pair?.groups!.name!.startsWith('_')) return { kind: 'line', text };
  if (pair) {
    const value = unquote(pair.groups!.value!);
    if (!/[;\\"'<>]/.test(value)) return { kind: 'pair', name: pair.groups!.name!, value };
  }
  // A bare token, URL or connection string: written under a name that says what it is.
  // The name says whose it is, without a word that says secret: the value alone must be found.
  const name = rule.replace(/-(?:password|secret|token|key|api-key)\b/g, '').replace(/-/g, '_');
  if (!/[\\"'<>]/.test(text)) return { kind: 'pair', name, value: text };
  return { kind: 'line', text };
}

/**
 * Formats that rules must find beside each rule's own sample: current lengths of long tokens, and
 * kinds the samples leave out. `{...}` slots as in secret-samples.ts.
 */
const EXTRA_SECRETS: readonly { rule: string; template: string }[] = [
  { rule: 'anthropic-api-key', template: 'ANTHROPIC_API_KEY=sk-ant-api03-{w93}AA' },
  { rule: 'openai-project-key', template: 'OPENAI_API_KEY=sk-proj-{w74}T3BlbkFJ{w74}' },
  { rule: 'hashicorp-vault-service-token', template: 'VAULT_TOKEN=hvs.{w95}' },
  { rule: 'gitlab-personal-access-token', template: 'GITLAB_TOKEN=glpat-{w36}' },
  { rule: 'stripe-restricted-key', template: 'STRIPE_API_KEY=rk_live_{a99}' },
  { rule: 'stripe-secret-key', template: 'STRIPE_SECRET_KEY=sk_live_{a99}' },
  {
    rule: 'slack-webhook-url',
    template: 'SLACK_WEBHOOK=https://hooks.slack.com/services/T{u10}/B{u10}/{a24}',
  },
  { rule: 'tailscale-auth-key', template: 'TAILSCALE_API_KEY=tskey-api-{a16}-{a33}' },
  { rule: 'grafana-cloud-token', template: 'GRAFANA_CLOUD_TOKEN=glc_eyJ{b120}=' },
  { rule: 'figma-personal-access-token', template: 'FIGMA_TOKEN=figd_{w40}' },
  { rule: 'linear-api-key', template: 'LINEAR_API_KEY=lin_api_{a40}' },
  // GitHub's registry takes a GitHub token: it is named by its own rule, not as an npm one.
  { rule: 'github-personal-access-token', template: '//npm.pkg.github.com/:_authToken=ghp_{a36}' },
  { rule: 'generic-url-password', template: 'https://ci-bot:{a20}@git.internal.net/platform/infra.git' },
];

/** Names of generic password settings, as configuration files spell them. */
const PASSWORD_NAMES = ['password', 'db_password', 'DB_PASSWORD', 'SMTP_PASSWORD', 'admin_password', 'redis_password', 'MYSQL_ROOT_PASSWORD', 'ldap_bind_password', 'keystore_password', 'rabbitmq_password']; // prettier-ignore

class Secrets {
  private readonly dice: Dice;

  constructor(dice: Dice) {
    this.dice = dice;
  }

  fromTemplate(rule: string, template: string): SecretValue {
    const text = this.dice.fill(template);
    const file = SAMPLE_FILES[rule];
    const shape: Shape = file ? { kind: 'file', file, text: text.trimEnd() } : shapeOf(rule, text);
    return { rule, type: RULE_TYPES.get(rule) ?? 'SECRET', shape };
  }

  /** Every rule's own sample, `copies` times with fresh values, and the extra formats. */
  all(copies: number): SecretValue[] {
    const out: SecretValue[] = [];
    for (const [rule, sample] of Object.entries(SAMPLES)) {
      const template = typeof sample === 'string' ? sample : sample[0];
      for (let i = 0; i < copies; i++) out.push(this.fromTemplate(rule, template));
    }
    for (const { rule, template } of EXTRA_SECRETS) out.push(this.fromTemplate(rule, template));
    for (let i = 0; i < 40; i++) {
      out.push({
        rule: 'generic-secret-assignment',
        type: 'SECRET',
        shape: { kind: 'pair', name: this.dice.one(PASSWORD_NAMES), value: this.password() },
      });
    }
    return out;
  }

  /** A password a person chose: letters, digits and a symbol or two, 10 to 20 characters. */
  password(): string {
    for (;;) {
      const body = this.dice.pick(ALPHABETS.a!, this.dice.int(8, 17));
      const symbol = this.dice.pick('!&*+-.?@^_~', this.dice.int(1, 2));
      const at = this.dice.int(1, body.length - 1);
      const value = this.dice.pick(ALPHABETS.L!, 1) + body.slice(0, at) + symbol + body.slice(at);
      if (/\d/.test(value) && /[a-z]/.test(value) && /[A-Z]/.test(value)) return value;
    }
  }
}

const secretPlant = (s: SecretValue, value: string, form: string): Plant => ({
  plant: true,
  value,
  category: 'secret',
  type: s.type,
  rule: s.rule,
  form,
});

// ---------------------------------------------------------------- writing a pair in each syntax

/** camelCase of an UPPER_SNAKE or snake name, as code spells a setting (`twilioAuthToken`). */
function camel(name: string): string {
  const words = name
    .toLowerCase()
    .split(/[_.-]+/)
    .filter(Boolean);
  return words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('');
}
const isIdentifier = (name: string) => /^[A-Za-z_$][\w$]*$/.test(name);

/** The syntaxes a name and its value are written in, one per kind of file. */
type PairForm =
  | 'env'
  | 'export'
  | 'yaml'
  | 'k8s-env'
  | 'compose'
  | 'json'
  | 'ts-object'
  | 'ts-const'
  | 'py'
  | 'py-call'
  | 'go-struct'
  | 'go-call'
  | 'toml'
  | 'ini'
  | 'properties'
  | 'dockerfile'
  | 'dockerfile-legacy'
  | 'k8s-data';

/** Writes `dotted` and `value` (a planted value, a decoy or plain text) in `form`: one line (k8s env: two) of `f`. */
function writePair(f: FileText, form: PairForm, dotted: string, value: Piece, indent = ''): void {
  const v = typeof value === 'string' ? value : value.value;
  // A dotted name (`gradle.publish.key`) is a properties key; environment variables spell it in capitals.
  const keepsDots = ['yaml', 'json', 'ts-object', 'toml', 'ini', 'properties'].includes(form);
  const name = keepsDots ? dotted : dotted.replace(/\./g, '_').toUpperCase();
  const spaced = /\s/.test(v);
  switch (form) {
    case 'env':
      f.ln(`${name}=`, ...(spaced ? ['"', value, '"'] : [value]));
      return;
    case 'export':
      f.ln(`export ${name}="`, value, '"');
      return;
    case 'yaml':
      f.ln(`${indent}${name}: `, ...(spaced || /^[^A-Za-z0-9/]/.test(v) ? ['"', value, '"'] : [value]));
      return;
    case 'k8s-env':
      f.ln(`${indent}- name: ${name}`).ln(`${indent}  value: "`, value, '"');
      return;
    case 'compose':
      f.ln(`${indent}- ${name}=`, value);
      return;
    case 'json':
      f.ln(`${indent}"${name}": "`, value, '",');
      return;
    case 'ts-object': {
      // Code names a setting in camelCase as often as by its variable's name.
      const key = /^[A-Z0-9_]+$/.test(name) && v.length % 2 === 0 ? camel(name) : name;
      f.ln(`${indent}${isIdentifier(key) ? key : `'${key}'`}: '`, value, "',");
      return;
    }
    case 'ts-const':
      f.ln(`export const ${isIdentifier(name) ? name : camel(name)} = '`, value, "';");
      return;
    case 'py':
      f.ln(`${isIdentifier(name) ? name : name.replace(/\W/g, '_')} = "`, value, '"');
      return;
    case 'py-call':
      f.ln(`os.environ.setdefault("${name}", "`, value, '")');
      return;
    case 'go-struct':
      f.ln(`${indent}${camel(name).replace(/^./, (c) => c.toUpperCase())}: "`, value, '",');
      return;
    case 'go-call':
      f.ln(`${indent}os.Setenv("${name}", "`, value, '")');
      return;
    case 'toml':
      f.ln(`${name.toLowerCase()} = "`, value, '"');
      return;
    case 'ini':
      f.ln(`${name.toLowerCase()} = `, value);
      return;
    case 'properties':
      // Spring's spelling: lower case, dots between words (`twilio.auth.token`).
      f.ln(`${name.toLowerCase().replace(/_/g, '.')}=`, value);
      return;
    case 'dockerfile':
      f.ln(`ENV ${name}=`, ...(spaced ? ['"', value, '"'] : [value]));
      return;
    case 'dockerfile-legacy':
      // The older `ENV name value` form, still common in Dockerfiles.
      f.ln(`ENV ${name} `, value);
      return;
    case 'k8s-data':
      f.ln(`${indent}${name}: `, value);
      return;
  }
}

// ---------------------------------------------------------------- the files

const SERVICES = ['billing', 'checkout', 'search', 'notifications', 'reports', 'auth', 'inventory', 'shipping', 'analytics', 'gateway', 'crm', 'media']; // prettier-ignore

/** Settings that name a provider and hold no secret: identifiers, regions, public keys, references. */
function harmlessSettings(dice: Dice): [string, Lure | string][] {
  return [
    ['PORT', String(dice.one([3000, 8080, 8443, 5000]))],
    ['NODE_ENV', 'production'],
    ['LOG_LEVEL', dice.one(['info', 'warn', 'debug'])],
    ['AWS_REGION', dice.one(['eu-west-1', 'us-east-2', 'ap-southeast-1'])],
    ['AWS_ACCOUNT_ID', decoy(dice.digits(12), 'aws-account-id')],
    ['HEROKU_APP_ID', decoy(dice.uuid(), 'uuid-identifier')],
    ['RAILWAY_PROJECT_ID', decoy(dice.uuid(), 'uuid-identifier')],
    ['SCW_DEFAULT_PROJECT_ID', decoy(dice.uuid(), 'uuid-identifier')],
    ['CLOUDFLARE_ZONE_ID', decoy(dice.hex(32), 'hex-identifier')],
    ['GITHUB_SHA', decoy(dice.hex(40), 'git-sha')],
    ['TWILIO_ACCOUNT_SID', decoy(`AC${dice.hex(32)}`, 'twilio-account-sid')],
    ['STRIPE_PUBLISHABLE_KEY', decoy(`pk_live_${dice.pick(ALPHABETS.a!, 24)}`, 'publishable-key')],
    ['VERCEL_PROJECT_ID', decoy(`prj_${dice.pick(ALPHABETS.a!, 28)}`, 'vercel-project-id')],
    [
      'MAPBOX_PUBLIC_TOKEN',
      decoy(`pk.eyJ${dice.pick(ALPHABETS.w!, 50)}.${dice.pick(ALPHABETS.w!, 22)}`, 'public-token'),
    ],
    ['SNYK_ORG_ID', decoy(dice.uuid(), 'uuid-identifier')],
    [
      'SENTRY_DSN',
      decoy(`https://${dice.hex(32)}@o${dice.digits(6)}.ingest.sentry.io/${dice.digits(7)}`, 'sentry-dsn'),
    ],
    ['API_KEY', decoy('your-api-key-here', 'placeholder')],
    ['SESSION_SECRET', decoy('changeme', 'placeholder')],
    ['JWT_SECRET', decoy('x'.repeat(32), 'placeholder')],
    ['OPENAI_API_KEY', decoy('sk-...', 'placeholder')],
    ['STRIPE_SECRET_KEY', decoy(`sk_live_${'x'.repeat(24)}`, 'placeholder')],
    ['GITHUB_TOKEN', decoy('<your-github-token>', 'placeholder')],
    ['DATABASE_URL', decoy('postgres://postgres:postgres@localhost:5432/app', 'local-default')],
    ['REDIS_URL', decoy('redis://10.0.12.4:6379/0', 'private-address')],
    [
      'BUILD_VERSION',
      decoy(`${dice.int(1, 12)}.${dice.int(0, 40)}.${dice.int(0, 9)}.${dice.int(100, 999)}`, 'version'),
    ],
    ['RELEASE', decoy(dice.hex(12), 'hex-identifier')],
    ['FEATURE_FLAGS', 'search-v2,checkout-redesign'],
    ['SUPPORT_EMAIL', decoy('support@example.com', 'example-email')],
  ] as [string, Lure | string][];
}

/** A setting's value as a piece (decoys keep their label). */

/** The kinds of file a pair can go into, and the form each writes it in. */
const PAIR_KINDS = ['env', 'shell', 'k8s-secret', 'k8s-data', 'k8s-deploy', 'compose', 'actions', 'json', 'ts', 'py', 'go', 'toml', 'ini', 'properties', 'dockerfile'] as const; // prettier-ignore
type PairKind = (typeof PAIR_KINDS)[number];

/** Writes the corpus into `root` (an empty folder) and returns where everything was planted. */
export function writeCorpus(root: string, seed = 20261201): Corpus {
  const dice = new Dice(seed);
  const people = new People(dice);
  const secrets = new Secrets(dice);
  const files: FileText[] = [];
  const open = (file: string) => {
    const f = new FileText(file);
    files.push(f);
    return f;
  };

  // ---- Secrets: every pair into a file of some kind, lines and blocks where they read well.
  const pairs = new Map<string, SecretValue[]>();
  const lines: SecretValue[] = [];
  const blocks: SecretValue[] = [];
  let machine = 0;
  for (const s of dice.shuffle(secrets.all(2))) {
    if (s.shape.kind === 'file') {
      // Each in a folder of its own (a computer's home, a project), as its file is one to a place.
      const f = open(`machines/host-${++machine}/${s.shape.file}`);
      const json = s.shape.file.endsWith('.json');
      if (json) f.ln('{');
      f.ln(secretPlant(s, s.shape.text, 'file'));
      if (json) f.ln('}');
    } else if (s.shape.kind === 'pair') {
      const key = `${dice.one(SERVICES)}/${dice.one(PAIR_KINDS)}`;
      pairs.set(key, [...(pairs.get(key) ?? []), s]);
    } else if (s.shape.kind === 'line') lines.push(s);
    else blocks.push(s);
  }
  for (const service of SERVICES) {
    for (const kind of PAIR_KINDS) {
      writePairFile(open, dice, people, service, kind, pairs.get(`${service}/${kind}`) ?? []);
    }
  }
  writeLineFiles(open, lines);
  writeBlockFiles(open, dice, blocks);

  // ---- Personal data, and the files that hold hard negatives only.
  for (let i = 0; i < 6; i++)
    writeCustomerExport(open(`data/exports/customers-2026-0${i + 1}.csv`), dice, people);
  for (let i = 0; i < 3; i++) writeOrderExport(open(`data/exports/orders-2026-q${i + 1}.csv`), dice, people);
  for (let i = 0; i < 3; i++)
    writeStaffExport(open(`hr/staff-${['emea', 'amer', 'apac'][i]}.csv`), dice, people);
  for (let i = 0; i < 8; i++) writeAppLog(open(`logs/${dice.one(SERVICES)}-${i}.log`), dice, people, secrets);
  for (let i = 0; i < 4; i++) writeContacts(open(`crm/contacts-${i}.json`), dice, people);
  for (let i = 0; i < 4; i++) writeCustomerYaml(open(`crm/accounts-${i}.yaml`), dice, people);
  writeTests(open('test/checkout.test.ts'), dice, people);
  writeTests(open('services/billing/__tests__/invoice.spec.ts'), dice, people);
  writeLockFiles(open, dice);
  writeDocs(open('docs/README.md'), dice);
  writeWebAssets(open('web/public/index.html'), dice);

  let bytes = 0;
  for (const f of files) {
    const path = join(root, f.file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, f.text);
    bytes += Buffer.byteLength(f.text);
  }
  return {
    files: files.map((f) => f.file),
    bytes,
    planted: files.flatMap((f) => f.planted),
    decoys: files.flatMap((f) => f.decoys),
  };
}

type Open = (file: string) => FileText;

/** The form each kind of file writes a pair in (Python and Go files mix two). */
function formOf(kind: PairKind, dice: Dice): PairForm {
  switch (kind) {
    case 'env':
      return 'env';
    case 'shell':
      return 'export';
    case 'k8s-secret':
    case 'actions':
      return 'yaml';
    case 'k8s-deploy':
      return 'k8s-env';
    case 'compose':
      return 'compose';
    case 'json':
      return 'json';
    case 'ts':
      return dice.chance(0.7) ? 'ts-object' : 'ts-const';
    case 'py':
      return dice.chance(0.75) ? 'py' : 'py-call';
    case 'go':
      return dice.chance(0.75) ? 'go-struct' : 'go-call';
    case 'toml':
      return 'toml';
    case 'ini':
      return 'ini';
    case 'properties':
      return 'properties';
    case 'dockerfile':
      return dice.chance(0.75) ? 'dockerfile' : 'dockerfile-legacy';
    case 'k8s-data':
      return 'k8s-data';
  }
}

const PAIR_FILES: Record<PairKind, (service: string) => string> = {
  env: (s) => `deploy/${s}/.env.production`,
  shell: (s) => `deploy/${s}/env.sh`,
  'k8s-secret': (s) => `deploy/k8s/${s}-secret.yaml`,
  'k8s-deploy': (s) => `deploy/k8s/${s}-deployment.yaml`,
  compose: (s) => `deploy/${s}/docker-compose.yml`,
  actions: (s) => `.github/workflows/deploy-${s}.yml`,
  json: (s) => `config/${s}.json`,
  ts: (s) => `services/${s}/src/config.ts`,
  py: (s) => `services/${s}/settings.py`,
  go: (s) => `services/${s}/internal/config/config.go`,
  toml: (s) => `config/${s}.toml`,
  ini: (s) => `config/${s}.ini`,
  properties: (s) => `services/${s}/src/main/resources/application-prod.properties`,
  dockerfile: (s) => `services/${s}/Dockerfile`,
  'k8s-data': (s) => `deploy/k8s/${s}-credentials.yaml`,
};

/** A config file of `kind` for `service`: ordinary settings, harmless look-alikes and the planted pairs. */
function writePairFile(
  open: Open,
  dice: Dice,
  people: People,
  service: string,
  kind: PairKind,
  planted: SecretValue[],
): void {
  const f = open(PAIR_FILES[kind](service));
  const harmless = dice.shuffle(harmlessSettings(dice)).slice(0, dice.int(5, 9));
  // Settings and planted secrets interleaved, as a real file mixes them.
  const entries: ({ secret: SecretValue } | { name: string; value: Lure | string })[] = dice.shuffle([
    ...planted.map((secret) => ({ secret })),
    ...harmless.map(([name, value]) => ({ name, value })),
  ]);
  // Python and Dockerfiles mix two forms; a TypeScript or Go file keeps to one.
  const fileForm = formOf(kind, dice);
  const form = () => (kind === 'py' || kind === 'dockerfile' ? formOf(kind, dice) : fileForm);
  const indentOf: Record<PairKind, string> = {
    env: '',
    shell: '',
    'k8s-secret': '  ',
    'k8s-deploy': '            ',
    compose: '      ',
    actions: '      ',
    json: '    ',
    ts: '  ',
    py: '',
    go: '\t\t',
    toml: '',
    ini: '',
    properties: '',
    dockerfile: '',
    'k8s-data': '  ',
  };
  const indent = indentOf[kind];
  const owner = people.person();
  const writeEntry = (e: (typeof entries)[number], chosen: PairForm) => {
    if (!('secret' in e)) {
      if (chosen !== 'k8s-data') return writePair(f, chosen, e.name, e.value, indent);
      const text = typeof e.value === 'string' ? e.value : e.value.value;
      const encoded = Buffer.from(text).toString('base64');
      return writePair(
        f,
        chosen,
        e.name,
        typeof e.value === 'string' ? encoded : decoy(encoded, e.value.label),
        indent,
      );
    }
    const shape = e.secret.shape as { name: string; value: string };
    // A Secret's `data:` holds each value in base64, as `kubectl create secret` writes it.
    const value = chosen === 'k8s-data' ? Buffer.from(shape.value).toString('base64') : shape.value;
    writePair(f, chosen, shape.name, secretPlant(e.secret, value, chosen), indent);
  };
  const body = () => {
    for (const e of entries) writeEntry(e, form());
  };
  switch (kind) {
    case 'env':
      f.ln(`# ${service}: production settings, loaded by the process manager`);
      body();
      return;
    case 'shell':
      f.ln('#!/bin/bash')
        .ln('# Exports the settings the deploy job needs, then runs it.')
        .ln('set -euo pipefail')
        .ln();
      body();
      f.ln().ln(`exec ./bin/deploy --service ${service} --region "$AWS_REGION"`);
      return;
    case 'k8s-secret':
      f.ln('apiVersion: v1')
        .ln('kind: Secret')
        .ln('metadata:')
        .ln(`  name: ${service}-secrets`)
        .ln(`  namespace: ${service}`);
      f.ln('  annotations:').ln(`    owner: platform-team`).ln('type: Opaque').ln('stringData:');
      body();
      return;
    case 'k8s-deploy':
      f.ln('apiVersion: apps/v1')
        .ln('kind: Deployment')
        .ln('metadata:')
        .ln(`  name: ${service}`)
        .ln('spec:')
        .ln('  replicas: 3');
      f.ln('  template:').ln('    spec:').ln('      containers:').ln(`        - name: ${service}`);
      f.ln(`          image: registry.internal.net/${service}@sha256:`, decoy(dice.hex(64), 'image-digest'));
      f.ln('          env:');
      f.ln('            - name: DB_PASSWORD')
        .ln('              valueFrom:')
        .ln('                secretKeyRef:');
      f.ln(`                  name: ${service}-secrets`).ln('                  key: db-password');
      body();
      f.ln('      hostAliases:').ln(
        '        - ip: "',
        decoy(`10.${dice.int(0, 255)}.${dice.int(0, 255)}.${dice.int(1, 254)}`, 'private-address'),
        '"',
      );
      f.ln('          hostnames: ["db.internal"]');
      return;
    case 'compose':
      f.ln('services:')
        .ln(`  ${service}:`)
        .ln(`    image: ghcr.io/acme-shop/${service}:${dice.int(1, 9)}.${dice.int(0, 30)}.${dice.int(0, 9)}`);
      f.ln('    ports:').ln('      - "8080:8080"').ln('    environment:');
      body();
      f.ln('  db:')
        .ln('    image: postgres:16')
        .ln('    environment:')
        .ln('      - POSTGRES_PASSWORD=${POSTGRES_PASSWORD}');
      return;
    case 'actions':
      f.ln(`name: deploy ${service}`)
        .ln('on:')
        .ln('  push:')
        .ln('    branches: [main]')
        .ln('jobs:')
        .ln('  deploy:');
      f.ln('    runs-on: ubuntu-latest').ln('    env:').ln('      NPM_TOKEN: ${{ secrets.NPM_TOKEN }}');
      body();
      f.ln('    steps:').ln('      - uses: actions/checkout@', decoy(dice.hex(40), 'git-sha'));
      f.ln('      - run: npm ci && npm run build');
      return;
    case 'json':
      f.ln('{')
        .ln(`  "service": "${service}",`)
        .ln('  "owner": {')
        .ln('    "name": "', pii(owner.full, 'PERSON_NAME', 'json'), '",');
      f.ln('    "email": "', pii(owner.email, 'EMAIL', 'json'), '"')
        .ln('  },')
        .ln('  "settings": {');
      body();
      f.ln(`    "requestId": "`, decoy(dice.uuid(), 'uuid'), '"').ln('  }').ln('}');
      return;
    case 'ts':
      f.ln(`// Settings of the ${service} service, read once at start-up.`)
        .ln("import { z } from 'zod';")
        .ln();
      if (fileForm === 'ts-const') body();
      f.ln('export const defaults = {');
      f.ln("  apiKey: process.env.API_KEY ?? '',").ln("  token: process.env.SERVICE_TOKEN ?? '',");
      f.ln("  accent: '#", decoy(dice.hex(6), 'hex-color'), "',");
      if (fileForm === 'ts-object') body();
      f.ln('};').ln().ln('export const Settings = z.object({ apiKey: z.string(), token: z.string() });');
      return;
    case 'py':
      f.ln(`"""Settings of the ${service} service."""`).ln('import os').ln();
      f.ln('SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]')
        .ln('DEBUG = False')
        .ln(`ALLOWED_HOSTS = ["${service}.internal.net"]`);
      body();
      f.ln('CACHE_TTL = 300');
      return;
    case 'go':
      f.ln('// Package config holds the settings the service starts with.').ln('package config').ln();
      f.ln('import "os"').ln().ln('func Load() Config {');
      if (fileForm === 'go-call') body();
      f.ln('\tcfg := Config{');
      f.ln('\t\tToken: os.Getenv("SERVICE_TOKEN"),').ln(
        `\t\tBuildID: "`,
        decoy(dice.hex(40), 'git-sha'),
        '",',
      );
      if (fileForm === 'go-struct') body();
      f.ln('\t}').ln('\treturn cfg').ln('}');
      return;
    case 'toml':
      f.ln(`[service]`).ln(`name = "${service}"`).ln('workers = 4').ln().ln('[credentials]');
      body();
      return;
    case 'ini':
      f.ln('[server]').ln('host = 0.0.0.0').ln('port = 8080').ln().ln('[secrets]');
      body();
      return;
    case 'properties':
      f.ln(`spring.application.name=${service}`).ln('server.port=8080').ln('spring.datasource.username=app');
      f.ln('spring.datasource.password=${DB_PASSWORD}');
      body();
      return;
    case 'dockerfile':
      f.ln('FROM node:24-slim').ln('WORKDIR /app').ln('COPY package*.json ./').ln('RUN npm ci --omit=dev');
      body();
      f.ln('COPY . .').ln('CMD ["node", "dist/main.js"]');
      return;
    case 'k8s-data':
      f.ln('apiVersion: v1')
        .ln('kind: Secret')
        .ln('metadata:')
        .ln(`  name: ${service}-credentials`)
        .ln('type: Opaque')
        .ln('data:');
      body();
      return;
  }
}

/** Lines that read well only as written: a curl call, an XML element, a line of code. */
function writeLineFiles(open: Open, lines: SecretValue[]): void {
  const script = open('scripts/smoke-test.sh');
  script.ln('#!/bin/bash').ln('# Calls each upstream once after a deploy.').ln('set -euo pipefail');
  const xml = open('config/maven-settings.xml');
  xml.ln('<settings>').ln('  <servers>');
  const code = open('services/search/src/upstreams.ts');
  code.ln('// Clients of the upstream services.');
  const gcp = open('config/gcp-service-account.json');
  gcp.ln('{').ln('  "type": "service_account",').ln('  "project_id": "acme-prod-291",');
  const npmrc = open('.npmrc');
  npmrc.ln('registry=https://registry.npmjs.org/');
  for (const s of lines) {
    const text = (s.shape as { text: string }).text;
    const plant = secretPlant(s, text, 'line');
    if (text.startsWith('<'))
      xml.ln('    <server>').ln('      <id>nexus</id>').ln('      ', plant).ln('    </server>');
    else if (text.startsWith('"private_key"')) gcp.ln('  ', plant);
    else if (/^curl /.test(text)) script.ln(plant, ' https://api.internal.net/health');
    else if (text.startsWith('_')) npmrc.ln(plant);
    else code.ln(plant);
  }
  script.ln('echo ok');
  xml.ln('  </servers>').ln('</settings>');
  gcp.ln(`  "token_uri": "https://oauth2.googleapis.com/token"`).ln('}');
}

/** Keys in files of their own, or pasted into a Kubernetes secret. */
function writeBlockFiles(open: Open, dice: Dice, blocks: SecretValue[]): void {
  const tls = open('deploy/k8s/ingress-tls.yaml');
  tls
    .ln('apiVersion: v1')
    .ln('kind: Secret')
    .ln('metadata:')
    .ln('  name: ingress-tls')
    .ln('type: kubernetes.io/tls')
    .ln('stringData:');
  tls.ln('  tls.crt: |');
  tls.add('    ', decoy(pemBlock(dice, 'CERTIFICATE').replace(/\n/g, '\n    '), 'certificate'), '\n');
  blocks.forEach((s, i) => {
    const text = (s.shape as { text: string }).text;
    if (i % 3 === 0 && text.startsWith('-----')) {
      tls
        .ln(`  key-${i}.pem: |`)
        .add('    ', secretPlant(s, text.replace(/\n/g, '\n    '), 'yaml-block'), '\n');
    } else {
      const name = text.startsWith('PuTTY') ? `keys/deploy-${i}.ppk` : `keys/${s.rule}-${i}.pem`;
      open(name).add(secretPlant(s, text, 'key-file'), '\n');
    }
  });
  open('keys/deploy.pub').ln(
    'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI',
    decoy(dice.pick(ALPHABETS.b!, 43), 'public-key'),
    ' deploy@build-01',
  );
}

function pemBlock(dice: Dice, label: string): string {
  const lines = Array.from({ length: 6 }, () => dice.pick(ALPHABETS.b!, 64));
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----`;
}

// ---------------------------------------------------------------- personal data files

function writeCustomerExport(f: FileText, dice: Dice, people: People): void {
  f.ln('customer_id,full_name,email,phone,date_of_birth,country,signup_date,lifetime_value');
  for (let i = 0; i < 40; i++) {
    const p = people.person();
    const phone = people.phone();
    const dob = people.birthDate();
    const name =
      p.full.includes("'") || dice.chance(0.2)
        ? ['"', pii(p.full, 'PERSON_NAME', 'csv'), '"']
        : [pii(p.full, 'PERSON_NAME', 'csv')];
    f.ln(
      `C-${String(10000 + i * 37).padStart(6, '0')},`,
      ...name,
      ',',
      pii(p.email, 'EMAIL', 'csv'),
      ',',
      pii(dice.one([phone.e164, phone.international, phone.national]), 'PHONE', 'csv'),
      ',',
      pii(dob.iso, 'DATE_OF_BIRTH', 'csv'),
      `,${phone.country},`,
      decoy(
        `2025-${String(dice.int(1, 12)).padStart(2, '0')}-${String(dice.int(1, 28)).padStart(2, '0')}`,
        'non-birth-date',
      ),
      `,${dice.int(10, 9000)}.${dice.int(10, 99)}`,
    );
  }
}

function writeOrderExport(f: FileText, dice: Dice, people: People): void {
  f.ln('order_id,name,email,card_number,billing_iban,ip_address,created_at,amount,currency');
  for (let i = 0; i < 40; i++) {
    const p = people.person();
    const card = people.card();
    const iban = people.iban();
    f.ln(
      decoy(people.notCard(), 'luhn-invalid-number'),
      ',',
      pii(p.full, 'PERSON_NAME', 'csv'),
      ',',
      pii(p.email, 'EMAIL', 'csv'),
      ',',
      pii(dice.chance(0.5) ? card : grouped(card, dice.one([' ', '-'])), 'CARD_NUMBER', 'csv'),
      ',',
      pii(dice.chance(0.7) ? iban : iban.replace(/(.{4})(?=.)/g, '$1 '), 'IBAN', 'csv'),
      ',',
      dice.chance(0.8) ? pii(people.ipv4(), 'IP_ADDRESS', 'csv') : pii(people.ipv6(), 'IP_ADDRESS', 'csv'),
      `,2026-0${dice.int(1, 9)}-1${dice.int(0, 9)}T${dice.int(10, 23)}:${dice.int(10, 59)}:00Z,${dice.int(5, 900)}.${dice.int(10, 99)},EUR`,
    );
  }
}

function writeStaffExport(f: FileText, dice: Dice, people: People): void {
  f.ln('employee_id,first_name,last_name,ssn,dob,mobile,department,start_date');
  for (let i = 0; i < 30; i++) {
    const p = people.person();
    const dob = people.birthDate();
    f.ln(
      `E${dice.digits(5)},`,
      pii(p.first, 'PERSON_NAME', 'csv'),
      ',',
      pii(p.last, 'PERSON_NAME', 'csv'),
      ',',
      pii(people.ssn(), 'US_SSN', 'csv'),
      ',',
      pii(dob.written.includes(',') ? dob.iso : dob.written, 'DATE_OF_BIRTH', 'csv'),
      ',',
      pii(people.phone().e164, 'PHONE', 'csv'),
      `,${dice.one(['Finance', 'Support', 'Engineering', 'Logistics'])},`,
      decoy(`20${dice.int(10, 25)}-0${dice.int(1, 9)}-0${dice.int(1, 9)}`, 'non-birth-date'),
    );
  }
}

const TS = (dice: Dice) =>
  `2026-03-${String(dice.int(1, 28)).padStart(2, '0')}T${String(dice.int(0, 23)).padStart(2, '0')}:${String(dice.int(0, 59)).padStart(2, '0')}:${String(dice.int(0, 59)).padStart(2, '0')}.${dice.digits(3)}Z`;

function writeAppLog(f: FileText, dice: Dice, people: People, secrets: Secrets): void {
  for (let i = 0; i < 120; i++) {
    const ts = TS(dice);
    const roll = dice.int(0, 15);
    const p = people.person();
    if (roll === 0)
      f.ln(
        `${ts} INFO  [auth] login succeeded user=`,
        pii(p.email, 'EMAIL', 'log'),
        ' ip=',
        pii(people.ipv4(), 'IP_ADDRESS', 'log'),
        ' request_id=',
        decoy(dice.uuid(), 'uuid'),
      );
    else if (roll === 1)
      f.ln(
        `${ts} INFO  [notify] sms sent to `,
        pii(people.phone().e164, 'PHONE', 'log'),
        ' template=order_shipped',
      );
    else if (roll === 2)
      f.ln(
        `${ts} DEBUG [http] GET /api/v1/orders?page=${dice.int(1, 40)} 200 ${dice.int(2, 90)}ms client=`,
        pii(people.ipv6(), 'IP_ADDRESS', 'log'),
      );
    else if (roll === 3)
      f.ln(
        `${ts} INFO  [health] upstream `,
        decoy(`10.${dice.int(0, 255)}.${dice.int(0, 255)}.${dice.int(1, 254)}`, 'private-address'),
        ':8080 ok',
      );
    else if (roll === 4)
      f.ln(
        `${ts} WARN  [payments] card declined customer=C-${dice.digits(5)} card=**** **** **** ${dice.digits(4)} reason=insufficient_funds`,
      );
    else if (roll === 5)
      f.ln(
        `${ts} INFO  [deploy] version `,
        decoy(`${dice.int(1, 9)}.${dice.int(10, 40)}.${dice.int(0, 9)}.${dice.int(100, 999)}`, 'version'),
        ' commit=',
        decoy(dice.hex(40), 'git-sha'),
      );
    else if (roll === 6)
      f.ln(
        `${ts} INFO  [signup] new account email=`,
        pii(p.email, 'EMAIL', 'log'),
        ' phone=',
        pii(people.phone().international, 'PHONE', 'log'),
      );
    else if (roll === 7)
      f.ln(
        `${ts} DEBUG [mail] bounce from `,
        decoy('mailer-daemon@googlemail.com', 'service-sender'),
        ' to ',
        decoy(`${ascii(p.first)}@example.org`, 'example-email'),
      );
    else if (roll === 8)
      f.ln(
        `${ts} INFO  [dns] resolver `,
        decoy(dice.one(['8.8.8.8', '1.1.1.1', '9.9.9.9']), 'resolver-address'),
        ' answered in 4ms',
      );
    else if (roll === 9 && dice.chance(0.25)) {
      const s = secrets.fromTemplate(
        'postgres-connection-password',
        'postgres://orders:{a20}@db-prod.internal.net:5432/orders',
      );
      f.ln(
        `${ts} ERROR [db] connection failed: `,
        secretPlant(s, (s.shape as { value: string }).value, 'log'),
        ' (timeout after 5000ms)',
      );
    } else if (roll === 10 && dice.chance(0.25)) {
      const s = secrets.fromTemplate('generic-bearer-token', 'Authorization: Bearer {w48}');
      f.ln(
        `${ts} DEBUG [http] outgoing headers={"Authorization":"Bearer `,
        secretPlant(s, (s.shape as { value: string }).value.slice(7), 'log'),
        '","Accept":"application/json"}',
      );
    } else if (roll === 11)
      f.ln(
        `${ts} INFO  [profile] updated customer=C-${dice.digits(5)} date_of_birth=`,
        pii(people.birthDate().iso, 'DATE_OF_BIRTH', 'log'),
      );
    else if (roll === 12)
      f.ln(
        `${ts} INFO  [export] wrote ${dice.int(100, 90000)} rows to s3://exports/customers-${dice.digits(8)}.csv in ${dice.int(100, 4000)}ms`,
      );
    else if (roll === 13)
      f.ln(
        `${ts} INFO  [gc] heap used=${dice.int(100, 900)}MB pause=${dice.int(1, 40)}ms epoch=`,
        decoy(`17${dice.digits(11)}`, 'timestamp'),
      );
    else
      f.ln(
        `${ts} INFO  [http] POST /api/v1/checkout 201 ${dice.int(20, 400)}ms trace=`,
        decoy(dice.hex(32), 'trace-id'),
      );
  }
}

function writeContacts(f: FileText, dice: Dice, people: People): void {
  f.ln('[');
  for (let i = 0; i < 12; i++) {
    const p = people.person();
    const phone = people.phone(dice.one(['US', 'GB', 'DE', 'FR']));
    const dob = people.birthDate();
    f.ln('  {').ln(`    "id": "`, decoy(dice.uuid(), 'uuid'), '",');
    f.ln('    "full_name": "', pii(p.full, 'PERSON_NAME', 'json'), '",');
    f.ln('    "email": "', pii(p.email, 'EMAIL', 'json'), '",');
    f.ln('    "phone": "', pii(phone.national, 'PHONE', 'json'), '",');
    f.ln('    "date_of_birth": "', pii(dob.written, 'DATE_OF_BIRTH', 'json'), '",');
    f.ln('    "ssn": "', pii(people.ssn(), 'US_SSN', 'json'), '",');
    f.ln('    "iban": "', pii(people.iban(), 'IBAN', 'json'), '",');
    f.ln('    "last_ip": "', pii(people.ipv4(), 'IP_ADDRESS', 'json'), '",');
    f.ln(`    "created_at": "`, decoy(`2024-0${dice.int(1, 9)}-1${dice.int(0, 9)}`, 'non-birth-date'), '",');
    f.ln(`    "tags": ["newsletter", "vip"]`).ln(i === 11 ? '  }' : '  },');
  }
  f.ln(']');
}

function writeCustomerYaml(f: FileText, dice: Dice, people: People): void {
  f.ln('# Key accounts and the people to call there.').ln('accounts:');
  for (let i = 0; i < 10; i++) {
    const p = people.person();
    const phone = people.phone(dice.one(['US', 'GB', 'DE']));
    f.ln(`  - account: ACC-${dice.digits(6)}`);
    const title = dice.one(['', '', 'Dr. ', 'Ms. ', 'Mr. ']);
    f.ln('    contact_name: ', pii(`${title}${p.full}`, 'PERSON_NAME', 'yaml'));
    f.ln('    contact_email: ', pii(p.email, 'EMAIL', 'yaml'));
    f.ln('    mobile: ', pii(phone.national, 'PHONE', 'yaml'));
    f.ln('    born: ', pii(people.birthDate().written, 'DATE_OF_BIRTH', 'yaml'));
    f.ln('    card: ', pii(grouped(people.card(), ' '), 'CARD_NUMBER', 'yaml'));
    f.ln(`    tier: ${dice.one(['gold', 'silver', 'bronze'])}`);
  }
}

// ---------------------------------------------------------------- files of hard negatives only

/** Documented test cards (published by card networks and processors for testing), as test data. */
const TEST_CARDS = [
  '4242424242424242',
  '4000056655665556',
  '5555555555554444',
  '378282246310005',
  '6011111111111117',
];

function writeTests(f: FileText, dice: Dice, people: People): void {
  f.ln("import { describe, expect, it } from 'vitest';").ln();
  f.ln("describe('checkout', () => {");
  for (const card of TEST_CARDS) {
    f.ln(`  it('charges ${card.slice(0, 4)}', async () => {`);
    f.ln("    const result = await charge({ card: '", decoy(card, 'test-card-in-test'), "', cvc: '123' });");
    f.ln("    expect(result.status).toBe('succeeded');").ln('  });');
  }
  f.ln(
    "  const stripe = new Stripe('",
    decoy(`sk_test_${dice.pick(ALPHABETS.a!, 24)}`, 'test-key-in-test'),
    "');",
  );
  f.ln(
    "  const customer = { email: '",
    decoy('jane.roe@example.com', 'example-email'),
    "', name: 'Test User' };",
  );
  f.ln("  const id = '", decoy(dice.uuid(), 'uuid'), "';");
  f.ln("  const order = '", decoy(people.notCard(), 'luhn-invalid-number'), "';");
  f.ln('});');
}

function writeLockFiles(open: Open, dice: Dice): void {
  const lock = open('package-lock.json');
  lock.ln('{').ln('  "name": "shop",').ln('  "lockfileVersion": 3,').ln('  "packages": {');
  for (let i = 0; i < 60; i++) {
    const name = `${dice.one(['left', 'fast', 'tiny', 'micro', 'safe'])}-${dice.one(['pad', 'glob', 'queue', 'json', 'diff'])}${i}`;
    const version = `${dice.int(0, 9)}.${dice.int(0, 20)}.${dice.int(0, 9)}`;
    lock.ln(`    "node_modules/${name}": {`).ln(`      "version": "${version}",`);
    lock.ln(`      "resolved": "https://registry.npmjs.org/${name}/-/${name}-${version}.tgz",`);
    lock
      .ln('      "integrity": "sha512-', decoy(dice.pick(ALPHABETS.b!, 86) + '==', 'lock-hash'), '"')
      .ln('    },');
  }
  lock.ln('    "": {}').ln('  }').ln('}');
  const sum = open('services/gateway/go.sum');
  for (let i = 0; i < 40; i++) {
    const mod = `github.com/${dice.one(['acme', 'gorilla', 'spf13', 'rs'])}/${dice.one(['mux', 'cobra', 'zerolog', 'pflag'])}${i}`;
    sum.ln(
      `${mod} v1.${dice.int(0, 12)}.${dice.int(0, 9)} h1:`,
      decoy(dice.pick(ALPHABETS.b!, 43) + '=', 'lock-hash'),
    );
  }
  const cargo = open('services/media/Cargo.lock');
  for (let i = 0; i < 30; i++) {
    cargo
      .ln('[[package]]')
      .ln(`name = "crate-${i}"`)
      .ln(`version = "0.${dice.int(1, 30)}.${dice.int(0, 9)}"`);
    cargo.ln('source = "registry+https://github.com/rust-lang/crates.io-index"');
    cargo.ln('checksum = "', decoy(dice.hex(64), 'lock-hash'), '"').ln();
  }
  const poetry = open('services/reports/poetry.lock');
  for (let i = 0; i < 30; i++) {
    poetry
      .ln('[[package]]')
      .ln(`name = "pkg-${i}"`)
      .ln(`version = "${dice.int(1, 5)}.${dice.int(0, 20)}.${dice.int(0, 9)}"`);
    poetry
      .ln('files = [')
      .ln(`    {file = "pkg_${i}-py3-none-any.whl", hash = "sha256:`, decoy(dice.hex(64), 'lock-hash'), '"},')
      .ln(']')
      .ln();
  }
}

function writeDocs(f: FileText, dice: Dice): void {
  f.ln('# Shop platform').ln().ln('## Configuration').ln();
  f.ln('Copy `.env.example` to `.env` and fill in your keys:').ln().ln('```sh');
  f.ln('OPENAI_API_KEY=', decoy('your-api-key-here', 'placeholder'));
  f.ln('STRIPE_SECRET_KEY=', decoy('${STRIPE_SECRET_KEY}', 'placeholder'));
  f.ln('GITHUB_TOKEN=', decoy('ghp_' + 'x'.repeat(36), 'placeholder'));
  f.ln('AWS_ACCESS_KEY_ID=', decoy('AKIA' + 'IOSFODNN7' + 'EXAMPLE', 'aws-doc-example'));
  f.ln('AWS_SECRET_ACCESS_KEY=', decoy('wJalrXUtnFEMI/K7MDENG/bPxRfiCY' + 'EXAMPLEKEY', 'aws-doc-example'));
  f.ln('SLACK_BOT_TOKEN=', decoy('xoxb-{{ slack_token }}', 'placeholder'));
  f.ln('DATABASE_URL=', decoy('postgres://user:password@localhost:5432/shop', 'placeholder'));
  f.ln('```').ln();
  f.ln(
    'Questions go to ',
    decoy('maintainers@example.com', 'example-email'),
    ' or ',
    decoy('noreply@github.com', 'service-sender'),
    '.',
  );
  f.ln(
    'A customer record looks like `{ "name": "',
    decoy('Jane Doe', 'placeholder-name'),
    '", "phone": "+1 212 555 0143" }`.',
  );
  f.ln(
    'Call the test line on ',
    decoy('(415) 555-0199', 'fiction-phone'),
    ' or ',
    decoy('+44 20 7946 0958', 'fiction-phone'),
    '.',
  );
  f.ln(
    'The staging load balancer is ',
    decoy('203.0.113.10', 'documentation-address'),
    ' and the VPN ',
    decoy('198.51.100.7', 'documentation-address'),
    '.',
  );
  f.ln(
    'An IBAN looks like ',
    decoy('GB82 WEST 1234 5698 7654 32', 'example-iban'),
    '; an SSN like ',
    decoy('078-05-1120', 'published-ssn'),
    '.',
  );
  f.ln('Clone with `git clone ', decoy('git@github.com', 'service-sender'), ':acme-shop/platform.git`.');
  f.ln(
    'The logo is `assets/',
    decoy('logo@2x.png', 'file-name'),
    '`; build `',
    decoy(dice.uuid(), 'uuid'),
    '`.',
  );
}

function writeWebAssets(f: FileText, dice: Dice): void {
  f.ln('<!doctype html>').ln('<html lang="en">').ln('<head>').ln('  <meta charset="utf-8">');
  f.ln('  <style>.brand { color: #', decoy(dice.hex(6), 'hex-color'), '; }</style>')
    .ln('</head>')
    .ln('<body>');
  for (let i = 0; i < 4; i++) {
    f.ln(
      '  <img alt="icon" src="data:image/png;base64,',
      decoy(`iVBORw0KGgo${dice.pick(ALPHABETS.b!, 400)}`, 'base64-image'),
      '">',
    );
  }
  f.ln(
    '  <script src="/assets/app.',
    decoy(dice.hex(20), 'content-hash'),
    '.js" integrity="sha384-',
    decoy(dice.pick(ALPHABETS.b!, 64), 'lock-hash'),
    '"></script>',
  );
  f.ln('</body>').ln('</html>');
}

// ---------------------------------------------------------------- scoring

/** A finding as the scorer reads it: any scanner's, with the file it is in. */
export interface Found {
  file: string;
  line: number;
  column: number;
  category: Category;
  type: string;
  rule: string;
  /** Just after the finding's last character, when the scanner reports its end (secretlint does; svc reports the start only). */
  endLine?: number;
  endColumn?: number;
}

export interface Score {
  planted: number;
  found: number;
  truePositives: number;
  recall: number;
  precision: number;
}

export interface Scored {
  byCategory: Record<Category, Score>;
  /** Planted values no finding matched. */
  missed: Planted[];
  /** Findings that matched no planted value, with the decoy they fell on, if any. */
  falsePositives: (Found & { decoy?: string })[];
  /** Each finding matched to the planted value it found (at most one each way). */
  matches: { planted: Planted; found: Found }[];
}

const before = (a: { line: number; column: number }, b: { line: number; column: number }) =>
  a.line < b.line || (a.line === b.line && a.column < b.column);

/**
 * Whether a finding falls on a planted value: it starts inside the value's span (a rule may report
 * part of it: a URL's password), or, when the finding has an end, the two spans overlap (a rule
 * may report the name with the value: `aws_secret_access_key: ...`).
 */
function inside(found: Found, span: Planted | Decoy): boolean {
  const end = { line: span.endLine, column: span.endColumn };
  if (found.endLine !== undefined && found.endColumn !== undefined) {
    return before(found, end) && before(span, { line: found.endLine, column: found.endColumn });
  }
  return !before(found, span) && before(found, end);
}

/**
 * Matches findings to planted values: a finding matches a value of its category that it starts
 * inside; for personal data the type must agree too (an email found where a phone was planted is
 * no find). Each value is matched once; a second finding on it counts against precision.
 */
export function score(
  corpus: Pick<Corpus, 'planted' | 'decoys'>,
  findings: readonly Found[],
  categories: readonly Category[] = ['secret', 'pii'],
): Scored {
  const byFile = new Map<string, Planted[]>();
  for (const p of corpus.planted) byFile.set(p.file, [...(byFile.get(p.file) ?? []), p]);
  const decoysByFile = new Map<string, Decoy[]>();
  for (const d of corpus.decoys) decoysByFile.set(d.file, [...(decoysByFile.get(d.file) ?? []), d]);
  const taken = new Set<Planted>();
  const matches: Scored['matches'] = [];
  const falsePositives: Scored['falsePositives'] = [];
  for (const found of findings) {
    const candidates = (byFile.get(found.file) ?? []).filter(
      (p) =>
        !taken.has(p) &&
        p.category === found.category &&
        (p.category === 'secret' || p.type === found.type) &&
        inside(found, p),
    );
    const hit = candidates[0];
    if (hit) {
      taken.add(hit);
      matches.push({ planted: hit, found });
    } else {
      const lure = (decoysByFile.get(found.file) ?? []).find((d) => inside(found, d));
      falsePositives.push({ ...found, ...(lure ? { decoy: lure.label } : {}) });
    }
  }
  const byCategory = {} as Record<Category, Score>;
  for (const category of categories) {
    const planted = corpus.planted.filter((p) => p.category === category).length;
    const found = findings.filter((f) => f.category === category).length;
    const truePositives = matches.filter((m) => m.planted.category === category).length;
    byCategory[category] = {
      planted,
      found,
      truePositives,
      recall: planted ? truePositives / planted : 1,
      precision: found ? truePositives / found : 1,
    };
  }
  return {
    byCategory,
    missed: corpus.planted.filter((p) => !taken.has(p)),
    falsePositives,
    matches,
  };
}

/** A scanner's findings of a folder, as the scorer reads them. */
export function asFound(findings: readonly (Finding & { file: string })[]): Found[] {
  return findings.map(({ file, line, column, category, type, rule }) => ({
    file,
    line,
    column,
    category,
    type,
    rule,
  }));
}

/** Phone country codes the generator draws from, for the docs. */
export const PHONE_COUNTRIES = Object.keys(PHONE_SHAPES) as CountryCode[];
