// The proof wire format shared by the service and the SDK: canonical payload bytes, kid, hashes.
// Pure and portable (no node: imports) so a verifier can run it in any JavaScript runtime.
import canonicalize from 'canonicalize';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** The payload version every receipt and audit row carries as `v`. */
export const PROOF_FORMAT_VERSION = 1;
/** The first entry of a chain links to 32 zero bytes. */
export const GENESIS_HASH = '0'.repeat(64);

export type ChainName = 'service' | 'audit';

/** Fields every signed payload carries; the rest depends on its kind. */
export interface ProofPayload {
  v: number;
  id: string;
  kind: string;
  chain: ChainName;
  chain_index: number;
  prev_hash: string;
  signed_at: string;
  signing_kid: string;
  [field: string]: unknown;
}

const encoder = new TextEncoder();

/** RFC 8785 (JSON Canonicalization Scheme) bytes: exactly what the Ed25519 signature covers. */
export function canonicalBytes(value: unknown): Uint8Array {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value cannot be canonicalized');
  return encoder.encode(text);
}

/**
 * RFC 8785 text of a signed payload, on the service's hot path. Payloads hold only strings, safe
 * integers, booleans, null, arrays and plain objects; for those, RFC 8785 is JSON.stringify with
 * every object's keys in UTF-16 code-unit order (section 3.2.3), since ECMAScript already
 * serializes strings (3.2.2.2) and integers (3.2.2.3) as the RFC asks. Anything else (a float, a
 * non-finite number, undefined) is refused rather than guessed at. Tests hold this equal to the
 * general `canonicalize` library, which the SDK uses to verify.
 */
export function canonicalPayloadText(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item === 'number' && !Number.isSafeInteger(item)) {
      throw new TypeError(`signed payloads carry integers only, not ${item}`);
    }
    if (item === undefined) throw new TypeError('signed payloads carry no undefined values');
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const sorted = Object.create(null) as Record<string, unknown>;
    for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
    return sorted;
  });
}

/** `signing_kid`: the first 16 hex characters of SHA-256 over the raw 32-byte Ed25519 public key. */
export function signingKid(publicKey: Uint8Array): string {
  return bytesToHex(sha256(publicKey)).slice(0, 16);
}

/** A chain entry's hash: SHA-256 over its canonical payload, which itself names `prev_hash`. */
export function entryHash(payloadBytes: Uint8Array): string {
  return bytesToHex(sha256(payloadBytes));
}
