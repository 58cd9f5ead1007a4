// International bank account numbers (ISO 13616): a country code, two check digits and the
// country's BBAN, at the length the IBAN registry gives that country, whose mod-97 remainder
// (ISO 7064 MOD 97-10) is 1. Pure.

import { notAfter, type DetectionRule } from '../detect.ts';
import { isTestFile } from './context.ts';

/** IBAN length by country, from the SWIFT IBAN registry (ISO 13616). */
export const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BI: 27,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DJ: 27,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FK: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  LY: 25,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MN: 20,
  MR: 27,
  MT: 31,
  MU: 30,
  NI: 28,
  NL: 18,
  NO: 15,
  OM: 23,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  RU: 33,
  SA: 24,
  SC: 31,
  SD: 18,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  SO: 23,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
  YE: 30,
};

/**
 * The example IBANs that the registry, banks and standards print for each country's format: no one
 * holds them, wherever they appear.
 */
export const DOCUMENTED_EXAMPLE_IBANS: ReadonlySet<string> = new Set([
  'GB82WEST12345698765432',
  'GB29NWBK60161331926819',
  'DE89370400440532013000',
  'DE75512108001245126199',
  'FR1420041010050500013M02606',
  'FR7630006000011234567890189',
  'NL91ABNA0417164300',
  'BE68539007547034',
  'ES9121000418450200051332',
  'IT60X0542811101000000123456',
  'CH9300762011623852957',
  'AT611904300234573201',
  'PL61109010140000071219812874',
  'SE4550000000058398257466',
  'NO9386011117947',
  'DK5000400440116243',
  'FI2112345600000785',
  'IE29AIBK93115212345678',
  'PT50000201231234567890154',
  'LU280019400644750000',
]);

/** ISO 7064 MOD 97-10 over an IBAN: country and check digits moved to the end, letters as 10..35. */
export function ibanValid(iban: string): boolean {
  const compact = iban.replace(/ /g, '').toUpperCase();
  if (IBAN_LENGTHS[compact.slice(0, 2)] !== compact.length) return false;
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(compact)) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const c of rearranged) {
    const n = c >= 'A' ? c.charCodeAt(0) - 55 : c.charCodeAt(0) - 48;
    remainder = (remainder * (n > 9 ? 100 : 10) + n) % 97;
  }
  return remainder === 1;
}

export const IBAN: DetectionRule = {
  id: 'iban',
  category: 'pii',
  type: 'IBAN',
  // An IBAN need not be labelled (a column of a payments export): its own start is the keyword, a
  // country of the registry and two check digits (`de00` stands for `DE` and any two digits). Run
  // on every text, the pattern had cost as much as a tenth of a scan.
  keywords: Object.keys(IBAN_LENGTHS).map((country) => `${country.toLowerCase()}00`),
  // Whole, or in the groups of four that the standard prints (the last group shorter).
  pattern: new RegExp(
    String.raw`${notAfter(String.raw`\w`)}(?<value>[A-Z]{2}\d{2}(?:[A-Z0-9]{11,30}|(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,4})?))\b`,
    'g',
  ),
  confidence: 0.85,
  check(value, { before, file }) {
    if (!ibanValid(value)) return false;
    if (DOCUMENTED_EXAMPLE_IBANS.has(value.replace(/ /g, ''))) return false;
    // Test files: a valid IBAN is still a finding there (tests copy real exports), at a lower confidence.
    if (isTestFile(file)) return 0.6;
    return /iban|account|bank|konto/.test(before().toLowerCase()) ? 0.95 : 0.85;
  },
};
