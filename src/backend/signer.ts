// The service signing key: an Ed25519 key kept by the vault, used for every receipt and audit row.
import { createPrivateKey, createPublicKey, hash, sign, verify, type KeyObject } from 'node:crypto';
import type { KeyVault } from '../vault/index.ts';
import { signingKid } from '../proofs/format.ts';

/** RFC 8410 section 7: the PKCS#8 DER prefix before a raw 32-byte Ed25519 seed. */
const RFC8410_ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface PublishedKey {
  signing_kid: string;
  alg: 'Ed25519';
  public_key_hex: string;
}

export class ServiceSigner {
  readonly kid: string;
  readonly publicKeyHex: string;
  private readonly privateKey: KeyObject;
  private readonly publicKeys = new Map<string, KeyObject>();

  constructor(vault: KeyVault) {
    const seed = vault.secret('service-signing-ed25519');
    this.privateKey = createPrivateKey({
      key: Buffer.concat([RFC8410_ED25519_PKCS8_PREFIX, seed]),
      format: 'der',
      type: 'pkcs8',
    });
    const raw = createPublicKey(this.privateKey).export({ format: 'der', type: 'spki' }).subarray(-32);
    this.publicKeyHex = raw.toString('hex');
    this.kid = signingKid(raw);
    this.publicKeys.set(this.kid, createPublicKey(this.privateKey));
  }

  sign(bytes: Uint8Array): string {
    return sign(null, bytes, this.privateKey).toString('hex');
  }

  /** The keys a verifier may trust, by kid. One today; rotation adds entries, never removes. */
  published(): PublishedKey[] {
    return [{ signing_kid: this.kid, alg: 'Ed25519', public_key_hex: this.publicKeyHex }];
  }

  /** The raw public key (hex) published under `kid`, if any. */
  publicKeyHexFor(kid: string): string | undefined {
    const key = this.publicKeys.get(kid);
    return key ? key.export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex') : undefined;
  }

  /** Checks a signature against the published key named by `kid`; unknown kids never verify. */
  verify(kid: string, bytes: Uint8Array, signatureHex: string): boolean {
    const key = this.publicKeys.get(kid);
    if (!key || !/^[0-9a-f]{128}$/.test(signatureHex)) return false;
    return verify(null, bytes, key, Buffer.from(signatureHex, 'hex'));
  }
}

/** One-shot: a Hash object per call costs more than hashing the few hundred bytes of a receipt. */
export function sha256Hex(data: Uint8Array | string): string {
  return hash('sha256', data, 'hex');
}
