// The vault contract shared by every key store: the KeyVault interface, its error and the key-name rule.
export class VaultError extends Error {
  /**
   * Closed, so callers can branch on it. `invalid_key`: a key or secret of the wrong kind or size was
   * handed to sealing or derivation (a programming error). `sealed_corrupt`: a sealed value did not
   * open (truncated, altered, not base64, or sealed under another key or for another place); GCM
   * cannot tell these apart, and callers must not try. `insecure_file`: a key file someone else
   * could have written; it is not used.
   */
  readonly code:
    'invalid_name' | 'corrupt_key' | 'unavailable' | 'invalid_key' | 'sealed_corrupt' | 'insecure_file';

  constructor(code: VaultError['code'], message: string) {
    super(message);
    this.code = code;
    this.name = 'VaultError';
  }
}

/** Where svc keeps its keys. Each secret is 32 random bytes, created once and then stable. */
export interface KeyVault {
  /** Returns the secret named `name`, creating it on first use. */
  secret(name: string): Buffer;
  /** The secret named `name` when this vault holds it; never creates it. */
  existingSecret(name: string): Buffer | undefined;
  /**
   * Puts back a secret from a backup (svc recover): created when absent, accepted when it already
   * holds these very bytes (a recovery run again), refused (`corrupt_key`) when it holds others.
   */
  restoreSecret(name: string, secret: Uint8Array): void;
  /** Keeps a credential this machine was given (the organization key from svc_connect). */
  putCredential(name: string, value: string): void;
  /** A kept credential, or undefined. */
  getCredential(name: string): string | undefined;
  /** Where the keys live, for status pages (never the keys themselves). */
  readonly location: string;
}

/** Names of keys and credentials: one rule for every store, so a name valid in one is valid in all. */
export const KEY_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
