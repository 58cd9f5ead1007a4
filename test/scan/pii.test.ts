// The personal-data rules: for every rule a value it finds and a near miss it leaves (a table, with
// an inventory check that no rule lacks either), generated valid and invalid values, the CSV column
// reader, that a finding never carries the value, and that a megabyte of code is scanned quickly.
import { describe, expect, it } from 'vitest';
import { describe as describeMatches, detector } from '../../src/scan/detect.ts';
import { cardNetwork, luhnValid } from '../../src/scan/pii/cards.ts';
import { IBAN_LENGTHS, ibanValid } from '../../src/scan/pii/iban.ts';
import { csvColumnMatches, PII_RULES } from '../../src/scan/pii/index.ts';
import { TABLE_READERS } from '../../src/scan/rules.ts';
import { publicV4, publicV6, v6Groups } from '../../src/scan/pii/ip.ts';
import { ssnValid } from '../../src/scan/pii/ssn.ts';

const pii = detector(PII_RULES);

/** Values the rule finds in text, as [rule id, value]. */
function found(text: string, file = ''): [string, string][] {
  return pii.matches(text, file).map((m) => [m.rule.id, text.slice(m.start, m.end)]);
}

// A seeded generator, so a failing generated value is the same on the next run.
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const next = random(20261123);
const digits = (n: number) => Array.from({ length: n }, () => Math.floor(next() * 10)).join('');

/** A card number of `prefix`, `length` long, with its Luhn check digit. */
function card(prefix: string, length: number): string {
  const body = prefix + digits(length - prefix.length - 1);
  for (let d = 0; d < 10; d++) if (luhnValid(body + d)) return body + d;
  throw new Error('unreachable');
}

/** An IBAN of `country` with a random numeric BBAN and the check digits mod-97 gives it. */
function iban(country: string): string {
  const bban = digits(IBAN_LENGTHS[country]! - 4);
  const numeric = (bban + country + '00').replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  const remainder = Number(BigInt(numeric) % 97n);
  return `${country}${String(98 - remainder).padStart(2, '0')}${bban}`;
}

/** A social security number in the issued ranges, dashed. */
function ssn(): string {
  for (;;) {
    const value = `${digits(3)}-${digits(2)}-${digits(4)}`;
    if (
      ssnValid(value.replace(/-/g, '')) &&
      new Set(value.replace(/-/g, '')).size > 1 &&
      value !== '123-45-6789'
    )
      return value;
  }
}

const GENERATED_VISA = card('4', 16);
const GENERATED_AMEX = card('37', 15);
const GENERATED_IBAN = iban('DE');
const GENERATED_SSN = ssn();
const FR_IBAN = iban('FR');
const grouped = (v: string) => v.replace(/(.{4})(?!$)/g, '$1 ');

interface Case {
  rule: string;
  text: string;
  file?: string;
  /** The value the rule finds; null: a near miss the rule must leave. */
  value: string | null;
}

const CASES: Case[] = [
  // email
  { rule: 'email', text: 'Reach me at amelia.okafor@fastmail.fm', value: 'amelia.okafor@fastmail.fm' },
  { rule: 'email', text: 'mailto:r.tanaka@uni-heidelberg.de', value: 'r.tanaka@uni-heidelberg.de' },
  // A one-letter first label: the shortest domain start the prefilter must let through.
  { rule: 'email', text: 'cc: ines.moreau@x.fr', value: 'ines.moreau@x.fr' },
  { rule: 'email', text: 'support@acme-widgets.io answers', value: 'support@acme-widgets.io' },
  { rule: 'email', text: 'send to jane@example.com', value: null },
  { rule: 'email', text: 'noreply@github.com', value: null },
  { rule: 'email', text: '<img src="logo@2x.png">', value: null },
  { rule: 'email', text: 'git clone git@github.com:org/repo.git', value: null },
  { rule: 'email', text: 'postgres://admin:hunter2@db.internal.net/app', value: null },
  { rule: 'email', text: 'SENTRY_DSN=https://0123abcd4567ef89@o4512.ingest.sentry.io/99', value: null },
  { rule: 'email', text: 'jdbc:oracle:thin:scott/Tiger2024x@db.internal.net:1521:orcl', value: null },
  { rule: 'email', text: 'import x from "@scope/pkg@1.2.3"', value: null },
  // phone-e164
  { rule: 'phone-e164', text: 'Call +44 7911 123456 after six', value: '+44 7911 123456' },
  { rule: 'phone-e164', text: '"tel": "+14155552671"', value: '+14155552671' },
  { rule: 'phone-e164', text: 'reach us: +49 30 901820', value: '+49 30 901820' },
  { rule: 'phone-e164', text: 'offset +123456789 ms', value: null },
  { rule: 'phone-e164', text: 'drama line +44 20 7946 0958', value: null },
  { rule: 'phone-e164', text: 'fiction +1 212 555 0143', value: null },
  // phone-national
  { rule: 'phone-national', text: 'phone: (415) 555-2671', value: '(415) 555-2671' },
  { rule: 'phone-national', text: 'Mobile 07911 123456', value: '07911 123456' },
  { rule: 'phone-national', text: 'order (415) 555-2671 in stock', value: null },
  { rule: 'phone-national', text: 'phone: 12345', value: null },
  { rule: 'phone-national', text: 'call on 2024-01-15', value: null },
  // `phone` inside another word is no label; as a label's last word it is.
  { rule: 'phone-national', text: 'Noise Cancelling Headphones 0151 23456789', value: null },
  { rule: 'phone-national', text: 'HomePhone: 0151 23456789', value: '0151 23456789' },
  { rule: 'phone-national', text: '"customerPhone": "0151 23456789"', value: '0151 23456789' },
  { rule: 'phone-national', text: 'CUSTOMER_PHONE=0151 23456789', value: '0151 23456789' },
  { rule: 'phone-national', text: 'Cell: 0151 23456789', value: '0151 23456789' },
  { rule: 'phone-national', text: 'cellToolbarSeparator:#0151 23456789', value: null },
  { rule: 'phone-national', text: 'e.min.call(e, 2147483648)', value: null },
  { rule: 'phone-national', text: 'call me on 0151 23456789', value: '0151 23456789' },
  // card-number
  { rule: 'card-number', text: `card: ${grouped(GENERATED_VISA)}`, value: grouped(GENERATED_VISA) },
  { rule: 'card-number', text: `"pan":"${GENERATED_VISA}"`, value: GENERATED_VISA },
  { rule: 'card-number', text: `amex ${GENERATED_AMEX}`, value: GENERATED_AMEX },
  {
    rule: 'card-number',
    text: 'stripe test 4242424242424242',
    file: 'src/pay.ts',
    value: '4242424242424242',
  },
  { rule: 'card-number', text: 'stripe test 4242424242424242', file: 'test/pay.test.ts', value: null },
  {
    rule: 'card-number',
    text: "const amex = '378282246310005'",
    file: 'spec/fixtures/cards.json',
    value: null,
  },
  {
    rule: 'card-number',
    text: `card: ${GENERATED_VISA.slice(0, -1)}${(Number(GENERATED_VISA.slice(-1)) + 1) % 10}`,
    value: null,
  },
  { rule: 'card-number', text: `id 9${card('9', 16).slice(1)}`, value: null },
  { rule: 'card-number', text: 'timestamp 1732377600000123', value: null },
  // The last sixteen digits of an IBAN in groups may pass Luhn: they follow its country and check digits.
  { rule: 'card-number', text: `iban: AT61 ${grouped(card('2541', 16))}`, value: null },
  // So may sixteen digits further in, after whole groups.
  { rule: 'card-number', text: `FR42 8064 ${grouped(card('4599', 16))} 118`, value: null },
  // iban
  { rule: 'iban', text: `IBAN: ${grouped(GENERATED_IBAN)}`, value: grouped(GENERATED_IBAN) },
  { rule: 'iban', text: `to ${FR_IBAN} please`, value: FR_IBAN },
  { rule: 'iban', text: 'IBAN: DE89 3704 0044 0532 0130 00', value: null },
  {
    rule: 'iban',
    text: `IBAN ${GENERATED_IBAN.slice(0, 2)}${GENERATED_IBAN.slice(2, 4) === '99' ? '98' : '99'}${GENERATED_IBAN.slice(4)}`,
    value: null,
  },
  { rule: 'iban', text: `IBAN ${GENERATED_IBAN}1`, value: null },
  // us-ssn
  { rule: 'us-ssn', text: `SSN: ${GENERATED_SSN}`, value: GENERATED_SSN },
  { rule: 'us-ssn', text: `ssn=${GENERATED_SSN.replace(/-/g, '')}`, value: GENERATED_SSN.replace(/-/g, '') },
  { rule: 'us-ssn', text: `employee ${GENERATED_SSN}`, value: GENERATED_SSN },
  { rule: 'us-ssn', text: 'SSN: 078-05-1120', value: null },
  { rule: 'us-ssn', text: 'SSN: 666-12-3456', value: null },
  { rule: 'us-ssn', text: 'SSN: 912-12-3456', value: null },
  { rule: 'us-ssn', text: 'SSN: 123-00-4567', value: null },
  { rule: 'us-ssn', text: 'SSN: 123-45-0000', value: null },
  { rule: 'us-ssn', text: 'order 536228726 shipped', value: null },
  // Nine bare digits need their label just before them; a dashed number stands without one.
  {
    rule: 'us-ssn',
    text: `ssn_check(a);${'b'.repeat(60)} 536228726`,
    value: null,
  },
  { rule: 'us-ssn', text: `ssn: see below;${'x'.repeat(60)} ${GENERATED_SSN}`, value: GENERATED_SSN },
  // ip-address-v4
  { rule: 'ip-address-v4', text: 'client ip 81.2.69.160 refused', value: '81.2.69.160' },
  { rule: 'ip-address-v4', text: '31.13.72.36 - - [23/Nov/2026] "GET /"', value: '31.13.72.36' },
  { rule: 'ip-address-v4', text: 'listen 127.0.0.1 and 10.1.2.3 and 192.168.0.12', value: null },
  { rule: 'ip-address-v4', text: 'docs 203.0.113.7 and 198.51.100.4', value: null },
  { rule: 'ip-address-v4', text: 'Release 81.2.69.160 fixes the upload', value: null },
  { rule: 'ip-address-v4', text: 'build 81.2.69.160 passed', value: null },
  { rule: 'ip-address-v4', text: 'deps: update V8 to 81.2.69.160', value: null },
  { rule: 'ip-address-v4', text: 'Git 81.2.69.160 Release Notes', value: null },
  { rule: 'ip-address-v4', text: 'Ed25519 (OID 81.2.69.160)', value: null },
  { rule: 'ip-address-v4', text: 'nameserver 8.8.8.8', value: null },
  { rule: 'ip-address-v4', text: 'AssemblyVersion("1.2.3.4")', value: null },
  { rule: 'ip-address-v4', text: '"version": "4.17.21.30"', value: null },
  { rule: 'ip-address-v4', text: '"lodash": "81.2.69.160"', file: 'package.json', value: null },
  { rule: 'ip-address-v4', text: 'oid 1.3.6.1.4.1.311', value: null },
  // ip-address-v6
  { rule: 'ip-address-v6', text: 'from 2a00:1450:4001:82b::200e', value: '2a00:1450:4001:82b::200e' },
  {
    rule: 'ip-address-v6',
    text: 'peer=2607:f8b0:4005:80c:0:0:0:2004',
    value: '2607:f8b0:4005:80c:0:0:0:2004',
  },
  // Every group four digits, and every group one: the colons fall after and inside the three
  // characters the prefilter finds.
  {
    rule: 'ip-address-v6',
    text: 'src 2606:4700:4400:0000:0000:0000:6812:2a1b',
    value: '2606:4700:4400:0000:0000:0000:6812:2a1b',
  },
  { rule: 'ip-address-v6', text: 'src 2a00:1:2:3:4:5:6:7', value: '2a00:1:2:3:4:5:6:7' },
  { rule: 'ip-address-v6', text: 'bind ::1 or fe80::1ff:fe23:4567:890a', value: null },
  { rule: 'ip-address-v6', text: 'doc 2001:db8:85a3::8a2e:370:7334', value: null },
  { rule: 'ip-address-v6', text: 'at 12:30:45 and mac 00:1a:2b:3c:4d:5e', value: null },
  { rule: 'ip-address-v6', text: 'std::vector<int>; cafe::babe', value: null },
  // date-of-birth
  { rule: 'date-of-birth', text: 'Date of birth: 1984-03-12', value: '1984-03-12' },
  { rule: 'date-of-birth', text: 'DOB 12/03/1990', value: '12/03/1990' },
  { rule: 'date-of-birth', text: 'She was born on 7 March 1961 in Lagos', value: '7 March 1961' },
  { rule: 'date-of-birth', text: 'born: 1984/03/12', value: '1984/03/12' },
  { rule: 'date-of-birth', text: 'created 1984-03-12 by the job', value: null },
  { rule: 'date-of-birth', text: 'birthday party on 2099-01-01', value: null },
  // person-name
  { rule: 'person-name', text: 'Name: Amelia Okafor', value: 'Amelia Okafor' },
  { rule: 'person-name', text: '{"full_name": "Ludwig van Beethoven"}', value: 'Ludwig van Beethoven' },
  { rule: 'person-name', text: "first_name='Renée'", value: 'Renée' },
  { rule: 'person-name', text: 'Name: Иван Петров', value: 'Иван Петров' },
  { rule: 'person-name', text: 'name: Run Tests', file: 'ci/pipeline.yml', value: null },
  { rule: 'person-name', text: '- name: Setup Node', file: '.github/workflows/ci.yml', value: null },
  { rule: 'person-name', text: 'Name: John Doe', value: null },
  { rule: 'person-name', text: "owner: 'Bench Org'", value: null },
  { rule: 'person-name', text: '"name": "Amelia"', value: null },
  { rule: 'person-name', text: 'const name = getName()', value: null },
];

describe('personal-data rules, case by case', () => {
  it.each(
    CASES.filter((c) => c.value !== null).map((c) => [c.rule, c.text, c.file ?? '', c.value!] as const),
  )('%s finds its value in %j (file %j)', (rule, text, file, value) => {
    expect(found(text, file)).toContainEqual([rule, value]);
  });

  it.each(CASES.filter((c) => c.value === null).map((c) => [c.rule, c.text, c.file ?? ''] as const))(
    '%s leaves %j (file %j)',
    (rule, text, file) => {
      expect(found(text, file).filter(([id]) => id === rule)).toEqual([]);
    },
  );

  it('has a value found and a near miss for every rule', () => {
    for (const rule of PII_RULES) {
      expect(
        CASES.some((c) => c.rule === rule.id && c.value !== null),
        `${rule.id} finds`,
      ).toBe(true);
      expect(
        CASES.some((c) => c.rule === rule.id && c.value === null),
        `${rule.id} leaves`,
      ).toBe(true);
    }
    const ids = new Set(PII_RULES.map((r) => r.id));
    expect(CASES.filter((c) => !ids.has(c.rule))).toEqual([]);
  });

  it('declares every rule as personal data with lowercase keywords and a confidence in (0, 1]', () => {
    for (const rule of PII_RULES) {
      expect(rule.category).toBe('pii');
      expect(rule.keywords.every((k) => k === k.toLowerCase())).toBe(true);
      expect(rule.confidence).toBeGreaterThan(0);
      expect(rule.confidence).toBeLessThanOrEqual(1);
    }
  });
});

describe('generated values', () => {
  const networks: [string, number][] = [
    ['4', 16],
    ['51', 16],
    ['2720', 16],
    ['34', 15],
    ['6011', 16],
    ['3530', 16],
    ['36', 14],
    ['62', 16],
  ];
  it.each(networks)(
    'finds a Luhn-valid card of prefix %s and length %i, and leaves it with a wrong check digit',
    (prefix, length) => {
      for (let i = 0; i < 10; i++) {
        const value = card(prefix, length);
        expect(cardNetwork(value)).toBeDefined();
        if (new Set(value).size < 4) continue;
        expect(found(`card ${value}`)).toContainEqual(['card-number', value]);
        const wrong = value.slice(0, -1) + ((Number(value.at(-1)) + 5) % 10);
        expect(found(`card ${wrong}`).filter(([id]) => id === 'card-number')).toEqual([]);
      }
    },
  );

  it.each(['DE', 'GB', 'FR', 'NL', 'ES', 'IT', 'CH', 'NO'])(
    'finds a valid %s IBAN and leaves one with two digits swapped',
    (country) => {
      for (let i = 0; i < 10; i++) {
        const value = iban(country);
        expect(ibanValid(value)).toBe(true);
        expect(found(`IBAN ${value}`)).toContainEqual(['iban', value]);
        const at = 6 + Math.floor(next() * (value.length - 8));
        const swapped = value.slice(0, at) + value[at + 1] + value[at] + value.slice(at + 2);
        if (swapped !== value) expect(ibanValid(swapped)).toBe(false);
      }
    },
  );

  it('finds public IPv6 addresses written every way: groups of one to four digits, zeros padded or not, one run compressed', () => {
    const int = (below: number) => Math.floor(next() * below);
    for (let i = 0; i < 2000; i++) {
      const groups = Array.from({ length: 8 }, () => (int(4) === 0 ? 0 : int(16 ** (1 + int(4)))));
      groups[0] = 0x2000 + int(0x2000);
      const words = groups.map((g) => g.toString(16).padStart(int(3) === 0 ? 4 : 1, '0'));
      const from = int(9);
      const to = from + int(9 - from);
      const value =
        to > from + 1 ? `${words.slice(0, from).join(':')}::${words.slice(to).join(':')}` : words.join(':');
      const parsed = v6Groups(value)!;
      const expected =
        publicV6(parsed) && /\d/.test(value) && parsed.filter((g) => g !== 0).length >= 3 ? [value] : [];
      const got = found(`peer ${value} up`).filter(([id]) => id === 'ip-address-v6');
      expect([value, got.map(([, v]) => v)]).toEqual([value, expected]);
    }
  });

  it('finds valid social security numbers', () => {
    for (let i = 0; i < 20; i++) {
      const value = ssn();
      expect(found(`SSN ${value}`)).toEqual([['us-ssn', value]]);
    }
  });
});

describe('checks', () => {
  it.each([
    ['79927398713', true], // the worked example of ISO/IEC 7812-1 annex B
    ['79927398710', false],
    ['4111111111111111', true],
    ['4111111111111112', false],
  ])('luhnValid(%s) is %s', (value, valid) => expect(luhnValid(value)).toBe(valid));

  it.each([
    ['GB82WEST12345698765432', true], // the ECBS example printed in ISO 13616
    ['GB82WEST12345698765433', false],
    ['GB82WEST1234569876543', false], // too short for GB
    ['XX82WEST12345698765432', false], // no such country
  ])('ibanValid(%s) is %s', (value, valid) => expect(ibanValid(value)).toBe(valid));

  it.each([
    ['536228726', true],
    ['000228726', false],
    ['666228726', false],
    ['936228726', false],
    ['536008726', false],
    ['536220000', false],
  ])('ssnValid(%s) is %s', (value, valid) => expect(ssnValid(value)).toBe(valid));

  it.each([
    ['81.2.69.160', true],
    ['100.64.0.1', false],
    ['172.31.255.255', false],
    ['172.32.0.1', true],
    ['169.254.1.1', false],
    ['255.255.255.255', false],
    ['0.0.0.0', false],
  ])('publicV4(%s) is %s', (value, expected) => expect(publicV4(value)).toBe(expected));

  it.each([
    ['2a00:1450:4001:82b::200e', true],
    ['::1', false],
    ['::ffff:81.2.69.160', false],
    ['fd12:3456:789a::1', false],
    ['ff02::1', false],
    ['2001:db8::1', false],
  ])('publicV6(%s) is %s', (value, expected) => {
    const groups = v6Groups(value);
    expect(groups !== undefined && publicV6(groups)).toBe(expected);
  });

  it.each(['1:2:3:4:5:6:7', '1::2::3', '12345::1', 'g::1', '1:2:3:4:5:6:7:8:9'])(
    'v6Groups(%s) is undefined',
    (value) => expect(v6Groups(value)).toBeUndefined(),
  );
});

describe('labels', () => {
  it('are read before each place a value occurs, not only its first', () => {
    // The same number twice on one line: unlabelled first, then after `phone:`.
    const text = 'order (415) 555-2671 shipped; phone: (415) 555-2671';
    const matches = pii.matches(text).filter((m) => m.rule.id === 'phone-national');
    expect(matches.map((m) => m.start)).toEqual([text.lastIndexOf('(415)')]);
  });

  it('are read within 40 characters of a national number, however long its line', () => {
    const far = `phone: ${'x'.repeat(60)} (415) 555-2671`;
    expect(found(far).filter(([rule]) => rule === 'phone-national')).toEqual([]);
    const minified = `${'a=1;'.repeat(5000)}tel:(415) 555-2671;${'b=2;'.repeat(5000)}`;
    expect(found(minified)).toContainEqual(['phone-national', '(415) 555-2671']);
  });
});

describe('csvColumnMatches', () => {
  const csv = [
    'id,full_name,email,date_of_birth,city',
    '1,Amelia Okafor,amelia@fastmail.fm,1984-03-12,Lagos',
    '2,"Ludwig van Beethoven",,12/03/1990,Bonn',
    '3,Test User,,2099-01-01,',
    '4,n/a,,unknown,Paris',
  ].join('\n');

  it("finds the cells of the header's name and birth-date columns, and leaves placeholders and non-dates", () => {
    const cells = csvColumnMatches(csv, 'exports/customers.csv').map((m) => [
      m.rule.id,
      csv.slice(m.start, m.end),
    ]);
    expect(cells).toEqual([
      ['person-name', 'Amelia Okafor'],
      ['date-of-birth', '1984-03-12'],
      ['person-name', 'Ludwig van Beethoven'],
      ['date-of-birth', '12/03/1990'],
    ]);
  });

  it('reads records, not lines: a quoted cell holding a line break and a comma keeps the columns after it', () => {
    const text =
      'id,note,full_name\r\n1,"first line,\r\nsecond, line",Wilhelmina Carter\r\n2,plain,Amelia Okafor\r\n';
    expect(csvColumnMatches(text).map((m) => text.slice(m.start, m.end))).toEqual([
      'Wilhelmina Carter',
      'Amelia Okafor',
    ]);
  });

  it('reads a TSV file by its tabs, through the scanner', () => {
    const text = 'id\tfull_name\tphone\n1\tWilhelmina Carter\t0151 23456789\n';
    const scanner = detector(PII_RULES, TABLE_READERS);
    expect(scanner.matches(text, 'people.tsv').map((m) => [m.rule.id, text.slice(m.start, m.end)])).toEqual([
      ['person-name', 'Wilhelmina Carter'],
      ['phone-national', '0151 23456789'],
    ]);
  });

  it('reads a `name` column only where its cells read as a full name, and less sure than a person label', () => {
    const text = 'sku,name\n1,Widget\n2,Amelia Okafor\n3,Main Server\n';
    expect(csvColumnMatches(text).map((m) => [text.slice(m.start, m.end), m.confidence])).toEqual([
      ['Amelia Okafor', 0.6],
    ]);
  });

  it('reads a CSV written with semicolons (a spreadsheet where the comma is the decimal mark), German headers too', () => {
    const text = 'Name;Telefon;Geburtsdatum;Betrag\nJürgen Schneider;0171 2345678;27.11.1956;12,50\n';
    expect(csvColumnMatches(text).map((m) => [m.rule.id, text.slice(m.start, m.end)])).toEqual([
      ['person-name', 'Jürgen Schneider'],
      ['date-of-birth', '27.11.1956'],
      ['phone-national', '0171 2345678'],
    ]);
    const german = 'Vorname,Nachname,Handy\nJürgen,Schneider,0171 2345678\n';
    expect(csvColumnMatches(german).map((m) => german.slice(m.start, m.end))).toEqual([
      'Jürgen',
      'Schneider',
      '0171 2345678',
    ]);
    // A comma-separated file whose cells hold semicolons is still read by its commas.
    const commas = 'id,full_name,note\n1,Amelia Okafor,a; b; c\n';
    expect(csvColumnMatches(commas).map((m) => commas.slice(m.start, m.end))).toEqual(['Amelia Okafor']);
  });

  it("finds national phone numbers in a phone column, in the plan of the row's country", () => {
    const text = [
      'id,mobile,country',
      '1,0151 23456789,DE',
      '2,(415) 555-2671,US',
      '3,030 1234567,',
      '4,12345,DE',
      '5,020 7946 0958,GB',
    ].join('\n');
    expect(csvColumnMatches(text).map((m) => [m.rule.id, text.slice(m.start, m.end)])).toEqual([
      ['phone-national', '0151 23456789'],
      ['phone-national', '(415) 555-2671'],
      ['phone-national', '030 1234567'],
    ]);
  });

  it('finds nothing in a CSV whose header names no such column', () => {
    expect(csvColumnMatches('city,country\nLagos,Nigeria\n')).toEqual([]);
  });
});

describe('findings', () => {
  it('never carry the value', () => {
    const text = CASES.filter((c) => c.value !== null && !c.file)
      .map((c) => c.text)
      .join('\n');
    const matches = pii.matches(text);
    const findings = describeMatches(text, matches, (type) => `fp-${type}`);
    expect(findings.length).toBeGreaterThan(20);
    for (const [i, finding] of findings.entries()) {
      const value = text.slice(matches[i]!.start, matches[i]!.end);
      expect(JSON.stringify(finding)).not.toContain(value);
      // Its shape only: the first character, no other letter or digit of any script.
      expect(finding.preview.slice(1), finding.preview).not.toMatch(/[\p{L}\p{N}]/u);
    }
    expect(findings.map((f) => f.preview)).toContain('И*** ******');
  });
});

// How fast is the benchmarks' to measure (npm run bench): a test never asserts a time on a shared
// machine. A pattern that backtracked without bound on these texts would pass the test's time limit.
describe('texts made to be slow', () => {
  it('a megabyte of ordinary code that speaks of names, emails, phones and dates holds none', () => {
    const code = [
      'export interface Customer { name: string; email?: string; phone: string; born?: Date; iban: string }',
      'export function contact(customer: Customer, ip = request.ip): string {',
      '  const name = customer.name.trim(); // Name: the display name, not the legal one',
      '  if (!customer.email?.includes("@")) throw new Error(`no email for ${name}`);',
      '  return `${name} <${customer.email}> tel ${customer.phone} from ${ip}`;',
      '}',
      'const version = "1.2.3"; const port = 8080; const retries = [100, 200, 400, 800];',
      'const ssnPattern = /^\\d{3}-\\d{2}-\\d{4}$/; // date of birth: YYYY-MM-DD, card: 16 digits',
    ].join('\n');
    const text = code.repeat(Math.ceil(1_000_000 / code.length));
    expect(pii.matches(text, 'src/big.ts')).toEqual([]);
    expect(pii.matches(text.replace(/\n/g, ' '), 'src/big.ts')).toEqual([]);
  });

  it.each([
    ['digits', '1'.repeat(200_000)],
    ['digit groups', '1234 '.repeat(40_000)],
    ['dotted numbers', '1.2.'.repeat(50_000)],
    ['hex and colons', 'abcd:'.repeat(40_000)],
    ['at signs', 'a.a@'.repeat(50_000)],
    ['labels', 'Name: Aa Bb\n'.repeat(16_000)],
    ['capitals and digits', 'DE12ABCD'.repeat(25_000)],
    ['birth words and dates', 'born 1/1/1 '.repeat(20_000)],
    ['phone words and digits', 'phone 1-1-1-1\n'.repeat(15_000)],
    // Lines of ordinary length: a rule's second look reads the line a match is on, so one line of
    // hundreds of kilobytes with a match every few characters costs its length per match.
  ])('reads 200 kB of %s and finds only what it holds', (name, text) => {
    const found = pii.matches(text).map((m) => m.rule.id);
    // Sixteen thousand labelled names are sixteen thousand names; the rest is not personal data.
    expect(found).toEqual(name === 'labels' ? Array(16_000).fill('person-name') : []);
  });
});
