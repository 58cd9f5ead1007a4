// The computer the CLI tests run svc on: a temp home with svc's data dir (key files, never a
// keychain), and a file of rules at this computer's level, empty until a test writes rules to it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { tempDir } from '../helpers.ts';
import { childEnv } from '../e2e/procs.ts';

export function cliComputer(prefix: string) {
  const tmp = tempDir(prefix);
  afterAll(() => tmp.cleanup());
  const rulesFile = join(tmp.dir, 'rules.json');
  writeFileSync(rulesFile, '[]');
  const svcHome = join(tmp.dir, 'svc');
  const env = childEnv({ SVC_HOME: svcHome, SVC_VAULT: 'file', HOME: tmp.dir, SVC_RULES_FILE: rulesFile });
  return { dir: tmp.dir, svcHome, rulesFile, env };
}
