// Payment card numbers (PANs): 12 to 19 digits, written whole or in the groups printed on cards,
// that pass the Luhn check (ISO/IEC 7812-1, annex B) and start with a range an issuer network
// documents, at a length that network issues. Pure.

import { notAfter, type DetectionRule } from '../detect.ts';
import { isTestFile } from './context.ts';

/**
 * Issuer identification ranges, as the networks publish them: the first digits (a prefix, or an
 * inclusive range of prefixes of one length) and the lengths of card numbers issued under them.
 */
export const CARD_NETWORKS: readonly {
  network: string;
  ranges: readonly (readonly [number, number])[];
  lengths: readonly number[];
}[] = [
  { network: 'visa', ranges: [[4, 4]], lengths: [13, 16, 19] },
  {
    network: 'mastercard',
    ranges: [
      [51, 55],
      [2221, 2720],
    ],
    lengths: [16],
  },
  {
    network: 'amex',
    ranges: [
      [34, 34],
      [37, 37],
    ],
    lengths: [15],
  },
  {
    network: 'discover',
    ranges: [
      [6011, 6011],
      [644, 649],
      [65, 65],
      [622126, 622925],
    ],
    lengths: [16, 17, 18, 19],
  },
  { network: 'jcb', ranges: [[3528, 3589]], lengths: [16, 17, 18, 19] },
  {
    network: 'diners',
    ranges: [
      [300, 305],
      [3095, 3095],
      [36, 36],
      [38, 39],
    ],
    lengths: [14, 15, 16, 17, 18, 19],
  },
  { network: 'unionpay', ranges: [[62, 62]], lengths: [16, 17, 18, 19] },
  {
    network: 'maestro',
    ranges: [
      [5018, 5018],
      [5020, 5020],
      [5038, 5038],
      [5893, 5893],
      [6304, 6304],
      [6759, 6759],
      [6761, 6763],
    ],
    lengths: [12, 13, 14, 15, 16, 17, 18, 19],
  },
  { network: 'mir', ranges: [[2200, 2204]], lengths: [16, 17, 18, 19] },
];

/**
 * Numbers the networks and payment processors publish for testing: no one holds them. Not findings
 * in test files; elsewhere reported at TEST_CARD_CONFIDENCE (a test number outside tests may be a
 * test setting left in a live path, but it is no one's card).
 */
export const DOCUMENTED_TEST_CARDS: ReadonlySet<string> = new Set([
  '4111111111111111',
  '4012888888881881',
  '4222222222222',
  '4242424242424242',
  '4000056655665556',
  '4000000000000002',
  '4000000000009995',
  '5555555555554444',
  '5105105105105100',
  '5200828282828210',
  '2223003122003222',
  '2222400070000005',
  '378282246310005',
  '371449635398431',
  '378734493671000',
  '6011111111111117',
  '6011000990139424',
  '6011000000000004',
  '3056930009020004',
  '30569309025904',
  '38520000023237',
  '36227206271667',
  '3566002020360505',
  '3530111333300000',
  '6200000000000005',
  '6250941006528599',
]);
export const TEST_CARD_CONFIDENCE = 0.3;

/** ISO/IEC 7812-1 annex B: doubling every second digit from the right, the sum is a multiple of 10. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The network whose ranges and lengths hold `digits`, or undefined. */
export function cardNetwork(digits: string): string | undefined {
  for (const { network, ranges, lengths } of CARD_NETWORKS) {
    if (!lengths.includes(digits.length)) continue;
    for (const [low, high] of ranges) {
      const prefix = Number(digits.slice(0, String(low).length));
      if (prefix >= low && prefix <= high) return network;
    }
  }
  return undefined;
}

/** Words that say a number on the line is a card's. */
const CARD_WORDS = /card|visa|mastercard|amex|pan\b|cc[_-]?num|payment|credit|debit/;

export const CARD_NUMBER: DetectionRule = {
  id: 'card-number',
  category: 'pii',
  type: 'CARD_NUMBER',
  // Card numbers sit in data of any kind (a CSV of orders names no card), so no word gates the
  // rule: every form starts with a keyword (a keyword's digit stands for any), five digits in a
  // row or a group of four and the next group's first digit.
  keywords: ['00000', '0000 0', '0000-0'],
  lead: 0,
  // Whole (12 to 19 digits), or grouped by spaces or dashes as cards print them: 4-4-4-4(-1..3),
  // 4-6-5 (Amex) and 4-6-4 (Diners).
  pattern: new RegExp(
    String.raw`${notAfter(String.raw`\w.+-`)}(?<value>[2-6]\d{11,18}|[2-6]\d{3}([ -])\d{4}\2\d{4}\2\d{4}(?:\2\d{1,3})?|3\d{3}([ -])\d{6}\3\d{4,5})(?![\w]|[.-]\d)`,
    'g',
  ),
  confidence: 0.8,
  check(value, { before, file }) {
    const digits = value.replace(/[ -]/g, '');
    if (!luhnValid(digits) || cardNetwork(digits) === undefined) return false;
    // Part of an IBAN written in groups (`FR42 8064 4599 5629 7371 3954 118`): its country and check
    // digits, then whole groups, come first.
    if (/[A-Z]{2}\d{2}(?: [A-Z0-9]{4}){0,7} $/.test(before(40))) return false;
    // Fewer than four distinct digits: a pattern someone typed (4111 1111 1111 1111), not an issued number.
    const placeholder = DOCUMENTED_TEST_CARDS.has(digits) || new Set(digits).size < 4;
    if (placeholder) return isTestFile(file) ? false : TEST_CARD_CONFIDENCE;
    if (CARD_WORDS.test(before().toLowerCase())) return 0.95;
    return digits.length === value.length ? 0.8 : 0.9;
  },
};
