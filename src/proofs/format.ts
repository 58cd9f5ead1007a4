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
  return encoder.encode(canonicalText(value));
}

/**
 * RFC 8785 text of a value. The library refuses what RFC 8785 excludes (lone surrogates,
 * non-finite numbers), so a payload that cannot be signed exactly is never signed at all.
 */
export function canonicalText(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value cannot be canonicalized');
  return text;
}

/**
 * The short name svc gives a public key: the first 16 hex characters of SHA-256 over its raw
 * bytes. It is the `signing_kid` of an Ed25519 service key, the Fabric address (kid) of an X25519
 * agent key and the fingerprint of a recovery key: one formula, so server and SDK cannot drift.
 */
export function keyId(publicKey: Uint8Array): string {
  return bytesToHex(sha256(publicKey)).slice(0, 16);
}

/** `signing_kid` of an Ed25519 public key. */
export const signingKid = keyId;

/** A chain entry's hash: SHA-256 over its canonical payload, which itself names `prev_hash`. */
export function entryHash(payloadBytes: Uint8Array): string {
  return bytesToHex(sha256(payloadBytes));
}
