// Every secret rule, by family: the providers' documented formats, then the generic ones. The
// detector (`detector(SECRET_RULES)` from ../detect.ts) runs them in one pass per file.

import type { DetectionRule } from '../detect.ts';
import { AI_RULES } from './ai.ts';
import { CHAT_RULES } from './chat.ts';
import { CLOUD_RULES } from './cloud.ts';
import { DATABASE_RULES } from './databases.ts';
import { GENERIC_RULES } from './generic.ts';
import { KEY_RULES } from './keys.ts';
import { PAYMENT_RULES } from './payment.ts';
import { REGISTRY_RULES } from './registries.ts';
import { SERVICE_RULES } from './services.ts';
import { VCS_RULES } from './vcs.ts';

export { isPlaceholder, isTestFile, bitsPerChar } from './rule.ts';

/** The families of provider-specific rules, named as the docs name them. */
export const SECRET_FAMILIES = {
  cloud: CLOUD_RULES,
  vcs: VCS_RULES,
  chat: CHAT_RULES,
  payment: PAYMENT_RULES,
  ai: AI_RULES,
  registries: REGISTRY_RULES,
  databases: DATABASE_RULES,
  services: SERVICE_RULES,
  keys: KEY_RULES,
} as const satisfies Record<string, readonly DetectionRule[]>;

/** Rules that know no provider: a secret-sounding name, a URL's password, an Authorization header. */
export { GENERIC_RULES };

export const SECRET_RULES: readonly DetectionRule[] = [
  ...Object.values(SECRET_FAMILIES).flat(),
  ...GENERIC_RULES,
];
