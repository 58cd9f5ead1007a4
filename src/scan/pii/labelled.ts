// Values that are personal only by their label: a person's name (`Name: Jane Doe`, `"full_name":
// "..."`, `first_name=`), and a date of birth (a date next to `born`, `birth`, `DOB`). A CSV's
// columns are labelled by its header, which a rule reading one line cannot see: `csvColumnMatches`
// reads them. Pure.

import { isSupportedCountry, type CountryCode } from 'libphonenumber-js/max';
import type { DetectionRule, Match } from '../detect.ts';
import { baseName, isTestFile } from './context.ts';
import { NATIONAL_PHONE_COUNTRIES, PHONE_NATIONAL, isFictional, validPhone } from './phone.ts';

// ---- Person names

/** Labels that name a person's name: any value under them is a name. */
const PERSON_LABEL = String.raw`(?:full|first|last|given|family|middle|maiden|legal|sur|customer|client|patient|employee|contact|person|holder|cardholder|account[_ ]?holder|birth)[_ -]?name|surname|forename`;
/** Labels that may name a person or a thing (`name`, `author`): the value must read as a person's name. */
const LOOSE_LABEL = String.raw`name|author|maintainer|owner`;

/** One word of a name: a capital, then letters (apostrophes and inner hyphens allowed: O'Brien, Smith-Jones). */
const NAME_WORD = String.raw`\p{Lu}[\p{Ll}\p{Lu}]{0,40}(?:['’-]\p{Lu}?\p{Ll}{1,40}){0,3}\.?`;
/** Lowercase particles inside a name (Ludwig van Beethoven, Maria de la Cruz). */
const PARTICLE = String.raw`(?:van|von|der|den|de|del|della|di|da|la|le|du|bin|ibn|al)`;

/**
 * Words that name things, not people, which titles of builds, steps and records start with or hold
 * (`name: Build Docs`, `"name": "Main Server"`): a value holding one is not a person's name.
 */
const THING_WORDS: ReadonlySet<string> = new Set(
  `add all and api app application backend build bump cache check checkout ci clean client code config
  create data database default demo deploy dev docker docs download example file files format frontend
  generate get install integration lint main make my new node npm package prod production project
  publish python release run server service set setup sample start static stop sync system table
  task test tests the to type unit update upload user users web with your workflow bench org
  organization organisation inc ltd llc gmbh corp company group team foundation bot`
    .split(/\s+/)
    .filter(Boolean),
);

/** Names typed as placeholders: no one's. */
const PLACEHOLDER_NAMES: ReadonlySet<string> = new Set([
  'john doe',
  'jane doe',
  'john smith',
  'jane smith',
  'joe bloggs',
  'fred bloggs',
  'john q public',
  'john q. public',
  'max mustermann',
  'erika mustermann',
  'foo bar',
  'first last',
  'firstname lastname',
  'first name',
  'last name',
  'full name',
  'your name',
  'test user',
]);

/** Whether `value` reads as a person's name: two to five words, none naming a thing, not a placeholder. */
export function readsAsName(value: string, single = false): boolean {
  const words = value.split(/\s+/).filter(Boolean);
  if (words.length > 5 || (!single && words.length < 2)) return false;
  if (PLACEHOLDER_NAMES.has(words.join(' ').toLowerCase())) return false;
  if (words.some((w) => THING_WORDS.has(w.toLowerCase().replace(/\.$/, '')))) return false;
  return true;
}

/** Files where `name` is a package's, a job's or a step's name. */
const NAMED_THINGS_FILE =
  /^(?:package\.json|composer\.json|cargo\.toml|pyproject\.toml|chart\.ya?ml|action\.ya?ml|docker-compose.*\.ya?ml|mkdocs\.ya?ml|manifest\.json)$/;

/** A person-specific label just before a value. */
const STRONG_LABEL_BEFORE = new RegExp(
  String.raw`(?:${PERSON_LABEL})["']?\s{0,40}(?::|=>?)\s{0,40}["'\x60]?$`,
  'i',
);

export const PERSON_NAME: DetectionRule = {
  id: 'person-name',
  category: 'pii',
  type: 'PERSON_NAME',
  keywords: ['name', 'author', 'maintainer', 'owner'],
  // A label, then `:`, `=` or `=>` with optional quotes around label and value, then capitalised
  // words. The label is matched without its case, the value with it.
  pattern: new RegExp(
    String.raw`(?<![\p{L}\d])(?<label>(?i:${PERSON_LABEL}|${LOOSE_LABEL}))["']?\s{0,40}(?::|=>?)\s{0,40}["'\x60]?(?<value>${NAME_WORD}(?:[ \t]{1,40}(?:${PARTICLE}[ \t]{1,40}){0,3}${NAME_WORD}){0,4})(?![\p{L}\d])`,
    'gu',
  ),
  // The pattern needs the `u` flag for letters of every script, which makes each position it tries
  // three times dearer. The locator finds a label's last word, its `:` or `=` and the value's first
  // character without it (no letter of the label is one that `u` also matches by another
  // character, as it matches `s` by `ſ`; a capital is an ASCII one or a unit outside ASCII, an
  // astral capital's first surrogate included), and the pattern is tried only from the longest
  // label's start before it (`account_holder_name`). Most `name:` of code is followed by a lower
  // case word or a quote and one: the pattern is not tried there.
  locator: /(?i:name|author|maintainer|owner)["']?\s{0,40}(?::|=>?)\s{0,40}["'\x60]?[A-Z\u0080-\uffff]/g,
  lead: 'account_holder_'.length,
  // The locator's tail, tried where a label word ends: of the 240,000 `name` in 200 MB of installed
  // packages, only those followed by `:` or `=` and a capital open a window.
  follows: /["']?\s{0,40}(?::|=>?)\s{0,40}["'\x60]?[A-Z\u0080-\uffff]/y,
  confidence: 0.85,
  check(value, { before, file }) {
    const label = before(40).toLowerCase();
    const strong = STRONG_LABEL_BEFORE.test(label);
    if (!readsAsName(value, strong)) return false;
    if (strong) return 0.85;
    if (/(?:^|[/\\])\.github[/\\]/.test(file) || NAMED_THINGS_FILE.test(baseName(file))) return false;
    return 0.6;
  },
};

// ---- Dates of birth

const MONTH = String.raw`(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`;
/**
 * Dates as written: ISO 8601, year/month/day with `/` (as Japan and China write it), day/month/year
 * or month/day/year with `/`, `.` or `-`, and with month names.
 */
const DATE = String.raw`(?:\d{4}-\d{2}-\d{2}|\d{4}\/\d{1,2}\/\d{1,2}|\d{1,2}[./-]\d{1,2}[./-](?:\d{4}|\d{2})|\d{1,2}(?:st|nd|rd|th)? (?i:${MONTH})\.?,? \d{4}|(?i:${MONTH})\.? \d{1,2}(?:st|nd|rd|th)?,? \d{4})`;

/** Words that say a date is someone's birth. */
const BIRTH_WORDS = /(?<!re)birth|\bdob\b|d\.o\.b|\bborn\b|geburt|n[ée]e? le|fecha de nacimiento/;

/** A year a living person may have been born in. */
function plausibleBirthYear(date: string): boolean {
  const years = date.match(/\d{4}/);
  const year = years ? Number(years[0]) : 1900 + Number(date.slice(-2));
  return year >= 1900 && year <= new Date().getUTCFullYear();
}

export const DATE_OF_BIRTH: DetectionRule = {
  id: 'date-of-birth',
  category: 'pii',
  type: 'DATE_OF_BIRTH',
  keywords: ['birth', 'dob', 'd.o.b', 'born', 'geburt', 'née', 'nee le', 'né le', 'ne le', 'nacimiento'],
  // The birth word is read in the 40 characters before the date: a match starts at most that far
  // after it, and never before it ends (no date holds it).
  near: 40,
  lead: 0,
  pattern: new RegExp(String.raw`(?<![\w./-])(?<value>${DATE})(?![\w]|[./-]\d)`, 'g'),
  confidence: 0.85,
  check(value, { before, file }) {
    // Next to: a birth word in the 40 characters before the date.
    if (!BIRTH_WORDS.test(before(40).toLowerCase())) return false;
    if (!plausibleBirthYear(value)) return false;
    return isTestFile(file) ? 0.6 : 0.85;
  },
};

// ---- CSV columns

/** A whole CSV cell that reads as a name, and one that is a date. */
const NAME_CELL = new RegExp(
  String.raw`^${NAME_WORD}(?:\s{1,40}(?:${PARTICLE}\s{1,40})*${NAME_WORD}){0,4}$`,
  'u',
);
const DATE_CELL = new RegExp(String.raw`^${DATE}$`);

/**
 * Header cells that label a column of person names (in English, and the unambiguous words of
 * German, French and Spanish exports), and of dates of birth.
 */
const NAME_HEADER = new RegExp(
  String.raw`^(?:${PERSON_LABEL}|name|author|vorname|nachname|familienname|pr[ée]nom|apellidos?)$`,
  'i',
);
const BIRTH_HEADER =
  /^(?:dob|d\.o\.b\.?|date[_ -]?of[_ -]?birth|birth[_ -]?date|birthdate|birthday|born|geburtsdatum|geburtstag|date[_ -]de[_ -]naissance|fecha[_ -]de[_ -]nacimiento)$/i;
/** Header cells that label a column of telephone numbers, and of a row's country (ISO 3166 alpha-2). */
const PHONE_HEADER =
  /^(?:(?:mobile|cell|home|work|contact|primary|billing|shipping)?[_ -]?(?:phone|telephone|tel|mobile|cell)(?:[_ -]?(?:number|no|nr))?|fax|telefon(?:nummer)?|handy(?:nummer)?|mobil(?:nummer)?|t[ée]l[ée]phone|tel[ée]fono)$/i;
const COUNTRY_HEADER = /^(?:country|country[_ -]?code|billing[_ -]?country|shipping[_ -]?country)$/i;
/** A phone cell: digits in groups as numbers are written, without a `+` (the E.164 rule reads those). */
const PHONE_CELL = /^(?:\(\d{1,5}\)[ .-]?)?\d{1,10}(?:[ .-]\d{1,10}){0,5}$/;

/**
 * A table's records, each its cells with their offsets in `text` (RFC 4180: a quoted cell may hold
 * the delimiter and line breaks, and a quote written twice; its text is what lies between its
 * quotes, as written). Blanks around an unquoted cell are not its text.
 */
interface Cell {
  text: string;
  start: number;
}

function* records(text: string, delimiter: string): Generator<Cell[], void> {
  const n = text.length;
  const blank = (c: string | undefined) => c === ' ' || (c === '\t' && delimiter !== '\t');
  // A byte order mark (Excel's "CSV UTF-8" writes one) is not part of the first header cell.
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (;;) {
    const row: Cell[] = [];
    for (;;) {
      while (blank(text[i])) i++;
      if (text[i] === '"') {
        let k = i + 1;
        for (; k < n; k++) {
          if (text[k] !== '"') continue;
          if (text[k + 1] === '"') k++;
          else break;
        }
        row.push({ text: text.slice(i + 1, Math.min(k, n)), start: i + 1 });
        i = k + 1;
        while (i < n && text[i] !== delimiter && text[i] !== '\n') i++;
      } else {
        let k = i;
        while (k < n && text[k] !== delimiter && text[k] !== '\n') k++;
        row.push({ text: text.slice(i, k).replace(/\s+$/, ''), start: i });
        i = k;
      }
      if (text[i] !== delimiter) break;
      i++;
    }
    yield row;
    if (i >= n) return;
    i++;
  }
}

/**
 * The person-name, date-of-birth and telephone cells of a CSV file, as matches of PERSON_NAME,
 * DATE_OF_BIRTH and PHONE_NATIONAL: the first line is the header, and a column whose header labels
 * names (`name`, `full_name`, `last_name`, ...), dates of birth (`dob`, `date_of_birth`, ...) or
 * phone numbers (`phone`, `mobile`, ...) makes its cells findings when they read as such. A phone
 * cell in national form is valid in the plan of the row's `country` column when there is one, else
 * in one of NATIONAL_PHONE_COUNTRIES. A scan calls it for `.csv` files beside the detector and adds
 * its matches to the detector's.
 */
export function csvColumnMatches(text: string, file = '', delimiter: string = csvDelimiter(text)): Match[] {
  const rows = records(text, delimiter);
  const first = rows.next();
  const header = first.done ? [] : first.value.map((c) => c.text);
  const nameColumns = header.flatMap((h, i) => (NAME_HEADER.test(h) ? [i] : []));
  const birthColumns = header.flatMap((h, i) => (BIRTH_HEADER.test(h) ? [i] : []));
  const phoneColumns = header.flatMap((h, i) => (PHONE_HEADER.test(h) ? [i] : []));
  const countryColumn = header.findIndex((h) => COUNTRY_HEADER.test(h));
  if (nameColumns.length === 0 && birthColumns.length === 0 && phoneColumns.length === 0) return [];
  // `name` and `author` may head a column of things (products, packages): a name under them must
  // have two words or more, and is less sure.
  const single = (i: number) => !/^(?:name|author)$/i.test(header[i]!);
  const found: Match[] = [];
  for (const row of rows) {
    for (const i of nameColumns) {
      const cell = row[i];
      if (!cell || !NAME_CELL.test(cell.text)) continue;
      if (!readsAsName(cell.text, single(i))) continue;
      found.push({
        rule: PERSON_NAME,
        start: cell.start,
        end: cell.start + cell.text.length,
        confidence: single(i) ? 0.85 : 0.6,
      });
    }
    for (const i of birthColumns) {
      const cell = row[i];
      if (!cell || !DATE_CELL.test(cell.text) || !plausibleBirthYear(cell.text)) continue;
      found.push({
        rule: DATE_OF_BIRTH,
        start: cell.start,
        end: cell.start + cell.text.length,
        confidence: isTestFile(file) ? 0.6 : 0.85,
      });
    }
    for (const i of phoneColumns) {
      const cell = row[i];
      if (!cell || !PHONE_CELL.test(cell.text)) continue;
      const country = row[countryColumn]?.text.toUpperCase();
      if (!validNational(cell.text, country)) continue;
      found.push({
        rule: PHONE_NATIONAL,
        start: cell.start,
        end: cell.start + cell.text.length,
        confidence: 0.8,
      });
    }
  }
  return found;
}

/**
 * The delimiter of a `.csv` file: `;` when its first line holds more semicolons than commas (as
 * spreadsheets write CSV where the comma is the decimal mark: German, French, Spanish), else `,`.
 */
export function csvDelimiter(text: string): ',' | ';' {
  const end = text.indexOf('\n');
  const first = end === -1 ? text : text.slice(0, end);
  let commas = 0;
  let semicolons = 0;
  for (const c of first) {
    if (c === ',') commas++;
    else if (c === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
}

/** A national number valid in `country`'s plan (when it names one), else in one of the usual plans; not fiction. */
function validNational(text: string, country: string | undefined): boolean {
  const digits = text.replace(/\D/g, '');
  if (digits.length < 7 || digits.length > 15) return false;
  const plans: readonly CountryCode[] =
    country && isSupportedCountry(country) ? [country] : NATIONAL_PHONE_COUNTRIES;
  for (const plan of plans) {
    const e164 = validPhone(text, plan);
    if (e164) return !isFictional(e164);
  }
  return false;
}
