// A project with protected files and the rules that protect them, and the real `svc hook CLIENT`
// process run on one event: shared by the tests of the Gemini CLI and Codex formats.
import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers.ts';

const BIN = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));

export interface HookRun {
  code: number;
  /** stdout parsed as JSON; undefined when empty. */
  out: Record<string, any> | undefined;
  stdout: string;
  stderr: string;
}

export function hookProject(prefix: string) {
  const tmp = tempDir(prefix);
  const project = join(tmp.dir, 'shop');
  const home = join(tmp.dir, 'home');
  const svcHome = join(tmp.dir, 'svc-home');
  const file = (path: string, text = 'x') => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
  };
  mkdirSync(join(project, '.git'), { recursive: true });
  file(
    join(project, '.svc', 'rules.json'),
    JSON.stringify([
      { effect: 'deny', paths: ['.env', 'secrets/', '*.pem'], reason: 'keys and tokens' },
      { effect: 'ask', paths: ['exports/*.csv'] },
      { effect: 'redact', paths: ['customers/'] },
    ]),
  );
  for (const path of [
    '.env',
    '.env.example',
    'secrets/key.txt',
    'certs/site.pem',
    'exports/orders.csv',
    'customers/list.txt',
    'src/app.ts',
    'src/deep/util.ts',
    'docs/notes.md',
  ]) {
    file(join(project, path));
  }
  mkdirSync(join(project, 'links'));
  symlinkSync(join(project, '.env'), join(project, 'links', 'settings.txt'));

  /** The real process on one event (an object, or text as it is). */
  function run(client: string, event: object | string, env: Record<string, string> = {}): Promise<HookRun> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'hook', client], {
        env: { PATH: process.env.PATH ?? '', HOME: home, SVC_HOME: svcHome, SVC_VAULT: 'file', ...env },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('error', reject);
      child.on('close', (code) =>
        resolve({
          code: code ?? -1,
          out: stdout.trim() ? (JSON.parse(stdout) as Record<string, any>) : undefined,
          stdout,
          stderr,
        }),
      );
      child.stdin.end(typeof event === 'string' ? event : JSON.stringify(event));
    });
  }

  return { dir: tmp.dir, project, home, cleanup: tmp.cleanup, run };
}
