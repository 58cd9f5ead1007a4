// Values typed at svc's hidden prompts, on a real terminal: `script` (util-linux) runs svc on a pty
// whose input is what the test types once the prompt shows. What is typed is never echoed, and
// arrives whole: a vault secret, and an encryption passphrase typed twice (a mismatch refused).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { tempDir } from '../helpers.ts';
import { childEnv, runSvc } from '../e2e/procs.ts';
import { onTerminal, SCRIPT } from './terminal.ts';

const home = tempDir('svc-hidden-prompt-');
afterAll(() => home.cleanup());
const env = childEnv({ SVC_HOME: home.dir });

it('a secret typed at the hidden prompt is kept whole and never shown', { timeout: 60_000 }, async () => {
  expect(existsSync(SCRIPT), `${SCRIPT} is missing: npm test installs bsdutils`).toBe(true);
  const typed = 's3cr3t-typed-value';
  const set = await onTerminal(['secret', 'set', 'API_TOKEN'], env, [['(not shown)', `${typed}\r`]]);
  expect(set.code, set.shown).toBe(0);
  expect(set.shown).toContain('value of API_TOKEN (not shown)');
  expect(set.shown).not.toContain(typed);
  // The value arrived whole: a command run with it sees its length (its output is masked anyway).
  const ran = await runSvc(
    [
      'run',
      '--secret',
      'API_TOKEN',
      '--',
      process.execPath,
      '-e',
      'process.stdout.write(String(process.env.API_TOKEN.length))',
    ],
    env,
  );
  expect(ran.code, ran.stderr).toBe(0);
  expect(ran.stdout).toBe(String(typed.length));
});

it('a passphrase typed twice must match; it is never shown', { timeout: 60_000 }, async () => {
  const plain = join(home.dir, 'plain.txt');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(plain, 'the plans\n');
  const mismatch = await onTerminal(['encrypt', plain, '-p', '-o', join(home.dir, 'refused.age')], env, [
    ['(not shown)', 'first-passphrase\r'],
    ['the same passphrase again', 'other-passphrase\r'],
  ]);
  expect(mismatch.code).toBe(2);
  expect(mismatch.shown).toContain('the two passphrases differ; nothing was encrypted');
  expect(existsSync(join(home.dir, 'refused.age'))).toBe(false);
  const out = join(home.dir, 'plain.age');
  const made = await onTerminal(['encrypt', plain, '-p', '-o', out], env, [
    ['(not shown)', 'correct horse battery\r'],
    ['the same passphrase again', 'correct horse battery\r'],
  ]);
  expect(made.code, made.shown).toBe(0);
  expect(made.shown).not.toContain('correct horse');
  const opened = await onTerminal(['decrypt', out, '-p'], env, [['(not shown)', 'correct horse battery\r']]);
  expect(opened.code, opened.shown).toBe(0);
  expect(opened.shown).toContain('the plans');
  expect(opened.shown).not.toContain('correct horse');
});
