// Recovery: the client derives a key pair from its 12-word phrase and seals its vault backup to
// it; the service keeps only the public key, opaque sealed copies and an event log.
import { newId, nowIso, parseJson, type Context } from './context.ts';
import type { OrgCaller } from './credentials.ts';
import { Refusal, actorOf, receiptRefusals } from './governance.ts';
import { sha256Hex } from './signer.ts';
import { keyId } from '../proofs/format.ts';
import { RECOVERY_EVENT_KINDS } from './vocabulary.ts';

export { RECOVERY_EVENT_KINDS };

export type RecoveryEventKind = (typeof RECOVERY_EVENT_KINDS)[number];

async function record(ctx: Context, orgId: string, kind: string, detail: Record<string, unknown> | null) {
  const event = { id: newId('rev'), kind, detail, created_at: nowIso(ctx) };
  await ctx.store.run(
    'INSERT INTO recovery_events (id, org_id, kind, detail, created_at) VALUES (?, ?, ?, ?, ?)',
    event.id,
    orgId,
    kind,
    detail ? JSON.stringify(detail) : null,
    event.created_at,
  );
  return event;
}

export async function setRecoveryKey(ctx: Context, caller: OrgCaller, pubkeyHex: string) {
  const fingerprint = keyId(Buffer.from(pubkeyHex, 'hex'));
  return ctx.store.write(async () => {
    const previous = await ctx.store.get<{ fingerprint: string }>(
      'SELECT fingerprint FROM recovery_keys WHERE org_id = ?',
      caller.orgId,
    );
    const createdAt = nowIso(ctx);
    await ctx.store.run(
      `INSERT INTO recovery_keys (org_id, pubkey_hex, fingerprint, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (org_id) DO UPDATE SET pubkey_hex = excluded.pubkey_hex, fingerprint = excluded.fingerprint, created_at = excluded.created_at`,
      caller.orgId,
      pubkeyHex,
      fingerprint,
      createdAt,
    );
    await record(ctx, caller.orgId, previous ? 'key_replaced' : 'key_set', {
      fingerprint,
      previous: previous?.fingerprint ?? null,
    });
    return { fingerprint, pubkey_hex: pubkeyHex, created_at: createdAt, replaced: previous !== undefined };
  });
}

export async function storeRecoveryCopy(
  ctx: Context,
  caller: OrgCaller,
  input: { ciphertext_b64: string; label?: string | undefined },
) {
  return await receiptRefusals(ctx, () => insertCopy(ctx, caller, input));
}

async function insertCopy(
  ctx: Context,
  caller: OrgCaller,
  input: { ciphertext_b64: string; label?: string | undefined },
) {
  return ctx.store.write(async () => {
    if (!(await ctx.store.get('SELECT 1 AS x FROM recovery_keys WHERE org_id = ?', caller.orgId))) {
      // The refusal records the copy's size only: its sealed bytes stay out of the chain.
      throw new Refusal(
        'conflict',
        'set a recovery key first: POST /v1/recovery/pubkey',
        {},
        {
          kind: 'recovery.copy.deny',
          org_id: caller.orgId,
          body: {
            ...actorOf(caller),
            size_bytes: Buffer.byteLength(input.ciphertext_b64, 'base64'),
            reason: 'no_recovery_key',
          },
        },
      );
    }
    const copy = {
      id: newId('rcp'),
      label: input.label ?? null,
      sha256: sha256Hex(Buffer.from(input.ciphertext_b64, 'base64')),
      size_bytes: Buffer.byteLength(input.ciphertext_b64, 'base64'),
      created_at: nowIso(ctx),
    };
    await ctx.store.run(
      'INSERT INTO recovery_copies (id, org_id, label, ciphertext_b64, sha256, size_bytes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      copy.id,
      caller.orgId,
      copy.label,
      input.ciphertext_b64,
      copy.sha256,
      copy.size_bytes,
      copy.created_at,
    );
    await record(ctx, caller.orgId, 'copy_stored', { copy_id: copy.id });
    return copy;
  });
}

export async function recordRecoveryEvent(
  ctx: Context,
  caller: OrgCaller,
  input: { kind: RecoveryEventKind; detail?: Record<string, string> | undefined },
) {
  return ctx.store.write(async () => await record(ctx, caller.orgId, input.kind, input.detail ?? null));
}

export async function recoveryState(ctx: Context, caller: OrgCaller) {
  const key = await ctx.store.get<{ pubkey_hex: string; fingerprint: string; created_at: string }>(
    'SELECT pubkey_hex, fingerprint, created_at FROM recovery_keys WHERE org_id = ?',
    caller.orgId,
  );
  const copies = (await ctx.store.get<{ n: number }>(
    'SELECT COUNT(*) AS n FROM recovery_copies WHERE org_id = ?',
    caller.orgId,
  ))!.n;
  const latest = await ctx.store.get<{
    id: string;
    label: string | null;
    ciphertext_b64: string;
    sha256: string;
    size_bytes: number;
    created_at: string;
  }>(
    'SELECT id, label, ciphertext_b64, sha256, size_bytes, created_at FROM recovery_copies WHERE org_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1',
    caller.orgId,
  );
  const events = (
    await ctx.store.all<{ id: string; kind: string; detail: string | null; created_at: string }>(
      'SELECT id, kind, detail, created_at FROM recovery_events WHERE org_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 20',
      caller.orgId,
    )
  ).map((e) => ({ ...e, detail: parseJson<Record<string, unknown> | null>(e.detail, null) }));
  return {
    ok: true,
    configured: key !== undefined,
    key: key
      ? { pubkey_hex: key.pubkey_hex, fingerprint: key.fingerprint, created_at: key.created_at }
      : null,
    copy_count: copies,
    latest_copy: latest ?? null,
    events,
  };
}
