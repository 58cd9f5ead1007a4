// Keys in the OS keychain (Secret Service on Linux, Keychain on macOS, Credential Manager on
// Windows) through @napi-rs/keyring. Each data dir gets its own namespace of entries.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { Entry } from '@napi-rs/keyring';
import { KEY_NAME, VaultError, type KeyVault } from './key-vault.ts';

const SERVICE = 'svc';

/** Entries are named `<data dir scope>/<key name>`: two data dirs never share keys. */
export function keychainScope(dataDir: string): string {
  return createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16);
}

export class KeychainVault implements KeyVault {
  readonly location: string;
  private readonly scope: string;
  private readonly cache = new Map<string, Buffer>();

  constructor(dataDir: string) {
    this.scope = keychainScope(dataDir);
    this.location = `OS keychain, service "${SERVICE}", entries "${this.scope}/*"`;
  }

  /** Whether a keychain answers here: a headless machine without one throws on first use. */
  static available(dataDir: string): { ok: true } | { ok: false; reason: string } {
    try {
      // Only a write proves it: some platforms answer reads with nothing yet refuse every write.
      const probe = new Entry(SERVICE, `${keychainScope(dataDir)}/probe`);
      probe.setPassword('probe');
      probe.deletePassword();
      return { ok: true };
    } catch (error) {
      return { ok: false, reason: (error as Error).message };
    }
  }

  secret(name: string): Buffer {
    if (!KEY_NAME.test(name)) throw new VaultError('invalid_name', `invalid key name: ${name}`);
    const cached = this.cache.get(name);
    if (cached) return cached;
    const entry = new Entry(SERVICE, `${this.scope}/${name}`);
    let stored = this.read(entry, name);
    if (!stored) {
      // Callers create keys under the store's write lock, so two processes never race here.
      entry.setPassword(randomBytes(32).toString('hex'));
      stored = this.read(entry, name);
      if (!stored) throw new VaultError('unavailable', `the keychain did not keep key ${name}`);
    }
    this.cache.set(name, stored);
    return stored;
  }

  existingSecret(name: string): Buffer | undefined {
    if (!KEY_NAME.test(name)) throw new VaultError('invalid_name', `invalid key name: ${name}`);
    return this.cache.get(name) ?? this.read(new Entry(SERVICE, `${this.scope}/${name}`), name);
  }

  restoreSecret(name: string, secret: Uint8Array): void {
    if (!KEY_NAME.test(name)) throw new VaultError('invalid_name', `invalid key name: ${name}`);
    if (secret.byteLength !== 32) throw new VaultError('invalid_key', 'a vault secret is 32 bytes');
    const entry = new Entry(SERVICE, `${this.scope}/${name}`);
    let held = this.read(entry, name);
    if (!held) {
      entry.setPassword(Buffer.from(secret).toString('hex'));
      held = this.read(entry, name);
      if (!held) throw new VaultError('unavailable', `the keychain did not keep key ${name}`);
    }
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
    new Entry(SERVICE, `${this.scope}/credential/${name}`).setPassword(value);
  }

  getCredential(name: string): string | undefined {
    if (!KEY_NAME.test(name)) throw new VaultError('invalid_name', `invalid credential name: ${name}`);
    try {
      return new Entry(SERVICE, `${this.scope}/credential/${name}`).getPassword() ?? undefined;
    } catch (error) {
      throw new VaultError('unavailable', `the keychain could not be read: ${(error as Error).message}`);
    }
  }

  /** Removes every key of this data dir from the keychain (used when a data dir is deleted). */
  forget(names: readonly string[], credentials: readonly string[] = []): void {
    for (const name of names) new Entry(SERVICE, `${this.scope}/${name}`).deletePassword();
    for (const name of credentials) new Entry(SERVICE, `${this.scope}/credential/${name}`).deletePassword();
    this.cache.clear();
  }

  private read(entry: Entry, name: string): Buffer | undefined {
    let text: string | null;
    try {
      text = entry.getPassword();
    } catch (error) {
      throw new VaultError('unavailable', `the keychain could not be read: ${(error as Error).message}`);
    }
    if (text === null || text === undefined) return undefined;
    if (!/^[0-9a-f]{64}$/.test(text))
      throw new VaultError('corrupt_key', `keychain entry for ${name} is damaged`);
    return Buffer.from(text, 'hex');
  }
}
