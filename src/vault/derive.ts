// Purpose-bound keys: HKDF-SHA256 (RFC 5869) over a vault secret, one AES-256 key per purpose and owner.
import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import { VaultError } from './key-vault.ts';

/** What one derived key is for. Every field is part of the key: change one and stored data stops opening. */
export interface Derivation {
  /**
   * The versioned name of the use ('svc-column-v1'), the first part of HKDF's info. Two uses of one
   * secret must differ here, so a key made for one can never open the other's values.
   */
  purpose: string;
  /** HKDF's salt, as UTF-8 when text: whom the key belongs to (an organization id, a capsule id). */
  salt: string | Uint8Array;
  /** Further parts of info after the purpose (a table, a column), each preceded by one NUL byte. */
  context?: readonly string[];
}

/** AES-256 keys, for seal.ts. */
export const DERIVED_KEY_BYTES = 32;
/** Vault secrets are 32 random bytes; anything shorter would make the derived key weaker than it looks. */
const MIN_SECRET_BYTES = 32;

/**
 * RFC 5869 HKDF with SHA-256 (extract, then expand to `length` bytes). The building block of
 * `deriveKey`, exported so the RFC's own test cases, whose info is not text, can check it.
 */
export function hkdfSha256(ikm: Uint8Array, salt: Uint8Array, info: Uint8Array, length: number): Buffer {
  return Buffer.from(hkdfSync('sha256', ikm, salt, info, length));
}

/**
 * HKDF's info for a derivation: `purpose NUL context[0] NUL context[1] ...` in UTF-8. A NUL inside a
 * part would let two different derivations share one info (table `a\0b` and column `c`, or table `a`
 * and column `b\0c`), so it is refused; names that reach here never hold one.
 */
export function derivationInfo(derivation: Derivation): string {
  const parts = [derivation.purpose, ...(derivation.context ?? [])];
  if (derivation.purpose === '' || parts.some((part) => part.includes('\u0000'))) {
    throw new VaultError('invalid_name', 'a key purpose is non-empty and no part of it holds a NUL byte');
  }
  return parts.join('\u0000');
}

/**
 * Keys already derived: per secret, then per salt, then per info. Derivation is a pure function of
 * the secret and the derivation, and a vault secret never changes once created, so a key derived
 * once serves the whole process; a read that opens thousands of cells derives each column's key
 * once, and a hit runs no cryptography. Keyed by the secret's own Buffer (vaults hand out the same one
 * each time), so two vaults in one process never share keys, and a secret no longer referenced
 * takes its keys with it.
 */
const derived = new WeakMap<Uint8Array, Map<string, Map<string, KeyObject>>>();

/**
 * The AES-256 key for one purpose, derived from a vault secret with HKDF-SHA256: the secret as input
 * keying material, `salt` as salt and `derivationInfo` as info. Returned as a KeyObject, which
 * node:crypto takes several times faster than raw key bytes per cipher.
 */
export function deriveKey(secret: Uint8Array, derivation: Derivation): KeyObject {
  if (!(secret instanceof Uint8Array) || secret.byteLength < MIN_SECRET_BYTES) {
    throw new VaultError(
      'invalid_key',
      `a key is derived from a secret of at least ${MIN_SECRET_BYTES} bytes`,
    );
  }
  const info = derivationInfo(derivation);
  const { salt } = derivation;
  // Text and byte salts are kept apart by a prefix, so two different salts never share an entry.
  const saltId = typeof salt === 'string' ? `t${salt}` : `b${Buffer.from(salt).toString('base64')}`;
  let bySalt = derived.get(secret);
  if (!bySalt) derived.set(secret, (bySalt = new Map()));
  let keys = bySalt.get(saltId);
  if (!keys) bySalt.set(saltId, (keys = new Map()));
  let key = keys.get(info);
  if (!key) {
    const saltBytes = typeof salt === 'string' ? Buffer.from(salt, 'utf8') : salt;
    const bytes = hkdfSha256(secret, saltBytes, Buffer.from(info, 'utf8'), DERIVED_KEY_BYTES);
    key = createSecretKey(bytes);
    // createSecretKey copied the key; the loose copy is wiped rather than left to the collector.
    bytes.fill(0);
    keys.set(info, key);
  }
  return key;
}
