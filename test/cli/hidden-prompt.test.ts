// Values typed at svc's hidden prompts, on a real terminal: `script` (util-linux) runs svc on a pty
// whose input is what the test types once the prompt shows. What is typed is never echoed, and
// arrives whole: a vault secret, and an encryption passphrase typed twice (a mismatch refused).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { tempDir } from '../helpers.ts';
import { REPO_ROOT, SVC_BIN, childEnv, runSvc } from '../e2e/procs.ts';

const SCRIPT = '/usr/bin/script';
const home = tempDir('svc-hidden-prompt-');
afterAll(() => home.cleanup());
const env = childEnv({ SVC_HOME: home.dir });

/**
 * Runs `svc args` on a terminal; each time the next prompt text shows, types the next answer.
 * Resolves with the exit code and everything the terminal showed.
 */
function onTerminal(args: string[], answers: [prompt: string, typed: string][]) {
  const command = [process.execPath, join(REPO_ROOT, SVC_BIN), ...args].map((a) => `'${a}'`).join(' ');
  const child = spawn(SCRIPT, ['-qec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let shown = '';
  let next = 0;
  let seenUpTo = 0;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    shown += chunk;
    // Typed only once the prompt is there: by then svc has turned echo off, so what the terminal
    // shows afterwards is what svc writes, not the terminal echoing keys.
    while (next < answers.length) {
      const at = shown.indexOf(answers[next]![0], seenUpTo);
      if (at < 0) break;
      seenUpTo = at + answers[next]![0].length;
      child.stdin.write(answers[next]![1]);
      next++;
    }
  });
  child.stderr.resume();
  return new Promise<{ code: number | null; shown: string }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, shown }));
  });
}

it('a secret typed at the hidden prompt is kept whole and never shown', { timeout: 60_000 }, async () => {
  expect(existsSync(SCRIPT), `${SCRIPT} is missing: npm test installs bsdutils`).toBe(true);
  const typed = 's3cr3t-typed-value';
  const set = await onTerminal(['secret', 'set', 'API_TOKEN'], [['(not shown)', `${typed}\r`]]);
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
  const mismatch = await onTerminal(
    ['encrypt', plain, '-p', '-o', join(home.dir, 'refused.age')],
    [
      ['(not shown)', 'first-passphrase\r'],
      ['the same passphrase again', 'other-passphrase\r'],
    ],
  );
  expect(mismatch.code).toBe(2);
  expect(mismatch.shown).toContain('the two passphrases differ; nothing was encrypted');
  expect(existsSync(join(home.dir, 'refused.age'))).toBe(false);
  const out = join(home.dir, 'plain.age');
  const made = await onTerminal(
    ['encrypt', plain, '-p', '-o', out],
    [
      ['(not shown)', 'correct horse battery\r'],
      ['the same passphrase again', 'correct horse battery\r'],
    ],
  );
  expect(made.code, made.shown).toBe(0);
  expect(made.shown).not.toContain('correct horse');
  const opened = await onTerminal(['decrypt', out, '-p'], [['(not shown)', 'correct horse battery\r']]);
  expect(opened.code, opened.shown).toBe(0);
  expect(opened.shown).toContain('the plans');
  expect(opened.shown).not.toContain('correct horse');
});
