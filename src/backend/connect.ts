// Linking a computer by browser approval, modelled on the OAuth device authorization grant
// (RFC 8628): the device starts a request and polls with its secret device code; a person opens
// the verification page, checks the machine name and the short user code, and approves with an
// organization key. The device then receives, once, a new organization key bound to its node.
import { randomBytes, randomInt } from 'node:crypto';
import { ServiceError } from './errors.ts';
import { hasPassed, newId, nowIso, type Context } from './context.ts';
import { createApiKey, type OrgCaller, type Scope } from './credentials.ts';
import { sha256Hex } from './signer.ts';
import { registerNode, type MachineFacts } from './setup.ts';

/** RFC 8628 section 6.1: user codes from letters a person cannot confuse, in two groups of four. */
const RFC8628_USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const CONNECT_CODE_TTL_SECONDS = 10 * 60;
/** RFC 8628 section 3.5: the polling interval the device is told to keep. */
export const CONNECT_POLL_INTERVAL_SECONDS = 1;

interface RequestRow {
  id: string;
  device_code_hash: string;
  user_code: string;
  machine: string;
  status: 'pending' | 'approved' | 'denied' | 'delivered';
  created_at: string;
  expires_at: string;
  org_id: string | null;
  node_id: string | null;
  scopes: string | null;
  decided_at: string | null;
}

function userCode(): string {
  const pick = () => RFC8628_USER_CODE_ALPHABET[randomInt(RFC8628_USER_CODE_ALPHABET.length)];
  return `${Array.from({ length: 4 }, pick).join('')}-${Array.from({ length: 4 }, pick).join('')}`;
}

/** Normalizes what a person types: case and the dash do not matter. */
export function normalizeUserCode(code: string): string {
  const letters = code.toUpperCase().replace(/[^A-Z]/g, '');
  return letters.length === 8 ? `${letters.slice(0, 4)}-${letters.slice(4)}` : letters;
}

export async function startConnect(ctx: Context, machine: MachineFacts) {
  const deviceCode = randomBytes(32).toString('base64url');
  const now = ctx.clock();
  // Anyone on this machine may start a request: requests that ended a day ago are dropped.
  await ctx.store.run(
    "DELETE FROM connect_requests WHERE expires_at < ? AND status IN ('pending', 'denied', 'delivered')",
    new Date(now.getTime() - 86_400_000).toISOString(),
  );
  const request = {
    id: newId('conn'),
    user_code: userCode(),
    expires_at: new Date(now.getTime() + CONNECT_CODE_TTL_SECONDS * 1000).toISOString(),
  };
  await ctx.store.run(
    `INSERT INTO connect_requests (id, device_code_hash, user_code, machine, status, created_at, expires_at)
     VALUES (?, ?, ?, ?, 'pending', ?, ?)`,
    request.id,
    sha256Hex(deviceCode),
    request.user_code,
    JSON.stringify(machine),
    now.toISOString(),
    request.expires_at,
  );
  return {
    device_code: deviceCode,
    user_code: request.user_code,
    verification_path: `/connect?code=${request.user_code}`,
    expires_in: CONNECT_CODE_TTL_SECONDS,
    interval: CONNECT_POLL_INTERVAL_SECONDS,
  };
}

async function byUserCode(ctx: Context, code: string): Promise<RequestRow | undefined> {
  return await ctx.store.get<RequestRow>(
    'SELECT * FROM connect_requests WHERE user_code = ?',
    normalizeUserCode(code),
  );
}

const UNKNOWN_CODE = 'no such code: check it against the one your assistant shows';

/** What the approval page shows: the machine and the code, never anything secret. */
export async function describeRequest(ctx: Context, code: string) {
  const row = await byUserCode(ctx, code);
  if (!row) throw new ServiceError('not_found', UNKNOWN_CODE);
  const machine = JSON.parse(row.machine) as MachineFacts;
  const expired = row.status === 'pending' && hasPassed(ctx, row.expires_at);
  return {
    user_code: row.user_code,
    hostname: machine.hostname,
    platform: `${machine.platform}/${machine.arch}`,
    status: expired ? ('expired' as const) : row.status === 'delivered' ? ('approved' as const) : row.status,
    expires_at: row.expires_at,
  };
}

interface Refused {
  code: 'not_found' | 'conflict' | 'gone';
  message: string;
  /** `unknown_code`, `expired`, or `already_<status>`. */
  reason: string;
  row: RequestRow | undefined;
}

/** A pending request, still open; or why a decided, expired or unknown code is refused. */
async function openRequest(ctx: Context, code: string): Promise<{ row: RequestRow } | { refused: Refused }> {
  const row = await byUserCode(ctx, code);
  if (!row) return { refused: { code: 'not_found', message: UNKNOWN_CODE, reason: 'unknown_code', row } };
  if (row.status !== 'pending') {
    return {
      refused: {
        code: 'conflict',
        message: `this code was already ${row.status}`,
        reason: `already_${row.status}`,
        row,
      },
    };
  }
  if (hasPassed(ctx, row.expires_at)) {
    return {
      refused: {
        code: 'gone',
        message: 'this code expired: ask your assistant for a new one',
        reason: 'expired',
        row,
      },
    };
  }
  return { row };
}

/**
 * Receipts a connect request that was not approved: denied by a person (`key_id` null: denying
 * needs no credential) or an approval refused. Runs inside the caller's write, which returns
 * normally, so the receipt commits even when the request is answered with an error.
 */
async function receiptDenial(
  ctx: Context,
  entry: { org_id: string | null; key_id: string | null; row: RequestRow | undefined; reason: string },
) {
  const now = nowIso(ctx);
  // An expired request is marked decided by its first refusal: an unauthenticated deny of it is
  // receipted only then, so nobody can grow the chain by denying one expired code again and again.
  if (entry.reason === 'expired' && entry.row && entry.row.decided_at === null) {
    await ctx.store.run('UPDATE connect_requests SET decided_at = ? WHERE id = ?', now, entry.row.id);
  }
  return await ctx.chains.append('service', {
    kind: 'node.connect.deny',
    org_id: entry.org_id,
    signed_at: now,
    body: {
      org_id: entry.org_id,
      key_id: entry.key_id,
      request_id: entry.row?.id ?? null,
      hostname: entry.row ? (JSON.parse(entry.row.machine) as MachineFacts).hostname : null,
      reason: entry.reason,
    },
  });
}

/**
 * Anyone shown the code may refuse it: denying grants nothing. The denial is receipted; a refused
 * deny names no caller, so only the first refusal of an expired code leaves a receipt (see above).
 */
export async function deny(ctx: Context, code: string): Promise<{ status: 'denied'; receipt_id: string }> {
  const outcome = await ctx.store.write(async () => {
    const open = await openRequest(ctx, code);
    if ('refused' in open) {
      const { refused } = open;
      const first = refused.reason === 'expired' && refused.row?.decided_at === null;
      const receipt = first
        ? await receiptDenial(ctx, { org_id: null, key_id: null, row: refused.row, reason: 'expired' })
        : undefined;
      return {
        error: new ServiceError(
          refused.code,
          refused.message,
          receipt ? { receipt_id: receipt.receipt_id } : {},
        ),
      };
    }
    await ctx.store.run(
      "UPDATE connect_requests SET status = 'denied', decided_at = ? WHERE id = ?",
      nowIso(ctx),
      open.row.id,
    );
    const receipt = await receiptDenial(ctx, { org_id: null, key_id: null, row: open.row, reason: 'denied' });
    return { status: 'denied' as const, receipt_id: receipt.receipt_id };
  });
  // Thrown outside the write, so the receipt of the refusal stays committed.
  if ('error' in outcome) throw outcome.error;
  return outcome;
}

export async function approve(ctx: Context, caller: OrgCaller, code: string) {
  const outcome = await ctx.store.write(async () => {
    const open = await openRequest(ctx, code);
    if ('refused' in open) {
      const { refused } = open;
      const receipt = await receiptDenial(ctx, {
        org_id: caller.orgId,
        key_id: caller.keyId,
        row: refused.row,
        reason: refused.reason,
      });
      return { error: new ServiceError(refused.code, refused.message, { receipt_id: receipt.receipt_id }) };
    }
    const { row } = open;
    const now = nowIso(ctx);
    const machine = JSON.parse(row.machine) as MachineFacts;
    const { node } = await registerNode(ctx, caller, machine);
    await ctx.chains.append('service', {
      kind: 'node.connect',
      org_id: caller.orgId,
      signed_at: now,
      body: {
        org_id: caller.orgId,
        node_id: node.node_id,
        hostname: machine.hostname,
        approved_by_key: caller.keyId,
      },
    });
    // The computer's key is made when it collects it, with the approver's scopes: approving never
    // hands out more than the approver holds.
    await ctx.store.run(
      "UPDATE connect_requests SET status = 'approved', decided_at = ?, org_id = ?, node_id = ?, scopes = ? WHERE id = ?",
      now,
      caller.orgId,
      node.node_id,
      JSON.stringify(caller.scopes),
      row.id,
    );
    return { status: 'approved' as const, hostname: machine.hostname };
  });
  // Thrown outside the write, so the receipt of the refusal stays committed.
  if ('error' in outcome) throw outcome.error;
  return outcome;
}

/** The device's poll: the key is made and leaves exactly once; afterwards only its id is kept. */
export async function pollConnect(ctx: Context, deviceCode: string) {
  return ctx.store.write(async () => {
    const row = await ctx.store.get<RequestRow>(
      'SELECT * FROM connect_requests WHERE device_code_hash = ?',
      sha256Hex(deviceCode),
    );
    if (!row) throw new ServiceError('not_found', 'unknown device code: start again with svc_connect');
    if (row.status === 'pending') {
      return hasPassed(ctx, row.expires_at) ? { status: 'expired' as const } : { status: 'pending' as const };
    }
    if (row.status === 'denied') return { status: 'denied' as const };
    if (row.status === 'delivered') throw new ServiceError('gone', 'this connection was already delivered');
    const scopes = JSON.parse(row.scopes ?? '[]') as Scope[];
    const { api_key, key_id } = await createApiKey(ctx, { orgId: row.org_id!, scopes });
    await ctx.store.run(
      "UPDATE connect_requests SET status = 'delivered', key_id = ? WHERE id = ?",
      key_id,
      row.id,
    );
    await ctx.store.run('UPDATE nodes SET key_id = ? WHERE id = ?', key_id, row.node_id);
    return { status: 'approved' as const, api_key, key_id, org_id: row.org_id!, node_id: row.node_id! };
  });
}
