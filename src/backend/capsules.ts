// Capsules: isolated environments holding sealed documents, their people and their AI grants.
// Capsule actions are unmetered; revocation is receipted and turns every access off at once.
import { deriveKey } from '../vault/derive.ts';
import { seal } from '../vault/seal.ts';
import { ServiceError } from './errors.ts';
import { newId, nowIso, parseJson, type Context } from './context.ts';
import type { OrgCaller } from './credentials.ts';
import { Refusal, actorOf, receiptRefusals } from './governance.ts';
import { sha256Hex } from './signer.ts';
import { countUnmetered } from './usage.ts';
import { MEMBER_ROLES } from './vocabulary.ts';

export { MEMBER_ROLES };

export type MemberRole = (typeof MEMBER_ROLES)[number];

interface CapsuleRow {
  id: string;
  org_id: string;
  name: string;
  status: string;
  created_at: string;
  revoked_at: string | null;
  revoke_receipt_id: string | null;
}

/** What a request on a capsule asked: its refusal's receipt kind and what it records beyond the capsule. */
interface Asked {
  kind: string;
  body?: Record<string, unknown>;
}

/** The refusal of a request on capsule `id`, receipted with the caller, what was asked and `reason`. */
function refusal(
  caller: OrgCaller,
  id: string,
  asked: Asked,
  code: ServiceError['code'],
  message: string,
  reason: string,
  details: Record<string, unknown> = {},
): Refusal {
  return new Refusal(code, message, details, {
    kind: asked.kind,
    org_id: caller.orgId,
    body: { ...actorOf(caller), capsule_id: id, ...asked.body, reason },
  });
}

async function loadCapsule(
  ctx: Context,
  caller: OrgCaller,
  id: string,
  asked: Asked,
  forWrite = false,
): Promise<CapsuleRow> {
  // Another organization's capsule is answered exactly as one that does not exist.
  const row = await ctx.store.get<CapsuleRow>(
    'SELECT * FROM capsules WHERE id = ? AND org_id = ?',
    id,
    caller.orgId,
  );
  if (!row) {
    throw refusal(
      caller,
      id,
      asked,
      'not_found',
      `no capsule ${id}: list them with GET /v1/capsules`,
      'not_found',
    );
  }
  if (forWrite && row.status === 'revoked') {
    throw refusal(
      caller,
      id,
      asked,
      'capsule_revoked',
      `capsule ${id} was revoked at ${row.revoked_at}; create a new one`,
      'capsule_revoked',
    );
  }
  return row;
}

async function summary(ctx: Context, row: CapsuleRow) {
  const count = async (table: string) =>
    (await ctx.store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE capsule_id = ?`, row.id))!
      .n;
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
    document_count: await count('capsule_documents'),
    member_count: await count('capsule_members'),
    ai_grant_count: await count('capsule_ai_grants'),
  };
}

export async function createCapsule(ctx: Context, caller: OrgCaller, name: string) {
  const id = newId('cap');
  return ctx.store.write(async () => {
    await ctx.store.run(
      "INSERT INTO capsules (id, org_id, name, status, created_at) VALUES (?, ?, ?, 'active', ?)",
      id,
      caller.orgId,
      name,
      nowIso(ctx),
    );
    await countUnmetered(ctx, caller.orgId);
    return await summary(ctx, (await ctx.store.get<CapsuleRow>('SELECT * FROM capsules WHERE id = ?', id))!);
  });
}

export async function listCapsules(ctx: Context, caller: OrgCaller) {
  const rows = await ctx.store.all<CapsuleRow>(
    'SELECT * FROM capsules WHERE org_id = ? ORDER BY created_at DESC, id',
    caller.orgId,
  );
  const capsules = [];
  for (const row of rows) capsules.push(await summary(ctx, row));
  return { ok: true, count: capsules.length, capsules };
}

export async function getCapsule(ctx: Context, caller: OrgCaller, id: string) {
  return await receiptRefusals(ctx, () => capsuleDetail(ctx, caller, id));
}

async function capsuleDetail(ctx: Context, caller: OrgCaller, id: string) {
  const row = await loadCapsule(ctx, caller, id, { kind: 'capsule.read.deny' });
  return {
    ...(await summary(ctx, row)),
    revoke_receipt_id: row.revoke_receipt_id,
    documents: await ctx.store.all<{
      id: string;
      title: string;
      size_bytes: number;
      sha256: string;
      created_at: string;
    }>(
      'SELECT id, title, size_bytes, sha256, created_at FROM capsule_documents WHERE capsule_id = ? ORDER BY created_at, id',
      id,
    ),
    members: await ctx.store.all<{ id: string; email: string; role: string; created_at: string }>(
      'SELECT id, email, role, created_at FROM capsule_members WHERE capsule_id = ? ORDER BY created_at, id',
      id,
    ),
    ai_grants: (
      await ctx.store.all<{
        id: string;
        handle: string;
        agent_id: string;
        documents: string | null;
        created_at: string;
      }>(
        `SELECT g.id, a.handle, g.agent_id, g.documents, g.created_at FROM capsule_ai_grants g
           JOIN agents a ON a.id = g.agent_id WHERE g.capsule_id = ? ORDER BY g.created_at, g.id`,
        id,
      )
    ).map((g) => ({ ...g, documents: parseJson<string[] | null>(g.documents, null) })),
  };
}

export async function addDocument(
  ctx: Context,
  caller: OrgCaller,
  id: string,
  input: { title: string; text: string },
) {
  return await receiptRefusals(ctx, () => sealDocument(ctx, caller, id, input));
}

/** Seals the text with the capsule's own AES-256-GCM key; only its digest and size stay readable. */
async function sealDocument(
  ctx: Context,
  caller: OrgCaller,
  id: string,
  input: { title: string; text: string },
) {
  // Checked and written under one write lock: a revoke by another process cannot slip between.
  return ctx.store.write(async () => {
    // The refusal records the document's size, never its title or text.
    await loadCapsule(
      ctx,
      caller,
      id,
      { kind: 'capsule.document.deny', body: { size_bytes: Buffer.byteLength(input.text) } },
      true,
    );
    // Salt the capsule id, info `svc-capsule-v1`: one key per capsule, as documents were always sealed.
    const key = deriveKey(ctx.vault.secret('capsules'), { purpose: 'svc-capsule-v1', salt: id });
    const docId = newId('doc');
    const sealed = seal(key, input.text, Buffer.from(`${id}\u0000${docId}`));
    const document = {
      id: docId,
      capsule_id: id,
      title: input.title,
      size_bytes: Buffer.byteLength(input.text),
      sha256: sha256Hex(Buffer.from(sealed, 'base64')),
      sealed: true,
      created_at: nowIso(ctx),
    };
    await ctx.store.run(
      'INSERT INTO capsule_documents (id, capsule_id, title, sealed_text, sha256, size_bytes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      docId,
      id,
      input.title,
      sealed,
      document.sha256,
      document.size_bytes,
      document.created_at,
    );
    await countUnmetered(ctx, caller.orgId);

    return document;
  });
}

export async function addMember(
  ctx: Context,
  caller: OrgCaller,
  id: string,
  input: { email: string; role: MemberRole },
) {
  return await receiptRefusals(ctx, () => insertMember(ctx, caller, id, input));
}

async function insertMember(
  ctx: Context,
  caller: OrgCaller,
  id: string,
  input: { email: string; role: MemberRole },
) {
  const email = input.email.toLowerCase();
  // The chain is permanent: a refusal names the person by a digest of the address, not the address.
  const asked = { kind: 'capsule.member.deny', body: { email_sha256: sha256Hex(email), role: input.role } };
  // Checked and written under one write lock: a revoke by another process cannot slip between.
  return ctx.store.write(async () => {
    await loadCapsule(ctx, caller, id, asked, true);
    if (
      await ctx.store.get('SELECT 1 AS x FROM capsule_members WHERE capsule_id = ? AND email = ?', id, email)
    ) {
      throw refusal(
        caller,
        id,
        asked,
        'conflict',
        `${email} is already a member of this capsule`,
        'already_member',
      );
    }
    const member = { id: newId('mem'), capsule_id: id, email, role: input.role, created_at: nowIso(ctx) };
    await ctx.store.run(
      'INSERT INTO capsule_members (id, capsule_id, email, role, created_at) VALUES (?, ?, ?, ?, ?)',
      member.id,
      id,
      email,
      member.role,
      member.created_at,
    );
    await countUnmetered(ctx, caller.orgId);
    return member;
  });
}

export async function addAiGrant(
  ctx: Context,
  caller: OrgCaller,
  id: string,
  input: { agent: string; documents?: string[] | undefined },
) {
  return await receiptRefusals(ctx, () => insertAiGrant(ctx, caller, id, input));
}

async function insertAiGrant(
  ctx: Context,
  caller: OrgCaller,
  id: string,
  input: { agent: string; documents?: string[] | undefined },
) {
  const asked = {
    kind: 'capsule.ai_grant.deny',
    body: { agent: input.agent, documents: input.documents ?? null },
  };
  // Checked and written under one write lock: a revoke by another process cannot slip between.
  return ctx.store.write(async () => {
    await loadCapsule(ctx, caller, id, asked, true);
    // Handles are unique within an organization only: another organization's agent is not found,
    // and refused as unknown: the receipt says no more than the answer.
    const agent = await ctx.store.get<{ id: string; status: string }>(
      'SELECT id, status FROM agents WHERE org_id = ? AND handle = ?',
      caller.orgId,
      input.agent,
    );
    if (!agent) {
      throw refusal(
        caller,
        id,
        asked,
        'unknown_agent',
        `no agent \`${input.agent}\` in this organization: list them with GET /api/v1/agents`,
        'unknown_agent',
      );
    }
    if (agent.status !== 'active') {
      throw refusal(
        caller,
        id,
        asked,
        'invalid_request',
        `agent \`${input.agent}\` is revoked`,
        'agent_revoked',
      );
    }
    if (input.documents) {
      const known = new Set(
        (
          await ctx.store.all<{ id: string }>('SELECT id FROM capsule_documents WHERE capsule_id = ?', id)
        ).map((d) => d.id),
      );
      const unknown = input.documents.filter((d) => !known.has(d));
      if (unknown.length) {
        throw refusal(
          caller,
          id,
          asked,
          'invalid_request',
          `documents not in this capsule: ${unknown.join(', ')}`,
          'unknown_documents',
          { field: 'documents' },
        );
      }
    }
    const grant = {
      id: newId('aig'),
      capsule_id: id,
      agent: input.agent,
      agent_id: agent.id,
      documents: input.documents ?? null,
      created_at: nowIso(ctx),
    };
    await ctx.store.run(
      'INSERT INTO capsule_ai_grants (id, capsule_id, agent_id, documents, created_at) VALUES (?, ?, ?, ?, ?)',
      grant.id,
      id,
      agent.id,
      grant.documents ? JSON.stringify(grant.documents) : null,
      grant.created_at,
    );
    await countUnmetered(ctx, caller.orgId);

    return grant;
  });
}

export async function revokeCapsule(ctx: Context, caller: OrgCaller, id: string) {
  return await receiptRefusals(ctx, () => revokeOnce(ctx, caller, id));
}

async function revokeOnce(ctx: Context, caller: OrgCaller, id: string) {
  return ctx.store.write(async () => {
    const row = await loadCapsule(ctx, caller, id, { kind: 'capsule.revoke.deny' });
    if (row.status === 'revoked')
      return { ...(await summary(ctx, row)), receipt_id: row.revoke_receipt_id, already_revoked: true };
    const now = nowIso(ctx);
    const receipt = await ctx.chains.append('service', {
      kind: 'capsule.revoke',
      org_id: caller.orgId,
      signed_at: now,
      body: { org_id: caller.orgId, capsule_id: id },
    });
    await ctx.store.run(
      "UPDATE capsules SET status = 'revoked', revoked_at = ?, revoke_receipt_id = ? WHERE id = ?",
      now,
      receipt.receipt_id,
      id,
    );
    await countUnmetered(ctx, caller.orgId);
    const updated = (await ctx.store.get<CapsuleRow>('SELECT * FROM capsules WHERE id = ?', id))!;
    return { ...(await summary(ctx, updated)), receipt_id: receipt.receipt_id, already_revoked: false };
  });
}
