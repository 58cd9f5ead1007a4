// svc on a real terminal: `script` (util-linux, which npm test installs as bsdutils) runs it on a
// pty, so it sees a TTY on stdin, stdout and stderr, as a person's shell gives it.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT, SVC_BIN } from '../e2e/procs.ts';

export const SCRIPT = '/usr/bin/script';

/**
 * Runs `svc args` on a terminal; each time the next prompt text shows, types the next answer.
 * Resolves with the exit code and everything the terminal showed.
 */
export function onTerminal(
  args: string[],
  env: NodeJS.ProcessEnv,
  answers: [prompt: string, typed: string][] = [],
) {
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
