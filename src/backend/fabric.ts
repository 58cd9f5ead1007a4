// The Fabric: content-blind agent-to-agent exchange. The service stores sealed envelopes and
// wrapped keys it cannot open, and decides every fetch through a gate recomputed from scratch.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { ServiceError } from './errors.ts';
import { hasPassed, newId, nowIso, parseJson, type Context } from './context.ts';
import type { AgentPrincipal, OrgCaller } from './credentials.ts';
import { Refusal, actorOf, receiptRefusals } from './governance.ts';
import { sha256Hex } from './signer.ts';
import { keyId } from '../proofs/format.ts';
import { PossessionError, sealEnrollChallenge } from '../proofs/possession.ts';
import { deriveKey } from '../vault/derive.ts';
import type { Receipt } from './chains.ts';
import { countUnmetered } from './usage.ts';

export const DEFAULT_FABRIC_GRANT_TTL_DAYS = 30;
export const MAX_FABRIC_GRANT_TTL_DAYS = 3650;
export const DEFAULT_ENVELOPE_TTL_HOURS = 24;
export const DEFAULT_MAX_FETCHES = 1;

/** The Fabric address of an X25519 public key: first 16 hex of SHA-256 over its 32 raw bytes. */
export function fabricKid(pubkeyHex: string): string {
  return keyId(Buffer.from(pubkeyHex, 'hex'));
}

/** How long an enroll challenge may be answered: long enough for one round trip, short enough to be fresh. */
export const ENROLL_CHALLENGE_TTL_SECONDS = 300;
/** The MAC key's purpose: a derivation of its own, so no other key of the vault can forge a proof. */
const ENROLL_PROOF_PURPOSE = 'svc-fabric-enroll-proof-v1';
/** A proof is the challenge's opened text: its expiry in Unix seconds, a dot, and the MAC in hex. */
const ENROLL_PROOF = /^([0-9]{1,12})\.([0-9a-f]{64})$/;

function refuseUnusableKey(pubkeyHex: string): void {
  if (/^0{64}$/.test(pubkeyHex)) {
    throw new ServiceError(
      'invalid_request',
      'ecdh_pubkey_hex is the all-zero point, which is not a usable X25519 key',
      { field: 'ecdh_pubkey_hex' },
    );
  }
}

/**
 * HMAC-SHA256 over who may answer the challenge (organization, agent), the key it was sealed to and
 * its expiry, under a key derived for this purpose alone. Parts are joined by NUL, which none holds.
 */
function enrollProofMac(ctx: Context, agent: AgentPrincipal, pubkeyHex: string, expires: number): Buffer {
  const key = deriveKey(ctx.vault.secret('data-columns'), {
    purpose: ENROLL_PROOF_PURPOSE,
    salt: agent.orgId,
  });
  return createHmac('sha256', key)
    .update([agent.orgId, agent.agentId, agent.handle, pubkeyHex, String(expires)].join('\u0000'))
    .digest();
}

/**
 * Step one of enrolling: a challenge sealed to the key (HPKE base mode, `ENROLL_CHALLENGE_INFO`).
 * Its text is the proof step two must send back; only the holder of the private key can read it.
 * Stateless: nothing is stored, the MAC makes the proof checkable later.
 */
export async function enrollChallenge(ctx: Context, agent: AgentPrincipal, pubkeyHex: string) {
  refuseUnusableKey(pubkeyHex);
  const expires = Math.floor(ctx.clock().getTime() / 1000) + ENROLL_CHALLENGE_TTL_SECONDS;
  const proof = `${expires}.${enrollProofMac(ctx, agent, pubkeyHex, expires).toString('hex')}`;
  let sealed: Uint8Array;
  try {
    sealed = await sealEnrollChallenge(Buffer.from(pubkeyHex, 'hex'), proof);
  } catch (error) {
    if (!(error instanceof PossessionError)) throw error;
    throw new ServiceError(
      'invalid_request',
      'ecdh_pubkey_hex is a low-order X25519 point that nothing can be sealed to: generate a new key pair',
      { field: 'ecdh_pubkey_hex' },
    );
  }
  return {
    kid: fabricKid(pubkeyHex),
    challenge_b64: Buffer.from(sealed).toString('base64'),
    expires_at: new Date(expires * 1000).toISOString(),
  };
}

type ProofFailure = 'proof_missing' | 'proof_invalid' | 'proof_expired';

/** Why `proof` does not show that this agent holds the private key of `pubkeyHex`, or null when it does. */
function proofFailure(
  ctx: Context,
  agent: AgentPrincipal,
  pubkeyHex: string,
  proof: string | undefined,
): ProofFailure | null {
  if (proof === undefined) return 'proof_missing';
  const parts = ENROLL_PROOF.exec(proof);
  if (!parts) return 'proof_invalid';
  const expires = Number(parts[1]);
  const expected = enrollProofMac(ctx, agent, pubkeyHex, expires);
  // Constant time: the comparison must not tell a forger how many leading bytes it got right.
  if (!timingSafeEqual(Buffer.from(parts[2]!, 'hex'), expected)) return 'proof_invalid';
  return expires * 1000 > ctx.clock().getTime() ? null : 'proof_expired';
}

const PROOF_MESSAGES: Record<ProofFailure, string> = {
  proof_missing: 'enrolling needs proof that you hold the private key',
  proof_invalid: 'proof does not match this agent and ecdh_pubkey_hex',
  proof_expired: 'proof has expired',
};

export async function enroll(
  ctx: Context,
  agent: AgentPrincipal,
  pubkeyHex: string,
  proof: string | undefined,
): Promise<{ kid: string; handle: string; agent_id: string }> {
  return await receiptRefusals(ctx, () => enrollOnce(ctx, agent, pubkeyHex, proof));
}

async function enrollOnce(
  ctx: Context,
  agent: AgentPrincipal,
  pubkeyHex: string,
  proof: string | undefined,
): Promise<{ kid: string; handle: string; agent_id: string }> {
  refuseUnusableKey(pubkeyHex);
  const kid = fabricKid(pubkeyHex);
  const refuse = (
    code: 'already_enrolled' | 'kid_collision' | 'key_not_proven',
    message: string,
    details: Record<string, unknown>,
    reason: string = code,
  ) =>
    new Refusal(code, message, details, {
      kind: 'fabric.enroll.deny',
      org_id: agent.orgId,
      body: { ...actorOf(agent), kid, reason },
    });
  // Possession first: a caller without the private key learns nothing, not even whether the address is taken.
  const failure = proofFailure(ctx, agent, pubkeyHex, proof);
  if (failure) {
    throw refuse(
      'key_not_proven',
      `${PROOF_MESSAGES[failure]}: POST /api/agents/${agent.handle}/fabric/enroll/challenge with ecdh_pubkey_hex, ` +
        "open challenge_b64 with the private key (the SDK's enrollFabric does both steps) and send its text as proof " +
        `within ${ENROLL_CHALLENGE_TTL_SECONDS / 60} minutes`,
      { field: 'proof', reason: failure },
      failure,
    );
  }
  return ctx.store.write(async () => {
    const current = await ctx.store.get<{ fabric_kid: string | null }>(
      'SELECT fabric_kid FROM agents WHERE id = ?',
      agent.agentId,
    );
    if (current?.fabric_kid) {
      throw refuse(
        'already_enrolled',
        `agent \`${agent.handle}\` is already enrolled as ${current.fabric_kid}`,
        {
          kid: current.fabric_kid,
        },
      );
    }
    const holder = await ctx.store.get<{ id: string }>('SELECT id FROM agents WHERE fabric_kid = ?', kid);
    if (holder) {
      throw refuse('kid_collision', `address ${kid} is already enrolled; generate a new key pair`, {
        kid,
      });
    }
    await ctx.store.run(
      'UPDATE agents SET fabric_pubkey_hex = ?, fabric_kid = ? WHERE id = ?',
      pubkeyHex,
      kid,
      agent.agentId,
    );
    return { kid, handle: agent.handle, agent_id: agent.agentId };
  });
}

// ---------------------------------------------------------------- grants (connections)

interface FabricGrantRow {
  id: string;
  org_id: string;
  subject_kid: string;
  label: string | null;
  allowed_sender_kids: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  revoke_reason: string | null;
  receipt_id: string;
  revoke_receipt_id: string | null;
}

export interface FabricGrant {
  grant_id: string;
  issuer_org_id: string;
  subject_kid: string;
  label: string | null;
  allowed_sender_kids: string[];
  created_at: string;
  expires_at: string;
  status: 'active' | 'expired' | 'revoked';
  revoked_at: string | null;
  revoke_reason: string | null;
  receipt_id: string;
  revoke_receipt_id: string | null;
}

function grantStatus(ctx: Context, row: FabricGrantRow): FabricGrant['status'] {
  if (row.revoked_at) return 'revoked';
  return hasPassed(ctx, row.expires_at) ? 'expired' : 'active';
}

function toGrant(ctx: Context, row: FabricGrantRow): FabricGrant {
  return {
    grant_id: row.id,
    issuer_org_id: row.org_id,
    subject_kid: row.subject_kid,
    label: row.label,
    allowed_sender_kids: parseJson<string[]>(row.allowed_sender_kids, []),
    created_at: row.created_at,
    expires_at: row.expires_at,
    status: grantStatus(ctx, row),
    revoked_at: row.revoked_at,
    revoke_reason: row.revoke_reason,
    receipt_id: row.receipt_id,
    revoke_receipt_id: row.revoke_receipt_id,
  };
}

export interface FabricGrantInput {
  subject_kid: string;
  label?: string | undefined;
  allowed_sender_kids?: string[] | undefined;
  ttl_days?: number | undefined;
  expires_at?: string | undefined;
}

export async function createFabricGrant(
  ctx: Context,
  caller: OrgCaller,
  input: FabricGrantInput,
): Promise<FabricGrant & { receipt: Receipt }> {
  return await receiptRefusals(ctx, () => grantOnce(ctx, caller, input));
}

async function grantOnce(
  ctx: Context,
  caller: OrgCaller,
  input: FabricGrantInput,
): Promise<FabricGrant & { receipt: Receipt }> {
  const now = ctx.clock();
  if (input.ttl_days !== undefined && input.expires_at !== undefined) {
    throw new ServiceError('invalid_request', 'give ttl_days or expires_at, not both', {
      field: 'expires_at',
    });
  }
  const expiresAt = input.expires_at
    ? new Date(input.expires_at)
    : new Date(now.getTime() + (input.ttl_days ?? DEFAULT_FABRIC_GRANT_TTL_DAYS) * 86_400_000);
  if (expiresAt.getTime() <= now.getTime()) {
    throw new ServiceError('invalid_request', 'expires_at must be in the future', { field: 'expires_at' });
  }
  if (expiresAt.getTime() > now.getTime() + MAX_FABRIC_GRANT_TTL_DAYS * 86_400_000) {
    throw new ServiceError(
      'invalid_request',
      `expires_at is at most ${MAX_FABRIC_GRANT_TTL_DAYS} days away`,
      {
        field: 'expires_at',
      },
    );
  }
  const senders = [...new Set(input.allowed_sender_kids ?? [])];
  const refuse = (
    code: 'invalid_request' | 'grant_exists',
    message: string,
    details: Record<string, unknown>,
    reason: string,
  ) =>
    new Refusal(code, message, details, {
      kind: 'fabric.grant.deny',
      org_id: caller.orgId,
      body: {
        ...actorOf(caller),
        subject_kid: input.subject_kid,
        allowed_sender_kids: senders,
        reason,
        ...details,
      },
    });
  return ctx.store.write(async () => {
    const own = new Set(
      (
        await ctx.store.all<{ fabric_kid: string }>(
          'SELECT fabric_kid FROM agents WHERE org_id = ? AND fabric_kid IS NOT NULL',
          caller.orgId,
        )
      ).map((r) => r.fabric_kid),
    );
    const foreign = senders.filter((kid) => !own.has(kid));
    if (foreign.length) {
      throw refuse(
        'invalid_request',
        `allowed_sender_kids must be enrolled addresses of this organization's agents: ${foreign.join(', ')}`,
        { field: 'allowed_sender_kids', unknown_sender_kids: foreign },
        'unknown_sender_kids',
      );
    }
    const existing = (
      await ctx.store.all<FabricGrantRow>(
        'SELECT * FROM fabric_grants WHERE org_id = ? AND subject_kid = ? AND revoked_at IS NULL',
        caller.orgId,
        input.subject_kid,
      )
    ).find((row) => grantStatus(ctx, row) === 'active');
    if (existing) {
      throw refuse(
        'grant_exists',
        `an active grant for ${input.subject_kid} exists; revoke it first to replace it`,
        { grant_id: existing.id },
        'grant_exists',
      );
    }
    const id = newId('fg');
    const receipt = await ctx.chains.append('service', {
      kind: 'fabric.grant',
      org_id: caller.orgId,
      signed_at: now.toISOString(),
      body: {
        org_id: caller.orgId,
        grant_id: id,
        subject_kid: input.subject_kid,
        label: input.label ?? null,
        allowed_sender_kids: senders,
        expires_at: expiresAt.toISOString(),
      },
    });
    await ctx.store.run(
      `INSERT INTO fabric_grants (id, org_id, subject_kid, label, allowed_sender_kids, created_at, expires_at, receipt_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      id,
      caller.orgId,
      input.subject_kid,
      input.label ?? null,
      JSON.stringify(senders),
      now.toISOString(),
      expiresAt.toISOString(),
      receipt.receipt_id,
    );
    const row = (await ctx.store.get<FabricGrantRow>('SELECT * FROM fabric_grants WHERE id = ?', id))!;
    return { ...toGrant(ctx, row), receipt };
  });
}

export async function listFabricGrants(ctx: Context, caller: OrgCaller) {
  const outbound = (
    await ctx.store.all<FabricGrantRow>(
      'SELECT * FROM fabric_grants WHERE org_id = ? ORDER BY created_at DESC',
      caller.orgId,
    )
  ).map((row) => toGrant(ctx, row));
  const inbound = (
    await ctx.store.all<FabricGrantRow>(
      `SELECT g.* FROM fabric_grants g JOIN agents a ON a.fabric_kid = g.subject_kid
        WHERE a.org_id = ? ORDER BY g.created_at DESC`,
      caller.orgId,
    )
  ).map((row) => toGrant(ctx, row));
  return { ok: true, outbound, inbound, count: outbound.length + inbound.length };
}

/**
 * The grants that name this agent's address as their subject: who may send to it. Each is another
 * (or its own) organization's grant, with the allowlist of that organization's sending agents.
 */
export async function inboundGrants(ctx: Context, agent: AgentPrincipal) {
  const kid = await receiptRefusals(ctx, () => senderKid(ctx, agent, 'fabric.senders.deny'));
  const grants = (
    await ctx.store.all<FabricGrantRow>(
      'SELECT * FROM fabric_grants WHERE subject_kid = ? ORDER BY created_at DESC',
      kid,
    )
  ).map((row) => toGrant(ctx, row));
  return { ok: true, kid, count: grants.length, grants };
}

/**
 * The X25519 public key enrolled at a Fabric address, which a sender needs to seal to it. Public by
 * nature, so any agent may ask; an address nobody enrolled is a receipted 404, as a send to it is.
 */
export async function enrolledKey(ctx: Context, agent: AgentPrincipal, kid: string) {
  return await receiptRefusals(ctx, async () => {
    const row = await ctx.store.get<{ fabric_pubkey_hex: string }>(
      'SELECT fabric_pubkey_hex FROM agents WHERE fabric_kid = ? AND fabric_pubkey_hex IS NOT NULL',
      kid,
    );
    if (!row) {
      throw new Refusal(
        'not_found',
        `no agent is enrolled at Fabric address ${kid}: ask its holder for the address it enrolled`,
        {},
        {
          kind: 'fabric.key.deny',
          org_id: agent.orgId,
          body: { ...actorOf(agent), kid, reason: 'unknown_address' },
        },
      );
    }
    return { kid, ecdh_pubkey_hex: row.fabric_pubkey_hex };
  });
}

export async function revokeFabricGrant(
  ctx: Context,
  caller: OrgCaller,
  grantId: string,
  reason: string | undefined,
): Promise<FabricGrant & { receipt: Receipt | null; already_revoked: boolean }> {
  return await receiptRefusals(ctx, () => revokeGrantOnce(ctx, caller, grantId, reason));
}

async function revokeGrantOnce(
  ctx: Context,
  caller: OrgCaller,
  grantId: string,
  reason: string | undefined,
): Promise<FabricGrant & { receipt: Receipt | null; already_revoked: boolean }> {
  const refuse = (code: 'not_found' | 'forbidden', message: string, refusal: string) =>
    new Refusal(
      code,
      message,
      {},
      {
        kind: 'fabric.revoke.deny',
        org_id: caller.orgId,
        body: { ...actorOf(caller), grant_id: grantId, reason: refusal },
      },
    );
  return ctx.store.write(async () => {
    const row = await ctx.store.get<FabricGrantRow>('SELECT * FROM fabric_grants WHERE id = ?', grantId);
    if (!row)
      throw refuse(
        'not_found',
        `no fabric grant ${grantId}: list them with GET /api/v1/fabric-grants`,
        'not_found',
      );
    if (row.org_id !== caller.orgId) {
      throw refuse('forbidden', 'only the issuing organization can revoke this grant', 'other_organization');
    }
    if (row.revoked_at) {
      return { ...toGrant(ctx, row), receipt: null, already_revoked: true };
    }
    const now = nowIso(ctx);
    const receipt = await ctx.chains.append('service', {
      kind: 'fabric.revoke',
      org_id: caller.orgId,
      signed_at: now,
      body: { org_id: caller.orgId, grant_id: grantId, subject_kid: row.subject_kid, reason: reason ?? null },
    });
    await ctx.store.run(
      'UPDATE fabric_grants SET revoked_at = ?, revoke_reason = ?, revoke_receipt_id = ? WHERE id = ?',
      now,
      reason ?? null,
      receipt.receipt_id,
      grantId,
    );
    await countUnmetered(ctx, caller.orgId);
    const updated = (await ctx.store.get<FabricGrantRow>(
      'SELECT * FROM fabric_grants WHERE id = ?',
      grantId,
    ))!;
    return { ...toGrant(ctx, updated), receipt, already_revoked: false };
  });
}

// ---------------------------------------------------------------- envelopes

export interface SendInput {
  recipient_kid: string;
  ciphertext_b64: string;
  wrapped_key_b64: string;
  payload_iv_b64: string;
  content_type_hint?: string | undefined;
  filename_hint?: string | undefined;
  ttl_hours?: number | undefined;
  max_fetches?: number | undefined;
  purpose?: string | undefined;
}

/** The agent's Fabric address; without one, what it asked (`kind`, `asked`) is refused. */
async function senderKid(
  ctx: Context,
  agent: AgentPrincipal,
  kind: string,
  asked: Record<string, unknown> = {},
): Promise<string> {
  const row = await ctx.store.get<{ fabric_kid: string | null }>(
    'SELECT fabric_kid FROM agents WHERE id = ?',
    agent.agentId,
  );
  if (!row?.fabric_kid) {
    throw new Refusal(
      'not_enrolled',
      `agent \`${agent.handle}\` has no Fabric address yet: POST /api/agents/${agent.handle}/fabric/enroll first`,
      {},
      { kind, org_id: agent.orgId, body: { ...actorOf(agent), ...asked, reason: 'not_enrolled' } },
    );
  }
  return row.fabric_kid;
}

export async function send(ctx: Context, agent: AgentPrincipal, input: SendInput) {
  return await receiptRefusals(ctx, () => sendOnce(ctx, agent, input));
}

async function sendOnce(ctx: Context, agent: AgentPrincipal, input: SendInput) {
  const kid = await senderKid(ctx, agent, 'fabric.send.deny', { recipient_kid: input.recipient_kid });
  // Storage grows only here, so sweeping here keeps up with it, without a timer in the core.
  await sweepEnvelopes(ctx);
  const now = ctx.clock();
  const ttlAt = new Date(
    now.getTime() + (input.ttl_hours ?? DEFAULT_ENVELOPE_TTL_HOURS) * 3_600_000,
  ).toISOString();
  const maxFetches = input.max_fetches ?? DEFAULT_MAX_FETCHES;
  const id = randomUUID();
  const size = Buffer.byteLength(input.ciphertext_b64, 'base64');
  const refuse = (
    code: 'not_found' | 'quota_exceeded',
    message: string,
    details: Record<string, unknown>,
    reason: string,
  ) =>
    new Refusal(code, message, details, {
      kind: 'fabric.send.deny',
      org_id: agent.orgId,
      body: { ...actorOf(agent), recipient_kid: input.recipient_kid, size_bytes: size, reason, ...details },
    });
  return ctx.store.write(async () => {
    const recipient = await ctx.store.get<{ id: string }>(
      'SELECT id FROM agents WHERE fabric_kid = ?',
      input.recipient_kid,
    );
    if (!recipient) {
      throw refuse(
        'not_found',
        `no agent is enrolled at Fabric address ${input.recipient_kid}: ask its holder for the address it enrolled`,
        {},
        'unknown_recipient',
      );
    }
    const over = await overQuota(ctx, agent, input.recipient_kid, size, now.toISOString());
    if (over)
      throw refuse(
        'quota_exceeded',
        over.message,
        { quota: over.quota, limit: over.limit },
        'quota_exceeded',
      );
    // The receipt covers metadata and digests of the sealed parts only: the service never sees content.
    const receipt = await ctx.chains.append('service', {
      kind: 'fabric.send',
      org_id: agent.orgId,
      signed_at: now.toISOString(),
      body: {
        org_id: agent.orgId,
        envelope_id: id,
        sender_agent_id: agent.agentId,
        sender_kid: kid,
        recipient_kid: input.recipient_kid,
        ttl_at: ttlAt,
        max_fetches: maxFetches,
        ciphertext_sha256: sha256Hex(Buffer.from(input.ciphertext_b64, 'base64')),
        wrapped_key_sha256: sha256Hex(Buffer.from(input.wrapped_key_b64, 'base64')),
        size_bytes: size,
        purpose: input.purpose ?? null,
      },
    });
    await ctx.store.run(
      `INSERT INTO envelopes (id, sender_agent_id, sender_org_id, sender_kid, recipient_kid, ciphertext_b64, wrapped_key_b64,
         payload_iv_b64, content_type_hint, filename_hint, purpose, size_bytes, created_at, ttl_at, max_fetches, receipt_id,
         dead_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      id,
      agent.agentId,
      agent.orgId,
      kid,
      input.recipient_kid,
      input.ciphertext_b64,
      input.wrapped_key_b64,
      input.payload_iv_b64,
      input.content_type_hint ?? null,
      input.filename_hint ?? null,
      input.purpose ?? null,
      size,
      now.toISOString(),
      ttlAt,
      maxFetches,
      receipt.receipt_id,
      ttlAt,
    );
    return {
      id,
      sender_kid: kid,
      recipient_kid: input.recipient_kid,
      ttl_at: ttlAt,
      max_fetches: maxFetches,
      receipt,
    };
  });
}

// ---------------------------------------------------------------- storage bounds

/** Live envelopes of one party: stored, not yet swept, and still fetchable at `now`. */
async function liveUse(
  ctx: Context,
  party: 'recipient_kid' | 'sender_agent_id' | 'sender_org_id',
  value: string,
  now: string,
): Promise<{ envelopes: number; bytes: number }> {
  const row = await ctx.store.get<{ envelopes: number; bytes: number }>(
    `SELECT COUNT(*) AS envelopes, COALESCE(SUM(size_bytes), 0) AS bytes FROM envelopes
      WHERE ${party} = ? AND swept_at IS NULL AND dead_at > ?`,
    value,
    now,
  );
  return row ?? { envelopes: 0, bytes: 0 };
}

/** The first quota a new envelope of `size` bytes would pass, with a message saying what to do; null if none. */
async function overQuota(
  ctx: Context,
  agent: AgentPrincipal,
  recipientKid: string,
  size: number,
  now: string,
): Promise<{ quota: string; limit: number; message: string } | null> {
  const q = ctx.fabricQuotas;
  const wait = 'wait until envelopes are fetched or expire, then send again';
  const parties = [
    // Nothing about how full the recipient's address is: only which limit it reached.
    { name: 'recipient', column: 'recipient_kid', value: recipientKid, what: `address ${recipientKid}` },
    { name: 'sender', column: 'sender_agent_id', value: agent.agentId, what: `agent \`${agent.handle}\`` },
    { name: 'organization', column: 'sender_org_id', value: agent.orgId, what: "this organization's agents" },
  ] as const;
  const limits = {
    recipient: { envelopes: q.recipientEnvelopes, bytes: q.recipientBytes },
    sender: { envelopes: q.senderEnvelopes, bytes: q.senderBytes },
    organization: { envelopes: q.organizationEnvelopes, bytes: q.organizationBytes },
  };
  for (const { name, column, value, what } of parties) {
    const { envelopes, bytes } = limits[name];
    const use = await liveUse(ctx, column, value, now);
    if (use.envelopes + 1 > envelopes) {
      return {
        quota: `${name}_envelopes`,
        limit: envelopes,
        message: `${what} already has ${envelopes} live envelopes, the most allowed: ${wait}`,
      };
    }
    if (use.bytes + size > bytes) {
      return {
        quota: `${name}_bytes`,
        limit: bytes,
        message: `this envelope would take ${what} past ${bytes} bytes of live envelopes: ${wait}, or send less`,
      };
    }
  }
  return null;
}

/** At most this many envelopes, and about this many ciphertext bytes, are cleared per sweep. */
export const SWEEP_MAX_ENVELOPES = 32;
export const SWEEP_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Clears the sealed parts (ciphertext, wrapped key, IV) of envelopes that can no longer be fetched,
 * oldest first and bounded, and signs one `fabric.sweep` receipt per sending organization naming
 * them. The rows stay, without content, so a fetch still answers 410 and the inbox still lists them.
 */
export async function sweepEnvelopes(ctx: Context): Promise<{ swept: number; receipts: Receipt[] }> {
  return ctx.store.write(async () => {
    const now = nowIso(ctx);
    const dead = await ctx.store.all<{
      id: string;
      ttl_at: string;
      dead_at: string;
      size_bytes: number;
      sender_org_id: string;
    }>(
      `SELECT id, ttl_at, dead_at, size_bytes, sender_org_id FROM envelopes
        WHERE swept_at IS NULL AND dead_at <= ? ORDER BY dead_at LIMIT ?`,
      now,
      SWEEP_MAX_ENVELOPES,
    );
    const batch: typeof dead = [];
    let bytes = 0;
    for (const envelope of dead) {
      // At least one, so an envelope larger than the byte bound still goes.
      if (batch.length > 0 && bytes + envelope.size_bytes > SWEEP_MAX_BYTES) break;
      batch.push(envelope);
      bytes += envelope.size_bytes;
    }
    const byOrg = new Map<string, typeof dead>();
    for (const envelope of batch) {
      await ctx.store.run(
        `UPDATE envelopes SET ciphertext_b64 = '', wrapped_key_b64 = '', payload_iv_b64 = '', swept_at = ?
          WHERE id = ?`,
        now,
        envelope.id,
      );
      byOrg.set(envelope.sender_org_id, [...(byOrg.get(envelope.sender_org_id) ?? []), envelope]);
    }
    const receipts: Receipt[] = [];
    for (const [orgId, envelopes] of byOrg) {
      // The last allowed fetch sets dead_at before ttl_at; an expired envelope has dead_at = ttl_at.
      const fullyFetched = envelopes.filter((e) => e.dead_at < e.ttl_at).length;
      receipts.push(
        await ctx.chains.append('service', {
          kind: 'fabric.sweep',
          org_id: orgId,
          signed_at: now,
          body: {
            org_id: orgId,
            envelope_ids: envelopes.map((e) => e.id),
            expired: envelopes.length - fullyFetched,
            fully_fetched: fullyFetched,
            size_bytes: envelopes.reduce((sum, e) => sum + e.size_bytes, 0),
          },
        }),
      );
    }
    return { swept: batch.length, receipts };
  });
}

interface EnvelopeRow {
  id: string;
  sender_agent_id: string;
  sender_org_id: string;
  sender_kid: string;
  recipient_kid: string;
  ciphertext_b64: string;
  wrapped_key_b64: string;
  payload_iv_b64: string;
  content_type_hint: string | null;
  filename_hint: string | null;
  purpose: string | null;
  size_bytes: number;
  created_at: string;
  ttl_at: string;
  max_fetches: number;
  fetch_count: number;
  dead_at: string;
  swept_at: string | null;
}

function envelopeStatus(
  ctx: Context,
  e: Pick<EnvelopeRow, 'ttl_at' | 'swept_at' | 'fetch_count' | 'max_fetches'>,
): 'available' | 'expired' | 'fully_fetched' {
  // A swept envelope has no content left: never available, even if the clock went back.
  if (hasPassed(ctx, e.ttl_at) || (e.swept_at && e.fetch_count < e.max_fetches)) return 'expired';
  return e.fetch_count >= e.max_fetches ? 'fully_fetched' : 'available';
}

/** Metadata only: neither ciphertext nor wrapped key ever appears in an inbox listing. */
export async function inbox(ctx: Context, agent: AgentPrincipal) {
  const kid = await receiptRefusals(ctx, () => senderKid(ctx, agent, 'fabric.inbox.deny'));
  const items =
    // The listing's columns only: the ciphertext (up to the recipient's quota) never leaves the store here.
    (
      await ctx.store.all<Omit<EnvelopeRow, 'ciphertext_b64' | 'wrapped_key_b64' | 'payload_iv_b64'>>(
        `SELECT id, sender_agent_id, sender_org_id, sender_kid, recipient_kid, content_type_hint,
              filename_hint, purpose, size_bytes, created_at, ttl_at, max_fetches, fetch_count,
              dead_at, swept_at
         FROM envelopes WHERE recipient_kid = ? ORDER BY created_at DESC`,
        kid,
      )
    ).map((e) => ({
      id: e.id,
      sender_kid: e.sender_kid,
      recipient_kid: e.recipient_kid,
      created_at: e.created_at,
      ttl_at: e.ttl_at,
      max_fetches: e.max_fetches,
      fetch_count: e.fetch_count,
      fetches_remaining: Math.max(0, e.max_fetches - e.fetch_count),
      status: envelopeStatus(ctx, e),
      size_bytes: e.size_bytes,
      content_type_hint: e.content_type_hint,
      filename_hint: e.filename_hint,
      purpose: e.purpose,
    }));
  return { ok: true, kid, count: items.length, items };
}

/** The six gate conditions, each a reason name: a deny lists the ones that failed. */
export const GATE_CONDITIONS = [
  'agent_active',
  'addressed_to_agent',
  'sender_attributable',
  'grant_exists',
  'grant_current',
  'sender_allowed',
] as const;

export async function fetchEnvelope(ctx: Context, agent: AgentPrincipal, blobId: string) {
  // Envelope ids are issued in lower case (randomUUID); a UUID names the same envelope in any case.
  const id = blobId.toLowerCase();
  return await receiptRefusals(ctx, () => fetchOnce(ctx, agent, id));
}

async function fetchOnce(ctx: Context, agent: AgentPrincipal, blobId: string) {
  /** A fetch refused before the gate: receipted as a `fabric.fetch` deny like the gate's own. */
  const refuse = (
    code: 'not_found' | 'gone',
    message: string,
    details: Record<string, unknown>,
    reason: string,
    addressed?: EnvelopeRow,
  ) =>
    new Refusal(code, message, details, {
      kind: 'fabric.fetch',
      org_id: agent.orgId,
      body: {
        envelope_id: blobId,
        agent_id: agent.agentId,
        ...(addressed ? { recipient_kid: addressed.recipient_kid, sender_kid: addressed.sender_kid } : {}),
        outcome: 'deny',
        reasons: [reason],
        fetch_number: null,
      },
    });
  return ctx.store.write(async () => {
    const envelope = await ctx.store.get<EnvelopeRow>('SELECT * FROM envelopes WHERE id = ?', blobId);
    if (!envelope)
      throw refuse(
        'not_found',
        `no envelope ${blobId}: list yours with GET /api/agents/${agent.handle}/fabric/inbox`,
        {},
        'envelope_not_found',
      );
    const me = await ctx.store.get<{ status: string; fabric_kid: string | null }>(
      'SELECT status, fabric_kid FROM agents WHERE id = ?',
      agent.agentId,
    );
    const failed: string[] = [];
    if (me?.status !== 'active') failed.push('agent_not_active');
    const addressed = me?.fabric_kid === envelope.recipient_kid;
    if (!addressed) failed.push('not_addressed_to_agent');
    // Envelope state is disclosed only to its addressee: others get a receipted deny.
    if (failed.length === 0) {
      const status = envelopeStatus(ctx, envelope);
      if (status !== 'available') {
        // Only the addressee gets here, so its receipt may name both addresses.
        throw refuse(
          'gone',
          status === 'expired'
            ? `envelope ${blobId} expired at ${envelope.ttl_at}`
            : `envelope ${blobId} was fetched ${envelope.max_fetches} time(s), its limit`,
          { status },
          `envelope_${status}`,
          envelope,
        );
      }
      failed.push(...(await gateFailures(ctx, envelope)));
    }
    const outcome = failed.length ? 'deny' : 'allow';
    const reasons = outcome === 'allow' ? [...GATE_CONDITIONS] : failed;
    const receipt = await ctx.chains.append('service', {
      kind: 'fabric.fetch',
      org_id: agent.orgId,
      signed_at: nowIso(ctx),
      body: {
        org_id: agent.orgId,
        envelope_id: envelope.id,
        agent_id: agent.agentId,
        // The caller sees this receipt: only the addressee learns who sent the envelope to whom.
        ...(addressed ? { recipient_kid: envelope.recipient_kid, sender_kid: envelope.sender_kid } : {}),
        outcome,
        reasons,
        fetch_number: outcome === 'allow' ? envelope.fetch_count + 1 : null,
      },
    });
    if (outcome === 'deny') {
      const message = fetchRefusal(reasons, addressed ? envelope : undefined);
      return { outcome, reasons, receipt, message } as const;
    }
    // The wrapped key leaves only after the allow receipt is on the chain, in the same transaction.
    // The last allowed fetch makes the envelope dead now: the next sweep clears its sealed parts.
    await ctx.store.run(
      `UPDATE envelopes SET fetch_count = fetch_count + 1,
         dead_at = CASE WHEN fetch_count + 1 >= max_fetches THEN ? ELSE dead_at END
        WHERE id = ?`,
      nowIso(ctx),
      envelope.id,
    );
    return {
      outcome,
      reasons,
      receipt,
      envelope: {
        id: envelope.id,
        sender_kid: envelope.sender_kid,
        recipient_kid: envelope.recipient_kid,
        ciphertext_b64: envelope.ciphertext_b64,
        wrapped_key_b64: envelope.wrapped_key_b64,
        payload_iv_b64: envelope.payload_iv_b64,
        content_type_hint: envelope.content_type_hint,
        filename_hint: envelope.filename_hint,
        purpose: envelope.purpose,
        ttl_at: envelope.ttl_at,
        fetches_remaining: envelope.max_fetches - envelope.fetch_count - 1,
      },
    } as const;
  });
}

/**
 * What a refused fetch asks of whom, reason by reason: most are for the sender's organization,
 * whose grant lets its agents send to an address. The gate is computed again at every fetch and a
 * refusal spends no fetch, so once the cause is fixed the same envelope opens. The addresses are
 * named only to the envelope's addressee, as in its receipt.
 */
function fetchRefusal(reasons: readonly string[], addressed: EnvelopeRow | undefined): string {
  const org = addressed
    ? `the organization of the sender ${addressed.sender_kid}`
    : "the sender's organization";
  const address = addressed?.recipient_kid ?? 'your address';
  // Only the API creates Fabric grants: there is no tool or command to name instead.
  const how = `POST /api/v1/fabric-grants with subject_kid ${address}, with that organization's key; only the API does this`;
  const ask = 'ask the sender to have an owner of that organization grant it';
  const advice: Record<string, string> = {
    no_grant: `${org} has not let its agents send to your address: ${ask} (${how})`,
    grant_revoked: `${org} revoked its grant for your address: ${ask} again (${how})`,
    grant_expired: `the grant of ${org} for your address expired: ${ask} again (${how})`,
    sender_not_allowed: `the grant of ${org} for your address lets only other senders through (allowed_sender_kids): ${ask} with this sender allowed (${how})`,
    sender_not_attributable: `the sender is no longer an active agent of its organization: ask that organization to send it again from an active agent`,
    not_addressed_to_agent: 'it is addressed to another agent: only its addressee can open it',
    agent_not_active: 'this agent is not active: ask your organization for a new grant',
  };
  const reopens = reasons.every((r) =>
    ['no_grant', 'grant_revoked', 'grant_expired', 'sender_not_allowed'].includes(r),
  );
  return `the Fabric gate refused this fetch (${reasons.join(', ')}): ${reasons.map((r) => advice[r] ?? r).join('; ')}${reopens ? '. It spent no fetch: open it again once that is done, before it expires' : ''}`;
}

/** Conditions 3 to 6, recomputed from the store at every fetch. */
async function gateFailures(ctx: Context, envelope: EnvelopeRow): Promise<string[]> {
  const sender = await ctx.store.get<{ org_id: string; fabric_kid: string | null; status: string }>(
    'SELECT org_id, fabric_kid, status FROM agents WHERE id = ?',
    envelope.sender_agent_id,
  );
  // A sender revoked since sending is no longer one its organization answers for: fail closed.
  if (
    !sender ||
    sender.status !== 'active' ||
    sender.fabric_kid !== envelope.sender_kid ||
    sender.org_id !== envelope.sender_org_id
  ) {
    return ['sender_not_attributable'];
  }
  const grants = await ctx.store.all<FabricGrantRow>(
    'SELECT * FROM fabric_grants WHERE org_id = ? AND subject_kid = ? ORDER BY rowid',
    sender.org_id,
    envelope.recipient_kid,
  );
  if (grants.length === 0) return ['no_grant'];
  const current = grants.filter((g) => grantStatus(ctx, g) === 'active');
  if (current.length === 0) {
    // The newest grant explains the refusal: an old revoked grant says nothing about a newer expired one.
    return grants.at(-1)!.revoked_at ? ['grant_revoked'] : ['grant_expired'];
  }
  const allowed = current.some((g) => {
    const list = parseJson<string[]>(g.allowed_sender_kids, []);
    return list.length === 0 || list.includes(envelope.sender_kid);
  });
  return allowed ? [] : ['sender_not_allowed'];
}
