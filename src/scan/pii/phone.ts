// Telephone numbers: in international form (E.164, `+` and a country code) anywhere, and in a
// country's national form on a line that labels it a phone number. Each is validated against the
// country's numbering plan with libphonenumber-js, whose metadata (Google's libphonenumber) is kept
// current by its maintainers. Pure: the library reads no files.

import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { notAfter, type DetectionRule } from '../detect.ts';

/**
 * Countries whose national forms a labelled number is read in, in order: the first whose plan
 * holds the number names it. The United States first (its (415) 555-2671 is the form most written in
 * English text); then the larger plans of Europe, Asia and the Americas.
 */
export const NATIONAL_PHONE_COUNTRIES: readonly CountryCode[] = [
  'US',
  'GB',
  'DE',
  'FR',
  'ES',
  'IT',
  'NL',
  'IN',
  'AU',
  'BR',
  'JP',
];

/**
 * Ranges set aside for fiction and documentation, E.164 digits as prefixes: NANPA's 555-0100 to
 * 555-0199 (in every area code; matched in `isFictional`), and Ofcom's drama ranges (020 7946 0xxx,
 * 0113 496 0xxx, 0117 496 0xxx, 0121 496 0xxx, 0131 496 0xxx, 0141 496 0xxx, 0151 496 0xxx,
 * 0161 496 0xxx, 028 9649 6xxx, 07700 900xxx, 0808 157 0xxx, 0909 879 0xxx).
 */
const OFCOM_DRAMA_PREFIXES = [
  '442079460',
  '44113496',
  '44117496',
  '44121496',
  '44131496',
  '44141496',
  '44151496',
  '44161496',
  '442896496',
  '447700900',
  '448081570',
  '449098790',
];

export function isFictional(e164: string): boolean {
  const digits = e164.replace(/^\+/, '');
  if (/^1\d{3}55501\d\d$/.test(digits)) return true;
  return OFCOM_DRAMA_PREFIXES.some((p) => digits.startsWith(p));
}

/**
 * Numbers already validated: the E.164 form, or '' for one that is not valid. Kept until the
 * current run of code ends (a scan thread's batch of files, one file of a clean copy), never
 * longer: the numbers a scan met are not held in memory after it.
 */
const validated = new Map<string, string>();
const VALIDATED_MAX = 10_000;
let forgetting = false;

/** A number valid in the plan `country` (or, with a leading `+`, its own), in E.164; else undefined. */
export function validPhone(value: string, country?: CountryCode): string | undefined {
  const key = `${country ?? ''} ${value}`;
  const known = validated.get(key);
  if (known !== undefined) return known || undefined;
  const phone = parsePhoneNumberFromString(value, country ? { defaultCountry: country } : undefined);
  const e164 = phone?.isValid() ? phone.number : undefined;
  // A parse costs tens of microseconds and a file repeats its numbers (a list of contacts, the
  // same support line in every page): the answers are kept, a bounded number of them.
  if (validated.size >= VALIDATED_MAX) validated.clear();
  validated.set(key, e164 ?? '');
  if (!forgetting) {
    forgetting = true;
    queueMicrotask(() => {
      validated.clear();
      forgetting = false;
    });
  }
  return e164;
}

/** How far before a national number its label may start. */
const LABEL_CHARS = 40;

/**
 * Words that label a number as a telephone number, read in the text's own case: `phone` as a word
 * of its own or of a name as code writes it (`customerPhone`, `HOME_PHONE`, `homephone`), after a
 * string's escape (`\tphone:` in JSON), not inside another word (`headphones`, `libphonenumber`,
 * `cellToolbar`); `call` as a word, not code's `fn.call(…)`.
 */
const PHONE_WORDS =
  /(?:(?<![a-z])|(?<=\\[a-z]))phone|(?-i:(?<=[a-z])Phone)|(?:home|work|business|office|emergency|primary)phone|\btel\b|mobile|\bcell(?![a-z])|\bcell(?:phone|ular)|\bfax\b|(?<!\.)\bcall\b(?!\()|whatsapp|\bsms\b|contact|telefon|t[eé]l[eé]phone|\bhandy\b/i;

/**
 * Digits in groups as phone numbers are written: one space, dot or dash between groups, an area code
 * in parentheses. Every group is a maximal run of digits and a separator always comes between two,
 * so the pattern never tries one run split two ways.
 */
const NATIONAL = String.raw`(?:\(\d{1,20}\)[ .-]?)?\d{1,20}(?:[ .-]\d{1,20}){0,5}`;
const INTERNATIONAL = String.raw`\+\d{1,20}(?:[ .-]?\(\d{1,20}\)[ .-]?\d{1,20}|[ .-]\d{1,20}){0,6}`;

/** Dates (2024-01-15, 15.01.2024, 1/15/24) are digits in groups too: never phone numbers. */
const DATE_SHAPE = /^(?:\d{4}[./-]\d{1,2}[./-]\d{1,2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4})(?:$|[ T])/;
/** Four groups of one to three digits between dots: an IPv4 address (the IP rules judge it). */
const DOTTED_QUAD = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * A national number in a range set aside for fiction, as written: NANPA's 555-0100 to 555-0199
 * (with or without an area code) and Ofcom's drama ranges with their trunk `0`. Read before any
 * country's plan, as another country's plan may hold the same digits (`555 0142` is valid in DE).
 */
function fictionalAsWritten(digits: string): boolean {
  if (/^(?:1?\d{3})?55501\d\d$/.test(digits)) return true;
  return digits.startsWith('0') && isFictional(`+44${digits.slice(1)}`);
}

export const PHONE_E164: DetectionRule = {
  id: 'phone-e164',
  category: 'pii',
  type: 'PHONE',
  // A `+` and a digit start every match (a keyword's digit stands for any): `+` alone is in every
  // line of code.
  keywords: ['+0'],
  lead: 0,
  pattern: new RegExp(String.raw`${notAfter(String.raw`\w+`)}(?<value>${INTERNATIONAL})(?![\w]|[.-]\d)`, 'g'),
  confidence: 0.85,
  check(value, { before }) {
    const e164 = validPhone(value);
    if (!e164 || isFictional(e164)) return false;
    return PHONE_WORDS.test(before()) ? 0.95 : 0.85;
  },
};

export const PHONE_NATIONAL: DetectionRule = {
  id: 'phone-national',
  category: 'pii',
  type: 'PHONE',
  keywords: ['phone', 'tel', 'mobile', 'cell', 'fax', 'call', 'whatsapp', 'sms', 'contact', 'handy'],
  // The label is read in the 40 characters before the value: a match starts at most that far
  // after a phone word, and never before one ends (no number holds its label).
  near: LABEL_CHARS,
  lead: 0,
  // Seven characters a number is written with must follow where a match starts: fewer hold fewer
  // than the seven digits a national number has, and code is full of short numbers that would
  // each be a match for `check` to drop.
  pattern: new RegExp(String.raw`(?<![\w+.-])(?=[\d(][\d ().-]{6})(?<value>${NATIONAL})(?![\w]|[.-]\d)`, 'g'),
  // Where those seven characters are: the pattern, dearer at every place, is tried only there, not
  // at every character within 40 of each `call` and `tel` of code.
  locator: /[\d(][\d ().-]{6}/g,
  confidence: 0.8,
  check(value, { before }) {
    const digits = value.replace(/\D/g, '');
    if (digits.length < 7 || digits.length > 15 || DATE_SHAPE.test(value) || DOTTED_QUAD.test(value))
      return false;
    if (fictionalAsWritten(digits)) return false;
    const label = before(LABEL_CHARS);
    // The rest of an international number (`+44 20 7946 0958`) that the E.164 rule judged: not a
    // national number of its own.
    if (/\+\d{1,4}[ .-]?\(?$/.test(label)) return false;
    // National numbers are digits like any other: only a label before it on the line makes one a phone number.
    if (!PHONE_WORDS.test(label)) return false;
    for (const country of NATIONAL_PHONE_COUNTRIES) {
      const e164 = validPhone(value, country);
      if (e164) return isFictional(e164) ? false : 0.8;
    }
    return false;
  },
};
