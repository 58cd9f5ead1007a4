// svc_connect in a real browser: headless Chromium (Debian `chromium`, driven by playwright-core)
// approves and denies through the approval page; an expired code is refused; the key lands in a
// real gnome-keyring. The run happens in its own dbus session (see connect-worker.ts).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { tempDir } from '../helpers.ts';

const run = promisify(execFile);
const WORKER = fileURLToPath(new URL('./connect-worker.ts', import.meta.url));
const home = tempDir();
const keyrings = tempDir();
afterAll(() => {
  home.cleanup();
  keyrings.cleanup();
});

it('approve, deny and an expired code, through the real approval page', { timeout: 150_000 }, async () => {
  for (const tool of ['/usr/bin/chromium', '/usr/bin/dbus-run-session', '/usr/bin/gnome-keyring-daemon']) {
    expect(existsSync(tool), `${tool} is missing: npm test installs chromium, gnome-keyring and dbus`).toBe(
      true,
    );
  }
  const script = `eval "$(printf svc-test | gnome-keyring-daemon --unlock --components=secrets)" >/dev/null; exec "$0" "$1" "$2"`;
  // Without the runner's SVC_VAULT=file, the worker and the `svc mcp` it starts pick their vault as
  // a user's machine does: the private keychain of this dbus session.
  const { SVC_VAULT: _fileVault, ...env } = process.env;
  const { stdout } = await run(
    'dbus-run-session',
    ['--', 'sh', '-c', script, process.execPath, WORKER, home.dir],
    {
      timeout: 120_000,
      env: { ...env, XDG_DATA_HOME: keyrings.dir, HOME: keyrings.dir },
    },
  );
  const seen = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, any>;

  const approve = seen.approve;
  expect(approve.result).toMatchObject({ status: 'connected', org_id: expect.stringMatching(/^org_/) });
  expect(approve.visits).toHaveLength(1);
  expect(approve.visits[0]).toMatchObject({
    code: approve.result.user_code,
    machine: seen.hostname,
    result: 'Approved',
  });
  expect(approve.visits[0].message).toContain(approve.result.user_code);
  expect(approve.policy_ok).toBe(true);
  expect(seen.key_in_keychain).toBe(true);
  expect(seen.key_files).toBe(false);
  expect(JSON.stringify(approve.result)).not.toMatch(/ndp_/);

  expect(seen.deny.result).toMatchObject({ status: 'denied', org_id: null });
  expect(seen.deny.visits[0]).toMatchObject({ result: 'Denied' });

  expect(seen.expired).toMatchObject({
    status: 410,
    heading: 'This code has expired',
    poll: { status: 'expired' },
  });
});
