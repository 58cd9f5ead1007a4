// Opening the service core: the data dir, the store, the vault and the signer, checked against
// each other. Operations (src/backend/operations) run over what it opens. Apart from the Service
// (service.ts) so that a process that only records (a hook) opens the core without loading the
// operations and their schemas.
import { join } from 'node:path';
import { ensureDataDir } from '../config/paths.ts';
import {
  hasKeyFiles,
  openVault,
  VaultError,
  type KeyVault,
  type OpenedVault,
  type VaultKind,
} from '../vault/index.ts';
import { Store, type StoreOptions } from './store/db.ts';
import { ServiceSigner, sha256Hex } from './signer.ts';
import { Chains } from './chains.ts';
import { DEFAULT_FABRIC_QUOTAS, type Clock, type Context, type FabricQuotas } from './context.ts';
import type { ResolveHost } from './network.ts';

export interface ServiceOptions {
  dataDir: string;
  clock?: Clock;
  vault?: KeyVault;
  store?: StoreOptions;
  /** Quotas of live Fabric envelopes; any left out keep `DEFAULT_FABRIC_QUOTAS`. */
  fabricQuotas?: Partial<FabricQuotas>;
  /** How external API calls resolve host names; the system resolver by default. */
  resolveHost?: ResolveHost;
}

/** Every key the vault holds for this store: the signing key and the two data keys. */
export const STORE_KEYS = ['service-signing-ed25519', 'data-columns', 'capsules'] as const;

/** What the store records of a key (`key_fingerprints`): 16 hex of a hash, never the key. */
export function keyFingerprint(secret: Uint8Array): string {
  return sha256Hex(Buffer.concat([Buffer.from('svc-key-fingerprint\u0000'), secret])).slice(0, 16);
}

/**
 * Records each key's fingerprint on first use and refuses to run on keys that differ: a data dir
 * whose keys/ was lost or replaced would otherwise sign and seal under new keys, and every older
 * receipt and sealed value would stop checking out.
 */
function checkKeysMatchStore(store: Store, vault: KeyVault, clock: Clock): void {
  const fingerprintOf = (name: string) => keyFingerprint(vault.secret(name));
  const recorded = (name: string) =>
    store.getAtStartup<{ fingerprint: string }>(
      'SELECT fingerprint FROM key_fingerprints WHERE name = ?',
      name,
    );
  const compare = (name: string, found: { fingerprint: string }) => {
    if (found.fingerprint !== fingerprintOf(name)) {
      throw new VaultError(
        'corrupt_key',
        `key \`${name}\` in ${vault.location} is not the one this store was written with; restore keys/ from the backup that matches svc.db`,
      );
    }
  };
  // A store that knows all its keys is checked without the write lock: a process that only reads
  // (a hook, a CLI query) must not wait for, or hold up, the writers.
  if (STORE_KEYS.every((name) => recorded(name))) {
    for (const name of STORE_KEYS) compare(name, recorded(name)!);
    return;
  }
  // First run: keys are made and recorded under the lock, so processes starting together on a
  // new data dir agree on one set of keys.
  store.writeAtStartup(() => {
    for (const name of STORE_KEYS) {
      const found = recorded(name);
      if (found) compare(name, found);
      else {
        store.runAtStartup(
          'INSERT INTO key_fingerprints (name, fingerprint, recorded_at) VALUES (?, ?, ?)',
          name,
          fingerprintOf(name),
          clock().toISOString(),
        );
      }
    }
  });
}

export interface OpenedCore {
  ctx: Context;
  dataDir: string;
  /** Where the keys live: the OS keychain, or key files in the data dir (the fallback). */
  vaultKind: VaultKind;
  vaultFallbackReason: string | null;
}

/** Opens the core on a data dir (made on first use), its keys checked against its store. */
export function openCore(options: ServiceOptions): OpenedCore {
  const dataDir = ensureDataDir(options.dataDir);
  const opened: OpenedVault = options.vault
    ? { vault: options.vault, kind: 'file', fallback_reason: 'a vault given by the caller' }
    : openVault(dataDir);
  const store = new Store(join(dataDir, 'svc.db'), options.store);
  try {
    // A store written with keychain keys, opened where no keychain answers, must not get new
    // key files: they would be refused anyway, and would pin the data dir to files for good.
    // (Key files made meanwhile by another process starting on the same new data dir are fine.)
    const written = store.getAtStartup<{ n: number }>('SELECT COUNT(*) AS n FROM key_fingerprints')!.n > 0;
    const fallback = opened.kind === 'file' && opened.fallback_reason?.startsWith('no OS keychain');
    if (written && fallback && !hasKeyFiles(dataDir)) {
      throw new VaultError(
        'unavailable',
        `this store's keys are in the OS keychain, which does not answer here (${opened.fallback_reason}); unlock it and retry`,
      );
    }
    checkKeysMatchStore(store, opened.vault, options.clock ?? (() => new Date()));
  } catch (error) {
    store.close();
    throw error;
  }
  const signer = new ServiceSigner(opened.vault);
  const ctx: Context = {
    store,
    vault: opened.vault,
    signer,
    chains: new Chains(store, signer),
    clock: options.clock ?? (() => new Date()),
    fabricQuotas: { ...DEFAULT_FABRIC_QUOTAS, ...options.fabricQuotas },
    resolveHost: options.resolveHost,
  };
  return { ctx, dataDir, vaultKind: opened.kind, vaultFallbackReason: opened.fallback_reason };
}
