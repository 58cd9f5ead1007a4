// Set-up on a fresh machine: CI runs only the README's commands, `npm test` provisions the Debian
// packages its tests use (and nothing else), and test processes keep keys out of the real keychain.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { installLine, installer, missing, NEEDS, refusalLine } from '../../scripts/provision.ts';
import { childEnv } from '../e2e/procs.ts';
import { openVault } from '../../src/vault/index.ts';
import { tempDir } from '../helpers.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The lines of a shell script that do something (no shebang, comments or blank lines). */
function commands(script: string): string[] {
  return script
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

function readmeSetUp(): string[] {
  const section = read('README.md')
    .split(/^## /m)
    .find((part) => part.startsWith('Set-up'));
  const block = /```sh\n([\s\S]*?)```/.exec(section ?? '')?.[1];
  expect(block, 'README.md has a "## Set-up" section with an sh block').toBeDefined();
  return commands(block!).map((line) => line.replace(/\s+#.*$/, ''));
}

it("CI runs the README's commands and nothing else", () => {
  const ci = read('.ci/run');
  expect(ci).not.toMatch(/apt-get|apt |dpkg|sudo/);
  const [strict, cd, ...rest] = commands(ci);
  expect(strict).toBe('set -euo pipefail');
  expect(cd).toBe('cd "$(dirname "$0")/.."');
  // Flags that only quiet npm are allowed; the commands themselves are the README's.
  const plain = rest.map((line) => line.replace(/ --no-(audit|fund)\b/g, ''));
  expect(plain).toEqual(['npm install', 'npm test']);
  const readme = readmeSetUp().join('\n');
  for (const command of plain) expect(readme).toContain(command);
});

it("the README's set-up shows npm install and npm test, and npm test provisions first", () => {
  const setUp = readmeSetUp();
  expect(setUp.some((line) => /^npm install\b/.test(line))).toBe(true);
  expect(setUp.some((line) => /^npm test\b/.test(line))).toBe(true);
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  expect(scripts.pretest).toBe('node scripts/provision.ts');
});

it('the package table covers every binary the tests look for, and only packages tests use', () => {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !path.includes(join('test', 'setup'))) files.push(path);
    }
  };
  walk(join(ROOT, 'test'));
  const looked = new Set(
    files.flatMap((file) => readFileSync(file, 'utf8').match(/\/usr\/bin\/[\w.-]+/g) ?? []),
  );
  expect(looked.size).toBeGreaterThan(0);
  const provided = new Set(NEEDS.flatMap((need) => need.binaries));
  for (const binary of looked) expect(provided, `${binary} is in no package of the table`).toContain(binary);

  for (const need of NEEDS) {
    expect(need.tests.length, need.package).toBeGreaterThan(0);
    for (const test of need.tests) {
      expect(existsSync(join(ROOT, test)), `${test} (for ${need.package}) exists`).toBe(true);
      const text = read(test);
      expect(
        need.binaries.some((binary) => text.includes(basename(binary))),
        `${test} uses ${need.package}`,
      ).toBe(true);
    }
  }
});

it('a second run finds everything present, installs nothing and says so', async () => {
  // Runs the real script only when it has nothing to do, so this test never installs anything.
  const absent = missing().map((need) => need.package);
  expect(absent, `missing ${absent.join(', ')}: npm test installs them before the tests`).toEqual([]);
  const { stdout, stderr } = await run(process.execPath, ['scripts/provision.ts'], {
    cwd: ROOT,
    timeout: 10_000,
  });
  expect(stdout).toBe(
    `provision: ${NEEDS.map((need) => need.package).join(', ')} present; nothing to install\n`,
  );
  expect(stderr).toBe('');
});

it('says in one line what it installs and why, or what to install by hand when it cannot', () => {
  const [chromium, keyring] = [NEEDS[0]!, NEEDS[1]!];
  expect(installLine([chromium, keyring])).toBe(
    'provision: installing chromium, gnome-keyring with apt-get, for test/e2e/connect.test.ts, test/e2e/share.test.ts, test/e2e/expose.test.ts, test/vault/keychain.test.ts, test/e2e/recovery-keychain.test.ts',
  );
  expect(installer({ root: true, aptGet: true, sudo: false })).toEqual({ prefix: [] });
  expect(installer({ root: false, aptGet: true, sudo: true })).toEqual({
    prefix: ['sudo', '-n', 'env', 'DEBIAN_FRONTEND=noninteractive'],
  });
  for (const host of [
    { root: false, aptGet: true, sudo: false },
    { root: true, aptGet: false, sudo: false },
  ]) {
    const how = installer(host);
    if (!('refusal' in how)) throw new Error(`expected a refusal for ${JSON.stringify(host)}`);
    const line = refusalLine([chromium, keyring], how.refusal);
    expect(line).not.toContain('\n');
    expect(line).toMatch(/^provision: cannot install chromium, gnome-keyring \(.+\); install them by hand: /);
    expect(line).toMatch(/apt-get install --no-install-recommends chromium gnome-keyring$/);
  }
});

it('test processes keep keys in files, never in a keychain of the session', () => {
  expect(process.env.SVC_VAULT).toBe('file');
  expect(process.env.DBUS_SESSION_BUS_ADDRESS).toMatch(/^unix:path=\/nonexistent\//);
  expect(childEnv({}).SVC_VAULT).toBe('file');
  const { dir, cleanup } = tempDir();
  try {
    expect(openVault(dir).kind).toBe('file');
  } finally {
    cleanup();
  }
});
