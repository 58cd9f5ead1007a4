// Offline receipt verification: needs only the receipt and the service's Ed25519 public key.
// Portable (no node: imports): @noble/curves checks the signature in any JavaScript runtime.
import { ed25519 } from '@noble/curves/ed25519.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { canonicalBytes, entryHash, signingKid } from '../proofs/format.ts';

export interface SignedReceipt {
  receipt_id: string;
  signature_hex: string;
  signing_kid: string;
  signed_at: string;
  hash?: string;
  chain_index?: number;
  payload: Record<string, unknown>;
}

export interface OfflineVerdict {
  valid: boolean;
  /** Each check by name; `valid` is true only when every one holds. */
  checks: {
    kid_matches_key: boolean;
    payload_matches_receipt: boolean;
    hash_matches: boolean;
    signature: boolean;
  };
}

const HEX64 = /^[0-9a-f]{64}$/;
const HEX128 = /^[0-9a-f]{128}$/;

/**
 * Checks that `publicKeyHex` signed this receipt's payload, and that the receipt's own fields
 * (id, kid, time, hash, position) say what the signed payload says. Never throws on bad input.
 */
export function verifyReceiptOffline(receipt: SignedReceipt, publicKeyHex: string): OfflineVerdict {
  const checks = {
    kid_matches_key: false,
    payload_matches_receipt: false,
    hash_matches: false,
    signature: false,
  };
  try {
    if (!HEX64.test(publicKeyHex) || !HEX128.test(receipt.signature_hex)) return { valid: false, checks };
    const publicKey = hexToBytes(publicKeyHex);
    const payload = receipt.payload;
    checks.kid_matches_key =
      signingKid(publicKey) === receipt.signing_kid && payload.signing_kid === receipt.signing_kid;
    checks.payload_matches_receipt =
      payload.id === receipt.receipt_id &&
      payload.signed_at === receipt.signed_at &&
      (receipt.chain_index === undefined || payload.chain_index === receipt.chain_index);
    const bytes = canonicalBytes(payload);
    checks.hash_matches = receipt.hash === undefined || entryHash(bytes) === receipt.hash;
    checks.signature = ed25519.verify(hexToBytes(receipt.signature_hex), bytes, publicKey, { zip215: false });
  } catch {
    return { valid: false, checks };
  }
  return { valid: Object.values(checks).every(Boolean), checks };
}
