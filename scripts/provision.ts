// The Debian packages the test suite needs, and the pretest step of `npm test` that installs the missing ones.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** A system package some tests need: the binaries they look for, and which tests those are. */
export interface Need {
  package: string;
  binaries: readonly string[];
  tests: readonly string[];
}

const KEYCHAIN_TESTS = [
  'test/vault/keychain.test.ts',
  'test/e2e/connect.test.ts',
  'test/e2e/recovery-keychain.test.ts',
];

// The one list of what the suite takes from the OS. test/setup/provision.test.ts holds it against
// the binaries the tests look for, so a package stays here only while a test uses it.
export const NEEDS: readonly Need[] = [
  // A real browser for the approval page, never a downloaded one.
  {
    package: 'chromium',
    binaries: ['/usr/bin/chromium'],
    tests: ['test/e2e/connect.test.ts', 'test/e2e/share.test.ts', 'test/e2e/expose.test.ts'],
  },
  // A real OS keychain (Secret Service) that the vault stores keys in.
  { package: 'gnome-keyring', binaries: ['/usr/bin/gnome-keyring-daemon'], tests: KEYCHAIN_TESTS },
  // A private session bus per test, so a test's keyring is never the developer's.
  { package: 'dbus', binaries: ['/usr/bin/dbus-run-session', '/usr/bin/dbus-daemon'], tests: KEYCHAIN_TESTS },
  // The real age command, that svc's age files must interoperate with, both ways.
  { package: 'age', binaries: ['/usr/bin/age', '/usr/bin/age-keygen'], tests: ['test/vault/age.test.ts'] },
  // A terminal for age's passphrase prompts, which read from a terminal only, and for svc's own
  // hidden prompts.
  {
    package: 'bsdutils',
    binaries: ['/usr/bin/script'],
    tests: ['test/vault/age.test.ts', 'test/cli/hidden-prompt.test.ts'],
  },
];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The needs of which some binary is not there. */
export function missing(needs: readonly Need[] = NEEDS, present = executable): Need[] {
  return needs.filter((need) => !need.binaries.every(present));
}

export interface Host {
  root: boolean;
  aptGet: boolean;
  /** Whether `sudo -n` runs commands without asking for a password. */
  sudo: boolean;
}

/** How to run apt-get here (the command prefix), or why it cannot be run. */
export function installer(host: Host): { prefix: string[] } | { refusal: string } {
  if (!host.aptGet) return { refusal: 'no apt-get here: not a Debian-like system' };
  if (host.root) return { prefix: [] };
  // sudo drops the environment by default; env carries DEBIAN_FRONTEND through it.
  if (host.sudo) return { prefix: ['sudo', '-n', 'env', 'DEBIAN_FRONTEND=noninteractive'] };
  return { refusal: 'installing needs root, and sudo asks for a password here' };
}

/** The one line that says what gets installed and for which tests. */
export function installLine(needs: readonly Need[]): string {
  const tests = [...new Set(needs.flatMap((need) => need.tests))];
  return `provision: installing ${names(needs)} with apt-get, for ${tests.join(', ')}`;
}

/** The one line for when nothing can be installed: why, and what to install by hand. */
export function refusalLine(needs: readonly Need[], why: string): string {
  return (
    `provision: cannot install ${names(needs)} (${why}); install them by hand: ` +
    `apt-get install --no-install-recommends ${needs.map((need) => need.package).join(' ')}`
  );
}

function names(needs: readonly Need[]): string {
  return needs.map((need) => need.package).join(', ');
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .some((dir) => dir !== '' && executable(join(dir, command)));
}

function probeHost(): Host {
  const root = process.getuid?.() === 0;
  const aptGet = onPath('apt-get');
  const sudo =
    !root && aptGet && onPath('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
  return { root, aptGet, sudo };
}

/** Runs apt-get quietly; on failure, the line of its output that says why. */
function aptGet(prefix: string[], args: string[]): string | undefined {
  const argv = [...prefix, 'apt-get', '-qq', '-o', 'DPkg::Lock::Timeout=300', ...args];
  const result = spawnSync(argv[0]!, argv.slice(1), {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  if (result.status === 0) return undefined;
  const said = `${result.stderr ?? ''}\n${result.stdout ?? ''}`
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  // apt prints warnings before its error; the error ("E: ...") is the line that explains.
  const why = said.find((line) => line.startsWith('E:')) ?? said.at(-1) ?? result.error?.message;
  return `apt-get ${args[0]} failed: ${why ?? `exit ${result.status}`}`;
}

function main(): number {
  const absent = missing();
  if (absent.length === 0) {
    console.log(`provision: ${names(NEEDS)} present; nothing to install`);
    return 0;
  }
  const how = installer(probeHost());
  if ('refusal' in how) {
    console.error(refusalLine(absent, how.refusal));
    return 1;
  }
  console.log(installLine(absent));
  const failure =
    aptGet(how.prefix, ['update']) ??
    aptGet(how.prefix, ['install', '-y', '--no-install-recommends', ...absent.map((need) => need.package)]);
  if (failure) {
    console.error(refusalLine(absent, failure));
    return 1;
  }
  const still = missing(absent);
  if (still.length > 0) {
    const gone = still.flatMap((need) => need.binaries.filter((binary) => !executable(binary)));
    console.error(refusalLine(still, `apt-get finished but ${gone.join(', ')} is still missing`));
    return 1;
  }
  return 0;
}

if (import.meta.main) process.exitCode = main();
