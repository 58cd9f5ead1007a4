// Every rule the scanner runs, and the readers of whole tables: what `svc scan` and svc_scan_folder
// detect. Worker threads load this module by its URL (src/backend/scan-folder.ts).
import type { DetectionRule, TableReader } from './detect.ts';
import { PII_RULES, csvColumnMatches } from './pii/index.ts';
import { SECRET_RULES } from './secrets/index.ts';

export const DETECTION_RULES: readonly DetectionRule[] = [...SECRET_RULES, ...PII_RULES];

export const TABLE_READERS: readonly TableReader[] = [
  { applies: (file) => /\.csv$/i.test(file), matches: (text, file) => csvColumnMatches(text, file) },
  { applies: (file) => /\.tsv$/i.test(file), matches: (text, file) => csvColumnMatches(text, file, '\t') },
];
