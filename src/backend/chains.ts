// The two signed hash chains: the service chain (receipts) and the read-audit chain.
// Each entry's payload names its position and the previous entry's hash; the payload's
// RFC 8785 bytes are hashed (the entry hash) and signed with the service key.
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { Store } from './store/db.ts';
import { ServiceError } from './errors.ts';
import { sha256Hex, type ServiceSigner } from './signer.ts';
import {
  GENESIS_HASH,
  PROOF_FORMAT_VERSION,
  canonicalText,
  type ChainName,
  type ProofPayload,
} from '../proofs/format.ts';

const TABLE: Record<ChainName, string> = { service: 'service_chain', audit: 'audit_chain' };
const ID_PREFIX: Record<ChainName, string> = { service: 'rcpt', audit: 'aud' };
/**
 * An entry id names its chain and position plus a random part: `rcpt_<chain_index>_<32 hex>`.
 * The position makes lookup a primary-key read (no id index to write on every append); the random
 * part (a v4 UUID's 122 bits) keeps ids unguessable: anyone holding one may read the entry's payload.
 */
const ENTRY_ID = /^(rcpt|aud)_([1-9][0-9]{0,15})_([0-9a-f]{32})$/;

/** RFC 8785 cannot canonicalize every JSON text (a lone surrogate, say): such a request is refused. */
function signableText(payload: ProofPayload): string {
  try {
    return canonicalText(payload);
  } catch (error) {
    throw new ServiceError(
      'invalid_request',
      `this request cannot be receipted: ${(error as Error).message}`,
      {
        hint: 'send text as well-formed Unicode (no lone surrogates)',
      },
    );
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function locate(id: string): { chain: ChainName; chainIndex: number } | undefined {
  const match = ENTRY_ID.exec(id);
  if (!match) return undefined;
  return { chain: match[1] === 'rcpt' ? 'service' : 'audit', chainIndex: Number(match[2]) };
}

/** What a caller gets back for a signed entry: the spec's Receipt plus what offline checks need. */
export interface Receipt {
  receipt_id: string;
  chain: ChainName;
  chain_index: number;
  signature_hex: string;
  signing_pubkey_hex: string;
  signing_kid: string;
  signed_at: string;
  hash: string;
  payload: ProofPayload;
}

interface ChainRow {
  chain_index: number;
  id: string;
  org_id: string | null;
  /** The service chain stores the kind in a column too; the audit chain reads it as null. */
  kind: string | null;
  payload: string;
  signing_kid: string;
  signature_hex: string;
  signed_at: string;
  prev_hash: string;
  hash: string;
}

export interface EntryCheck {
  found: boolean;
  chain: ChainName | null;
  chain_index: number | null;
  kind: string | null;
  signed_at: string | null;
  /** The entry is unaltered and its signer is a published service key. */
  authentic: boolean;
  /** The stored entry hashes to its recorded hash, links to both neighbours, and its signature holds. */
  unaltered: boolean;
  signer: { signing_kid: string; signing_pubkey_hex: string } | null;
  checks: Record<string, boolean>;
}

export class Chains {
  private readonly store: Store;
  private readonly signer: ServiceSigner;
  /** The head of each chain as this transaction left it, valid while the write epoch stays the same. */
  private readonly heads = new Map<
    ChainName,
    { epoch: number | undefined; chain_index: number; hash: string }
  >();

  constructor(store: Store, signer: ServiceSigner) {
    this.store = store;
    this.signer = signer;
  }

  /**
   * Appends one signed entry. Runs inside the store's write transaction (joining the caller's
   * when there is one) so the head read and the insert cannot interleave with another process.
   */
  append(
    chain: ChainName,
    entry: {
      kind: string;
      org_id: string | null;
      signed_at: string;
      body: Record<string, unknown>;
    },
  ): Promise<Receipt> {
    const table = TABLE[chain];
    return this.store.write(async () => {
      // The head is read once per transaction: later appends of the same batch know it already.
      const epoch = this.store.writeEpoch();
      const cached = this.heads.get(chain);
      const head =
        cached && cached.epoch === epoch
          ? cached
          : await this.store.get<{ chain_index: number; hash: string }>(
              `SELECT chain_index, hash FROM ${table} ORDER BY chain_index DESC LIMIT 1`,
            );
      const chainIndex = (head?.chain_index ?? 0) + 1;
      const id = `${ID_PREFIX[chain]}_${chainIndex}_${randomUUID().replaceAll('-', '')}`;
      const payload: ProofPayload = {
        ...entry.body,
        // The payload names the organization the entry is filed under, so a verifier can hold
        // the stored row to it (a body that left it out would otherwise never verify).
        org_id: entry.org_id,
        v: PROOF_FORMAT_VERSION,
        id,
        kind: entry.kind,
        chain,
        chain_index: chainIndex,
        prev_hash: head?.hash ?? GENESIS_HASH,
        signed_at: entry.signed_at,
        signing_kid: this.signer.kid,
      };
      const text = signableText(payload);
      const bytes = Buffer.from(text, 'utf8');
      const hash = sha256Hex(bytes);
      // Signed here, on this thread. Signing on libuv's pool while the batch went on, the row
      // filled in before the commit, was tried: 10% more in-process computes with 16 callers, but
      // over HTTP on two cores fewer answers a second (waking a pool thread cost about as much as
      // the signature, and the load shares that core), and one caller at a time 40% slower.
      const signature = this.signer.sign(bytes);
      if (chain === 'service') {
        await this.store.run(
          `INSERT INTO service_chain (chain_index, id, org_id, kind, payload, signing_kid, signature_hex, signed_at, prev_hash, hash)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          payload.chain_index,
          id,
          entry.org_id,
          entry.kind,
          text,
          this.signer.kid,
          signature,
          entry.signed_at,
          payload.prev_hash,
          hash,
        );
      } else {
        await this.store.run(
          `INSERT INTO audit_chain (chain_index, id, org_id, payload, signing_kid, signature_hex, signed_at, prev_hash, hash)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          payload.chain_index,
          id,
          entry.org_id ?? '',
          text,
          this.signer.kid,
          signature,
          entry.signed_at,
          payload.prev_hash,
          hash,
        );
      }
      this.heads.set(chain, { epoch, chain_index: chainIndex, hash });
      return {
        receipt_id: id,
        chain,
        chain_index: payload.chain_index,
        signature_hex: signature,
        signing_pubkey_hex: this.signer.publicKeyHex,
        signing_kid: this.signer.kid,
        signed_at: entry.signed_at,
        hash,
        payload,
      };
    });
  }

  /** The stored entry with this id, or undefined (unknown, malformed or not where its id says). */
  private async find(id: string): Promise<{ chain: ChainName; row: ChainRow } | undefined> {
    const place = locate(id);
    if (!place) return undefined;
    const row = await this.store.get<ChainRow>(
      `SELECT * FROM ${TABLE[place.chain]} WHERE chain_index = ?`,
      place.chainIndex,
    );
    // The position in an id is public; the random part is the capability, so compare it in constant time.
    return row && sameText(row.id, id) ? { chain: place.chain, row } : undefined;
  }

  /** The stored entry with this id, as a Receipt (for offline verification), or undefined. */
  async receipt(id: string): Promise<Receipt | undefined> {
    const found = await this.find(id);
    if (!found) return undefined;
    const { chain, row } = found;
    // A record whose signer is not a published key, or whose payload is not JSON, is no receipt.
    const publicKeyHex = this.signer.publicKeyHexFor(row.signing_kid);
    if (!publicKeyHex) return undefined;
    let payload: ProofPayload;
    try {
      payload = JSON.parse(row.payload) as ProofPayload;
    } catch {
      return undefined;
    }
    return {
      receipt_id: row.id,
      chain,
      chain_index: row.chain_index,
      signature_hex: row.signature_hex,
      signing_pubkey_hex: publicKeyHex,
      signing_kid: row.signing_kid,
      signed_at: row.signed_at,
      hash: row.hash,
      payload,
    };
  }

  /** Re-checks one entry: its signature, its own hash, and its links to both neighbours. */
  async check(id: string): Promise<EntryCheck> {
    const found = await this.find(id);
    if (!found) {
      return {
        found: false,
        chain: null,
        chain_index: null,
        kind: null,
        signed_at: null,
        authentic: false,
        unaltered: false,
        signer: null,
        checks: {},
      };
    }
    const { chain, row } = found;
    const table = TABLE[chain];
    const prev = await this.store.get<{ hash: string }>(
      `SELECT hash FROM ${table} WHERE chain_index = ?`,
      row.chain_index - 1,
    );
    const next = await this.store.get<{ prev_hash: string }>(
      `SELECT prev_hash FROM ${table} WHERE chain_index = ?`,
      row.chain_index + 1,
    );
    const checks = this.checkRow(
      row,
      chain,
      prev?.hash ?? (row.chain_index === 1 ? GENESIS_HASH : undefined),
    );
    checks.next_link = next === undefined || next.prev_hash === row.hash;
    // A signature that no longer matches is an alteration too: only the service key can make one.
    const unaltered = Object.values(checks).every(Boolean);
    // The signature check passes only under a published key, so unaltered implies a known signer.
    const authentic = unaltered;
    return {
      found: true,
      chain,
      chain_index: row.chain_index,
      kind: safeKind(row.payload),
      signed_at: row.signed_at,
      authentic,
      unaltered,
      signer: authentic
        ? { signing_kid: row.signing_kid, signing_pubkey_hex: this.signer.publicKeyHexFor(row.signing_kid)! }
        : null,
      checks,
    };
  }

  /**
   * Walks a whole chain from its first entry and reports the first broken entry, if any.
   * `signatures: false` checks hashes and links only (what an auditor without the key can redo).
   */
  verifyAll(
    chain: ChainName,
    options: { signatures?: boolean; onProgress?: (done: number) => void } = {},
  ): { ok: boolean; length: number; first_broken_index: number | null; reason: string | null } {
    const table = TABLE[chain];
    const stmt = this.store.db.prepare(
      `SELECT chain_index, id, org_id, ${chain === 'service' ? 'kind' : 'NULL AS kind'}, payload, signing_kid, signature_hex, signed_at, prev_hash, hash FROM ${table} ORDER BY chain_index`,
    );
    let expectedIndex = 1;
    let prevHash = GENESIS_HASH;
    for (const raw of stmt.iterate()) {
      const row = raw as unknown as ChainRow;
      if (row.chain_index !== expectedIndex) {
        return { ok: false, length: expectedIndex - 1, first_broken_index: expectedIndex, reason: 'gap' };
      }
      const checks = this.checkRow(row, chain, prevHash, options.signatures !== false);
      const failed = Object.entries(checks).find(([, ok]) => !ok);
      if (failed) {
        return { ok: false, length: row.chain_index, first_broken_index: row.chain_index, reason: failed[0] };
      }
      prevHash = row.hash;
      expectedIndex++;
      if (options.onProgress && expectedIndex % 100_000 === 0) options.onProgress(expectedIndex - 1);
    }
    return { ok: true, length: expectedIndex - 1, first_broken_index: null, reason: null };
  }

  async length(chain: ChainName): Promise<number> {
    return (await this.store.get<{ n: number }>(
      `SELECT COALESCE(MAX(chain_index), 0) AS n FROM ${TABLE[chain]}`,
    ))!.n;
  }

  private checkRow(
    row: ChainRow,
    chain: ChainName,
    expectedPrev: string | undefined,
    withSignature = true,
  ): Record<string, boolean> {
    let payload: ProofPayload | undefined;
    let bytes: Uint8Array | undefined;
    try {
      payload = JSON.parse(row.payload) as ProofPayload;
      const text = canonicalText(payload);
      // A payload that is not stored in canonical form has been rewritten.
      if (text === row.payload) bytes = Buffer.from(text, 'utf8');
    } catch {
      payload = undefined;
    }
    const checks: Record<string, boolean> = {
      payload_hash: bytes !== undefined && sha256Hex(bytes) === row.hash,
      fields:
        payload !== undefined &&
        payload.id === row.id &&
        payload.chain === chain &&
        payload.chain_index === row.chain_index &&
        payload.prev_hash === row.prev_hash &&
        payload.signed_at === row.signed_at &&
        payload.signing_kid === row.signing_kid &&
        // The audit chain keeps '' for a row of no organization (a gate decision on this computer).
        (payload.org_id ?? null) === (row.org_id === '' ? null : row.org_id) &&
        (chain === 'audit' || payload.kind === row.kind),
      prev_link: expectedPrev !== undefined && row.prev_hash === expectedPrev,
    };
    if (withSignature) {
      checks.signature = bytes !== undefined && this.signer.verify(row.signing_kid, bytes, row.signature_hex);
    }
    return checks;
  }
}

function safeKind(payload: string): string | null {
  try {
    const kind = (JSON.parse(payload) as { kind?: unknown }).kind;
    return typeof kind === 'string' ? kind : null;
  } catch {
    return null;
  }
}
