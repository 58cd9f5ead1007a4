// The OS keychain as the key store, against a real gnome-keyring daemon in its own dbus session
// (Debian packages gnome-keyring and dbus, which `npm test` installs when missing); and the
// documented fallback to key files where no keychain answers.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, expect, it } from 'vitest';
import { tempDir } from '../helpers.ts';

const run = promisify(execFile);
const WORKER = fileURLToPath(new URL('./keychain-worker.ts', import.meta.url));
const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

it('keeps the keys in a real gnome-keyring; reopening finds them; losing them is refused', async () => {
  for (const tool of ['/usr/bin/dbus-run-session', '/usr/bin/gnome-keyring-daemon']) {
    expect(existsSync(tool), `${tool} is missing: npm test installs gnome-keyring and dbus`).toBe(true);
  }
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  const script = `eval "$(printf svc-test | gnome-keyring-daemon --unlock --components=secrets)" >/dev/null; exec "$0" "$1" "$2"`;
  // A keyring of its own (fresh XDG_DATA_HOME), so a login keyring left on the machine with
  // another password cannot refuse the unlock.
  const keyrings = tempDir();
  cleanups.push(keyrings.cleanup);
  // Without the runner's SVC_VAULT=file the worker picks its vault as a user's machine does, and
  // the keychain it finds is the private one of this dbus session.
  const { SVC_VAULT: _fileVault, ...env } = process.env;
  const { stdout } = await run(
    'dbus-run-session',
    ['--', 'sh', '-c', script, process.execPath, WORKER, dir],
    {
      timeout: 60_000,
      env: { ...env, XDG_DATA_HOME: keyrings.dir, HOME: keyrings.dir },
    },
  );
  const seen = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, any>;
  expect(seen).toMatchObject({
    kind: 'keychain',
    note: null,
    key_files: false,
    same_kid: true,
    reopened_kind: 'keychain',
    proof_authentic: true,
    get_started: { kind: 'local', key_store_kind: 'keychain', key_store_note: null },
  });
  expect(seen.email).toMatch(/@example\.test$/);
  expect(seen.email_again).toBe(seen.email);
  expect(seen.lost_keys).toMatch(/not the one this store was written with/);
  expect(seen.without_keychain).toMatch(/keys are in the OS keychain, which does not answer here/);
  expect(seen.key_files_after).toBe(false);
  expect(existsSync(join(dir, 'keys'))).toBe(false);
});

it('falls back to key files (mode 0600) where no keychain answers, and says so', async () => {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  const probe = `import { Service } from ${JSON.stringify(new URL('../../src/backend/service.ts', import.meta.url).pathname)};
const s = new Service({ dataDir: process.argv[1] });
process.stdout.write(JSON.stringify({ kind: s.vaultKind, note: s.vaultFallbackReason }));
s.close();`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', probe, dir], {
    env: { PATH: process.env.PATH ?? '', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' },
  });
  const seen = JSON.parse(stdout) as { kind: string; note: string };
  expect(seen.kind).toBe('file');
  expect(seen.note).toMatch(/no OS keychain/);
  expect(existsSync(join(dir, 'keys', 'service-signing-ed25519.key'))).toBe(true);
});
