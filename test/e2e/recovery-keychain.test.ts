// Recovery with the OS keychain, end to end: a computer whose keys live in a real gnome-keyring
// seals a file and sets up its recovery phrase against the organization's `svc serve`; then its
// data dir and its whole keyring are wiped. A new computer (a new dbus session, a new, empty
// keyring) restores from the phrase into its own keychain, and the file sealed before opens.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { tempDir } from '../helpers.ts';
import { childEnv, killAll, runSvc, startServe } from './procs.ts';

const run = promisify(execFile);
const WORKER = fileURLToPath(new URL('./recovery-keychain-worker.ts', import.meta.url));
const tmp = tempDir('svc-recovery-keychain-');
afterAll(async () => {
  await killAll();
  tmp.cleanup();
});

/** One step of the worker in a dbus session of its own, with a gnome-keyring kept in `keyrings`. */
async function inSession(keyrings: string, env: NodeJS.ProcessEnv, args: string[]) {
  const script = `eval "$(printf svc-test | gnome-keyring-daemon --unlock --components=secrets)" >/dev/null; exec "$@"`;
  const { stdout } = await run(
    'dbus-run-session',
    ['--', 'sh', '-c', script, 'sh', process.execPath, WORKER, ...args],
    {
      timeout: 120_000,
      env: { ...env, XDG_DATA_HOME: keyrings, HOME: keyrings },
    },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, any>;
}

it(
  'restores into a new, empty keychain from the phrase, and a file sealed before opens',
  { timeout: 240_000 },
  async () => {
    for (const tool of ['/usr/bin/dbus-run-session', '/usr/bin/gnome-keyring-daemon']) {
      expect(existsSync(tool), `${tool} is missing: npm test installs gnome-keyring and dbus`).toBe(true);
    }
    const serverEnv = childEnv({ SVC_HOME: join(tmp.dir, 'org-server'), SVC_VAULT: 'file' });
    const org = await runSvc(['org', 'create', '--name', 'Keychain Org', '--json'], serverEnv);
    const { api_key } = org.json() as { api_key: string };
    const server = await startServe(serverEnv);
    const machine = join(tmp.dir, 'machine');
    const file = join(tmp.dir, 'work', 'contract.txt');
    mkdirSync(join(tmp.dir, 'work'));
    writeFileSync(file, 'the signed contract\n');
    // Without the runner's SVC_VAULT=file: the computer keeps its keys as a user's computer does, in
    // the keychain of its session.
    const { SVC_VAULT: _fileVault, ...base } = childEnv({
      SVC_HOME: machine,
      SVC_BASE_URL: server.url,
      SVC_API_KEY: api_key,
    });
    const first = join(tmp.dir, 'keyring-first');
    mkdirSync(first);
    const backup = await inSession(first, base, ['backup', file]);
    expect(backup).toMatchObject({
      protect_code: 0,
      setup_code: 0,
      key_files: false,
      keys: { kind: 'keychain' },
    });
    expect(backup.phrase.split(' ')).toHaveLength(12);
    expect(readFileSync(file).toString('utf8')).not.toContain('the signed contract');

    // The computer is lost: its data dir and its whole keyring.
    rmSync(machine, { recursive: true, force: true });
    rmSync(first, { recursive: true, force: true });

    const second = join(tmp.dir, 'keyring-second');
    mkdirSync(second);
    const restored = await inSession(second, base, ['restore', file, backup.phrase]);
    expect(restored).toMatchObject({
      recover_code: 0,
      recovered: { seals: 1, receipt_id: expect.stringMatching(/^rcpt_/) },
      open_code: 0,
      opened: 'the signed contract\n',
      key_files: false,
      keys: { kind: 'keychain' },
    });
  },
);
