// The keyed fingerprint of a found value: what a scan reports instead of the value, and what
// feedback, the plan and its application recognise a value by. The key is derived from the vault,
// so the same value has the same fingerprint in every scan this store makes, and nobody without the
// vault can test a guess against a fingerprint.
import { createHmac, createSecretKey } from 'node:crypto';
import { deriveKey } from '../vault/derive.ts';
import type { Context } from './context.ts';

/** The fingerprint key of this store's scans (HKDF over the vault's data secret, its own purpose). */
export function scanKey(ctx: Context): Uint8Array {
  return deriveKey(ctx.vault.secret('data-columns'), {
    purpose: 'svc-scan-fingerprint-v1',
    salt: 'svc',
  }).export();
}

/** A value's fingerprint under `key`: HMAC-SHA256 of its type and the value, 128 bits in hex. */
export function fingerprinter(key: Uint8Array): (type: string, value: string) => string {
  // One key object for every value: made from raw bytes, each HMAC paid for importing the key.
  const secret = createSecretKey(key);
  return (type, value) =>
    createHmac('sha256', secret).update(`${type}\u0000${value}`).digest('hex').slice(0, 32);
}
