// United States social security numbers: area, group and serial (AAA-GG-SSSS) in the ranges the
// Social Security Administration issues. Pure.

import type { DetectionRule } from '../detect.ts';

/**
 * Numbers printed in advertising and the SSA's own examples, invalidated or never issued to a
 * person: not findings (078-05-1120, the wallet-insert number; 219-09-9999, the SSA pamphlet's;
 * 123-45-6789, the usual form placeholder).
 */
export const PUBLISHED_SSNS: ReadonlySet<string> = new Set(['078051120', '219099999', '123456789']);

/**
 * Issued ranges: area 001-899 but not 666 (9xx are individual taxpayer numbers, never SSNs), group
 * 01-99, serial 0001-9999.
 */
export function ssnValid(digits: string): boolean {
  if (!/^\d{9}$/.test(digits)) return false;
  const area = Number(digits.slice(0, 3));
  const group = Number(digits.slice(3, 5));
  const serial = Number(digits.slice(5));
  return area !== 0 && area !== 666 && area < 900 && group !== 0 && serial !== 0;
}

/** How far before nine bare digits their label may start: as for a national phone number. */
const SSN_LABEL_CHARS = 40;

/** Words that label a number as a social security number. */
const SSN_WORDS = /ssn|social.?security|soc\.? ?sec|\bss#|taxpayer|\btin\b/;

export const US_SSN: DetectionRule = {
  id: 'us-ssn',
  category: 'pii',
  type: 'US_SSN',
  // The dashed form stands alone (it is the way the number is written); bare nine digits need a
  // label, which `check` reads on the line. Each form starts with a keyword (a keyword's digit
  // stands for any): three digits, a dash or space and two more, or five digits in a row. Three
  // digits alone, in every `200` and `1.000` of code, had opened a window a hundred times a megabyte.
  keywords: ['000-00', '000 00', '00000'],
  lead: 0,
  pattern: /(?<![\w.-])(?<value>\d{3}([- ]?)\d{2}\2\d{4})(?![\w]|[.-]\d)/g,
  confidence: 0.6,
  check(value, { before }) {
    const digits = value.replace(/[- ]/g, '');
    if (!ssnValid(digits) || PUBLISHED_SSNS.has(digits)) return false;
    // One digit repeated (111-11-1111) is a typed placeholder.
    if (new Set(digits).size === 1) return false;
    // A dashed number stands alone, and a label anywhere before it on its line raises it. Nine
    // bare digits (or spaced ones) are digits like any other: only a label just before them makes
    // them a number, as for a national phone number. (Looked for in all 4,096 characters before,
    // a label made each nine-digit run of minified code a search of them, and found `tin` in
    // unrelated code.)
    const dashed = value.includes('-');
    const labelled = SSN_WORDS.test(before(dashed ? undefined : SSN_LABEL_CHARS).toLowerCase());
    if (labelled) return 0.95;
    return dashed ? 0.6 : false;
  },
};
