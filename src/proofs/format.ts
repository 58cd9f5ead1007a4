// The proof wire format shared by the service and the SDK: canonical payload bytes, kid, hashes.
// Pure and portable (no node: imports) so a verifier can run it in any JavaScript runtime.
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

/** Nesting deeper than this is refused: no payload svc signs comes near it, and a cycle ends here. */
const MAX_DEPTH = 256;

/**
 * RFC 8785 text of a value: JSON with every object's names sorted by UTF-16 code units, numbers
 * and strings as ECMAScript's JSON.stringify writes them (the RFC defines them so). What RFC 8785
 * excludes (lone surrogates, non-finite numbers) is refused, so a payload that cannot be signed
 * exactly is never signed at all. Written here rather than taken from a package: the package
 * checked every string a character at a time in JavaScript and sorted every object's names anew,
 * together a fifth of a receipt's cost besides its signature.
 */
export function canonicalText(value: unknown): string {
  // A payload read back from a chain is in canonical order already: for it the engine's own
  // JSON.stringify writes the canonical text, after one walk that proves it would. A walk over a
  // payload that is not stops at its first name out of order.
  if (serializesCanonically(value, 0)) return JSON.stringify(value);
  const text = canonical(value, 0);
  if (text === undefined) throw new TypeError('value cannot be canonicalized');
  return text;
}

/** The RFC 8785 text of one value, or undefined where JSON has none (undefined, a function, a symbol). */
function canonical(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return canonicalString(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`${value} is not allowed in canonical JSON`);
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('a bigint is not allowed in canonical JSON');
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return 'null';
  if (depth >= MAX_DEPTH) throw new TypeError('value is nested too deeply (or refers to itself)');
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return canonical(toJSON.call(value), depth + 1);
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) {
      if (i) text += ',';
      text += canonical(value[i], depth + 1) ?? 'null';
    }
    return text + ']';
  }
  const record = value as Record<string, unknown>;
  let text = '{';
  for (const { name, quoted } of shapeOf(Object.keys(record)).members) {
    const member = canonical(record[name], depth + 1);
    if (member === undefined) continue;
    if (text.length > 1) text += ',';
    text += quoted + ':' + member;
  }
  return text + '}';
}

/** An object's names as Object.keys lists them, and the same in RFC 8785's order, written out. */
interface Shape {
  names: string[];
  members: { name: string; quoted: string }[];
}

/**
 * The shapes met last. The payloads svc signs come in a handful of shapes, each built the same way
 * every time: sorting and quoting a payload's two dozen names was a third of writing it.
 */
const shapes: Shape[] = [];
const SHAPES_KEPT = 32;
let nextShape = 0;

function shapeOf(names: string[]): Shape {
  for (const shape of shapes) if (sameNames(shape.names, names)) return shape;
  const members = [...names].sort().map((name) => ({ name, quoted: canonicalString(name) }));
  const shape = { names, members };
  shapes[nextShape] = shape;
  nextShape = (nextShape + 1) % SHAPES_KEPT;
  return shape;
}

function sameNames(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Whether JSON.stringify writes this value's RFC 8785 text as it is: every object's names already
 * in ascending UTF-16 order (as JSON.stringify meets them: integer-like names come first, so they
 * fail the check unless in order anyway), every string well-formed, every number finite, and
 * nothing JSON.stringify would skip, convert or refuse.
 */
function serializesCanonically(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
      return value.isWellFormed();
    case 'number':
      return Number.isFinite(value);
    case 'boolean':
      return true;
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!serializesCanonically(item, depth + 1)) return false;
    return true;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  const record = value as Record<string, unknown>;
  let previous: string | undefined;
  for (const name in record) {
    if (!Object.hasOwn(record, name)) return false;
    if (previous !== undefined && !(previous < name)) return false;
    if (!name.isWellFormed() || !serializesCanonically(record[name], depth + 1)) return false;
    previous = name;
  }
  return true;
}

function canonicalString(value: string): string {
  if (!value.isWellFormed()) throw new TypeError('a lone surrogate is not allowed in canonical JSON');
  return JSON.stringify(value);
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
