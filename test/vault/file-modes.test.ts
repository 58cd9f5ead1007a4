// What svc keeps is private to its user, whatever state the data dir was found in: a hand-made
// 0755 SVC_HOME is tightened, a database left world-readable is tightened, and a key file someone
// else could have written is refused rather than adopted.
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { Service } from '../../src/backend/service.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { FileKeyVault, VaultError } from '../../src/vault/index.ts';
import { tempDir } from '../helpers.ts';

const dirs: (() => void)[] = [];
afterEach(() => dirs.splice(0).forEach((cleanup) => cleanup()));

const modeOf = (path: string) => statSync(path).mode & 0o777;

function home(): string {
  const { dir, cleanup } = tempDir();
  dirs.push(cleanup);
  return join(dir, 'svc-home');
}

it('a pre-existing 0755 SVC_HOME: the dir becomes 0700, the database and its WAL files 0600', async () => {
  const dir = home();
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  const service = new Service({ dataDir: dir });
  try {
    await service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    expect(modeOf(dir)).toBe(0o700);
    for (const file of ['svc.db', 'svc.db-wal', 'svc.db-shm'])
      expect(modeOf(join(dir, file)), file).toBe(0o600);
    expect(modeOf(join(dir, 'keys'))).toBe(0o700);
  } finally {
    service.close();
  }
});

it('a database and WAL files left at 0644 by an earlier run are tightened to 0600 when the store opens', async () => {
  const dir = home();
  new Service({ dataDir: dir }).close();
  for (const file of ['svc.db', 'svc.db-wal', 'svc.db-shm']) {
    try {
      chmodSync(join(dir, file), 0o644);
    } catch {
      // A clean close may have removed the WAL files; the database itself is always there.
    }
  }
  const service = new Service({ dataDir: dir });
  try {
    await service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    for (const file of ['svc.db', 'svc.db-wal', 'svc.db-shm'])
      expect(modeOf(join(dir, file)), file).toBe(0o600);
  } finally {
    service.close();
  }
});

it('a key file planted at 0666 is refused, not adopted: the vault says why and changes nothing', () => {
  const dir = home();
  mkdirSync(join(dir, 'keys'), { recursive: true, mode: 0o700 });
  const planted = join(dir, 'keys', 'data-columns.key');
  writeFileSync(planted, `${randomBytes(32).toString('hex')}\n`);
  chmodSync(planted, 0o666);
  const error = (() => {
    try {
      new FileKeyVault(dir).secret('data-columns');
    } catch (e) {
      return e;
    }
  })();
  expect(error).toBeInstanceOf(VaultError);
  expect((error as VaultError).code).toBe('insecure_file');
  expect((error as VaultError).message).toMatch(/can be written by another user \(mode 666\).*chmod 600/);
  // Still refused after the vault was asked once: nothing was cached, nothing was changed.
  expect(modeOf(planted)).toBe(0o666);
  expect(() => new FileKeyVault(dir).secret('data-columns')).toThrow(/mode 666/);
});

it('a key file group-writable (0620) is refused too; one merely readable by others (0644) is tightened to 0600', () => {
  const dir = home();
  const vault = new FileKeyVault(dir);
  const key = vault.secret('service-signing-ed25519');
  const file = join(dir, 'keys', 'service-signing-ed25519.key');
  chmodSync(file, 0o644);
  expect(new FileKeyVault(dir).secret('service-signing-ed25519').equals(key)).toBe(true);
  expect(modeOf(file)).toBe(0o600);
  chmodSync(file, 0o620);
  expect(() => new FileKeyVault(dir).secret('service-signing-ed25519')).toThrow(VaultError);
});

it('a credential file planted writable by others is refused the same way', () => {
  const dir = home();
  const vault = new FileKeyVault(dir);
  vault.putCredential('org-key', 'ndp_example');
  expect(modeOf(join(dir, 'keys', 'org-key.cred'))).toBe(0o600);
  chmodSync(join(dir, 'keys', 'org-key.cred'), 0o646);
  expect(() => new FileKeyVault(dir).getCredential('org-key')).toThrow(/credential file .* can be written/);
});
