// Key custody: the file key store and the choice of vault for a data dir; re-exports the vault contract.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  closeSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  readdirSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { KEY_NAME, VaultError, type KeyVault } from './key-vault.ts';
import { ensurePrivateDir, writeFileAtomic } from '../config/paths.ts';
import { KeychainVault } from './keychain.ts';

// Other modules import the vault contract from here; it lives apart so keychain.ts can share it.
export { VaultError, type KeyVault } from './key-vault.ts';

/**
 * Keys as files in `<data dir>/keys`, mode 0600. Creation is create-if-absent through link(2):
 * when two processes race to create the same key, one wins and both read the winner's bytes.
 */
export class FileKeyVault implements KeyVault {
  readonly location: string;
  private readonly cache = new Map<string, Buffer>();

  constructor(dataDir: string) {
    this.location = join(dataDir, 'keys');
  }

  /** The directory appears with the first key: opening a vault writes nothing. */
  private ensureDir(): void {
    ensurePrivateDir(this.location);
  }

  secret(name: string): Buffer {
    if (!KEY_NAME.test(name)) throw new VaultError('invalid_name', `invalid key name: ${name}`);
    const cached = this.cache.get(name);
    if (cached) return cached;
    const file = join(this.location, `${name}.key`);
    const key = this.read(file) ?? this.create(file);
    this.cache.set(name, key);
    return key;
  }

  existingSecret(name: string): Buffer | undefined {
    if (!KEY_NAME.test(name)) throw new VaultError('invalid_name', `invalid key name: ${name}`);
    return this.cache.get(name) ?? this.read(join(this.location, `${name}.key`));
  }

  restoreSecret(name: string, secret: Uint8Array): void {
    if (!KEY_NAME.test(name)) throw new VaultError('invalid_name', `invalid key name: ${name}`);
    if (secret.byteLength !== 32) throw new VaultError('invalid_key', 'a vault secret is 32 bytes');
    const file = join(this.location, `${name}.key`);
    const held = this.read(file) ?? this.create(file, Buffer.from(secret));
    if (!timingSafeEqual(held, secret)) {
      throw new VaultError(
        'corrupt_key',
        `key \`${name}\` in ${this.location} is another one: it was not replaced`,
      );
    }
    this.cache.set(name, held);
  }

  putCredential(name: string, value: string): void {
    if (!KEY_NAME.test(name)) throw new VaultError('invalid_name', `invalid credential name: ${name}`);
    // Atomic replace: a crash leaves the old credential or the new one, never a torn file.
    this.ensureDir();
    writeFileAtomic(join(this.location, `${name}.cred`), value, 0o600);
  }

  getCredential(name: string): string | undefined {
    if (!KEY_NAME.test(name)) throw new VaultError('invalid_name', `invalid credential name: ${name}`);
    return readPrivate(join(this.location, `${name}.cred`), 'credential');
  }

  private read(file: string): Buffer | undefined {
    const text = readPrivate(file, 'key')?.trim();
    if (text === undefined) return undefined;
    if (!/^[0-9a-f]{64}$/.test(text)) throw new VaultError('corrupt_key', `key file ${file} is damaged`);
    return Buffer.from(text, 'hex');
  }

  /** Creates the key file with `secret` (new random bytes by default), unless another process won the race. */
  private create(file: string, secret: Buffer = randomBytes(32)): Buffer {
    this.ensureDir();
    const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeSync(fd, `${secret.toString('hex')}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      unlinkSync(temp);
    }
    // The new directory entry must reach the disk too, or a power loss could forget the key.
    const dirFd = openSync(this.location, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
    const key = this.read(file);
    if (!key) throw new VaultError('unavailable', `key file ${file} vanished after creation`);
    return key;
  }
}

/**
 * Reads a key or credential file of this vault; undefined when absent. A file that another user
 * owns, or that group or others may write, is refused: whoever could write it could have planted
 * the key that seals this machine's data. One merely readable by others is tightened to 0600.
 */
function readPrivate(file: string, what: 'key' | 'credential'): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new VaultError('unavailable', `cannot read ${what} file ${file}`);
  }
  try {
    const { mode, uid } = fstatSync(fd);
    const owner = process.getuid?.();
    if ((owner !== undefined && uid !== owner) || mode & 0o022) {
      throw new VaultError(
        'insecure_file',
        `${what} file ${file} can be written by another user (mode ${(mode & 0o777).toString(8)}${owner !== undefined && uid !== owner ? `, owner uid ${uid}` : ''}): svc will not use it, since a ${what} planted by someone else would unlock this machine's data to them. Check where it came from; if it is yours, make it yours alone (chmod 600, owned by you) and retry`,
      );
    }
    if (mode & 0o044) fchmodSync(fd, 0o600);
    return readFileSync(fd, 'utf8');
  } catch (error) {
    if (error instanceof VaultError) throw error;
    throw new VaultError('unavailable', `cannot read ${what} file ${file}`);
  } finally {
    closeSync(fd);
  }
}

export type VaultKind = 'keychain' | 'file';

export interface OpenedVault {
  vault: KeyVault;
  kind: VaultKind;
  /** Why the file store is in use, when it is. */
  fallback_reason: string | null;
}

/**
 * The vault for a data dir: a data dir that already has key files keeps them (its store was
 * written with them); otherwise the OS keychain when one answers, else key files (mode 0600).
 * SVC_VAULT=file or SVC_VAULT=keychain forces one.
 */
export function openVault(dataDir: string, env: NodeJS.ProcessEnv = process.env): OpenedVault {
  const forced = env.SVC_VAULT?.trim();
  const file = () => new FileKeyVault(dataDir);
  if (forced === 'file') return { vault: file(), kind: 'file', fallback_reason: 'SVC_VAULT=file' };
  if (forced !== 'keychain' && hasKeyFiles(dataDir)) {
    return { vault: file(), kind: 'file', fallback_reason: 'this data dir already keeps its keys in files' };
  }
  const probe = KeychainVault.available(dataDir);
  if (probe.ok) return { vault: new KeychainVault(dataDir), kind: 'keychain', fallback_reason: null };
  if (forced === 'keychain') throw new VaultError('unavailable', `SVC_VAULT=keychain but ${probe.reason}`);
  return { vault: file(), kind: 'file', fallback_reason: `no OS keychain: ${probe.reason}` };
}

/** Whether this data dir keeps keys as files (it was written without a keychain). */
export function hasKeyFiles(dataDir: string): boolean {
  try {
    return readdirSync(join(dataDir, 'keys')).some((name) => name.endsWith('.key'));
  } catch {
    return false;
  }
}

/** The vault entry where svc_connect keeps this computer's organization key. */
export const ORG_KEY_CREDENTIAL = 'org-key';
