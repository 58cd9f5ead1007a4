// `svc hook install --client claude`: the real command on settings files as users have them.
// Merged, never clobbering; a second run changes nothing; uninstall gives back what was there; a
// file it cannot read is left alone; and the command it writes really runs the hook.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { tempDir } from '../helpers.ts';

const BIN = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const tmp = tempDir('svc-hook-install-');
afterAll(() => tmp.cleanup());

let n = 0;
function project(settings?: string) {
  const dir = join(tmp.dir, `p${n++}`);
  mkdirSync(join(dir, '.claude'), { recursive: true });
  if (settings !== undefined) writeFileSync(join(dir, '.claude', 'settings.json'), settings);
  return { dir, file: join(dir, '.claude', 'settings.json') };
}

function svc(cwd: string, ...args: string[]) {
  const run = spawnSync(process.execPath, [BIN, 'hook', 'install', '--client', 'claude', ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: join(tmp.dir, 'home') },
    encoding: 'utf8',
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const ORIGINAL = JSON.stringify(
  {
    permissions: { allow: ['Bash(ls)'] },
    hooks: {
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'other-tool check' }] }],
      PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'logger' }] }],
    },
  },
  null,
  4,
);

it('merges into existing settings, keeps every other hook and setting, and uninstall gives back the original', () => {
  const p = project(ORIGINAL);
  expect(svc(p.dir).code).toBe(0);
  const installed = JSON.parse(readFileSync(p.file, 'utf8'));
  expect(installed.permissions).toEqual({ allow: ['Bash(ls)'] });
  expect(installed.hooks.PostToolUse).toEqual(JSON.parse(ORIGINAL).hooks.PostToolUse);
  expect(installed.hooks.PreToolUse[0]).toEqual(JSON.parse(ORIGINAL).hooks.PreToolUse[0]);
  expect(installed.hooks.PreToolUse[1].matcher).toContain('Bash');
  expect(installed.hooks.PreToolUse[1].hooks[0].command).toMatch(/^'\/.+' '\/.+bin\/svc\.js' hook claude$/);
  expect(svc(p.dir, '--uninstall').code).toBe(0);
  expect(JSON.parse(readFileSync(p.file, 'utf8'))).toEqual(JSON.parse(ORIGINAL));
});

it('is idempotent: a second install leaves the file byte for byte as the first wrote it', () => {
  const p = project(ORIGINAL);
  svc(p.dir);
  const first = readFileSync(p.file, 'utf8');
  const again = svc(p.dir, '--json');
  expect(JSON.parse(again.stdout)).toMatchObject({ changed: false });
  expect(readFileSync(p.file, 'utf8')).toBe(first);
});

it('creates the settings file when there is none, and uninstall removes it again', () => {
  const p = project();
  svc(p.dir);
  expect(existsSync(p.file)).toBe(true);
  svc(p.dir, '--uninstall');
  expect(existsSync(p.file)).toBe(false);
  expect(svc(p.dir, '--uninstall').stdout).toMatch(/was not in .*nothing changed/);
});

it('a settings file that is not valid JSON is left untouched, with a usage error saying why', () => {
  const p = project('{ "permissions": ');
  const run = svc(p.dir);
  expect(run.code).not.toBe(0);
  expect(run.stderr).toMatch(/is not valid JSON: fix it first/);
  expect(readFileSync(p.file, 'utf8')).toBe('{ "permissions": ');
});

it('--scope user writes the settings in the home folder', () => {
  const p = project();
  expect(svc(p.dir, '--scope', 'user').code).toBe(0);
  expect(existsSync(join(tmp.dir, 'home', '.claude', 'settings.json'))).toBe(true);
  expect(existsSync(p.file)).toBe(false);
});

it('the command it writes runs the hook from any folder: a Read of a protected file is denied', () => {
  const p = project();
  mkdirSync(join(p.dir, '.svc'));
  writeFileSync(join(p.dir, '.svc', 'rules.json'), JSON.stringify([{ effect: 'deny', paths: ['.env'] }]));
  svc(p.dir);
  const command = JSON.parse(readFileSync(p.file, 'utf8')).hooks.PreToolUse[0].hooks[0].command as string;
  const out = execFileSync('/bin/sh', ['-c', command], {
    cwd: tmp.dir,
    env: { PATH: process.env.PATH ?? '', HOME: join(tmp.dir, 'home'), SVC_HOME: join(tmp.dir, 'svc-home') },
    input: JSON.stringify({
      hook_event_name: 'PreToolUse',
      cwd: p.dir,
      tool_name: 'Read',
      tool_input: { file_path: '.env' },
    }),
    encoding: 'utf8',
  });
  expect(JSON.parse(out).hookSpecificOutput.permissionDecision).toBe('deny');
});
