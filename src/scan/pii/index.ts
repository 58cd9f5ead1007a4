// Personal data: the rules that find it, for the detector (`detector(PII_RULES)`), and the reader
// of a CSV's labelled columns. Each rule's module says how its values are validated and what is
// not a finding.

import type { DetectionRule } from '../detect.ts';
import { CARD_NUMBER } from './cards.ts';
import { EMAIL } from './email.ts';
import { IBAN } from './iban.ts';
import { IP_ADDRESS_V4, IP_ADDRESS_V6 } from './ip.ts';
import { DATE_OF_BIRTH, PERSON_NAME } from './labelled.ts';
import { PHONE_E164, PHONE_NATIONAL } from './phone.ts';
import { US_SSN } from './ssn.ts';

export { csvColumnMatches } from './labelled.ts';

export const PII_RULES: readonly DetectionRule[] = [
  EMAIL,
  PHONE_E164,
  PHONE_NATIONAL,
  CARD_NUMBER,
  IBAN,
  US_SSN,
  IP_ADDRESS_V4,
  IP_ADDRESS_V6,
  DATE_OF_BIRTH,
  PERSON_NAME,
];
