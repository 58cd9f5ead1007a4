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
import { CONNECT_STARTS_PER_CLIENT } from './vocabulary.ts';

export { CONNECT_STARTS_PER_CLIENT };

/** RFC 8628 section 6.1: user codes from letters a person cannot confuse, in two groups of four. */
const RFC8628_USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const CONNECT_CODE_TTL_SECONDS = 10 * 60;
/** RFC 8628 section 3.5: the polling interval the device is told to keep. */
export const CONNECT_POLL_INTERVAL_SECONDS = 1;

/**
 * Requests nobody has approved (pending, expired or denied) that the store holds at once. Anyone
 * may start one, so past this number a start is refused (429, with the wait until the oldest is
 * removed) instead of growing the table.
 */
export const CONNECT_MAX_OPEN_REQUESTS = 1000;
/** How long a request nobody approved is kept after it expires (so the page can say it expired). */
export const CONNECT_UNAPPROVED_RETENTION_SECONDS = 10 * 60;
/** How long a delivered request is kept after it expires. */
const CONNECT_DELIVERED_RETENTION_SECONDS = 24 * 60 * 60;
/** Ended requests removed at most per start: the cleanup never scans or deletes without bound. */
const CONNECT_CLEANUP_BATCH = 100;
/**
 * Wrong user codes tried while a request is pending after which its code stops being valid. With
 * 20^8 codes, a code is guessed with a chance of at most 1000 / 20^8 (about 4 in 100 million),
 * however many addresses or processes the guesses come from.
 */
export const CONNECT_MAX_MISSES = 1000;

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
  misses: number;
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
  const request = {
    id: newId('conn'),
    user_code: userCode(),
    expires_at: new Date(now.getTime() + CONNECT_CODE_TTL_SECONDS * 1000).toISOString(),
  };
  // One write: the count and the insert cannot interleave with another start.
  const full = await ctx.store.write(async () => {
    await removeEnded(ctx, now);
    const open = await ctx.store.get<{ n: number; oldest: string | null }>(
      "SELECT COUNT(*) AS n, MIN(expires_at) AS oldest FROM connect_requests WHERE status IN ('pending', 'denied')",
    );
    if ((open?.n ?? 0) >= CONNECT_MAX_OPEN_REQUESTS) {
      const freed = Date.parse(open!.oldest!) + CONNECT_UNAPPROVED_RETENTION_SECONDS * 1000;
      return { wait: Math.max(1, Math.ceil((freed - now.getTime()) / 1000)) };
    }
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
    return undefined;
  });
  if (full) {
    throw new ServiceError(
      'rate_limited',
      `${CONNECT_MAX_OPEN_REQUESTS} connect requests are waiting, the most this service holds: retry in ${full.wait} s`,
      { retry_after_seconds: full.wait },
    );
  }
  return {
    device_code: deviceCode,
    user_code: request.user_code,
    verification_path: `/connect?code=${request.user_code}`,
    expires_in: CONNECT_CODE_TTL_SECONDS,
    interval: CONNECT_POLL_INTERVAL_SECONDS,
  };
}

/**
 * Removes requests past their keeping time, at most a batch of each kind, through the index on
 * (status, expires_at). An approved request waiting for its computer to collect the key is kept.
 */
async function removeEnded(ctx: Context, now: Date) {
  const before = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();
  await ctx.store.run(
    `DELETE FROM connect_requests WHERE rowid IN (SELECT rowid FROM connect_requests
       WHERE status IN ('pending', 'denied') AND expires_at < ? LIMIT ?)`,
    before(CONNECT_UNAPPROVED_RETENTION_SECONDS),
    CONNECT_CLEANUP_BATCH,
  );
  await ctx.store.run(
    `DELETE FROM connect_requests WHERE rowid IN (SELECT rowid FROM connect_requests
       WHERE status = 'delivered' AND expires_at < ? LIMIT ?)`,
    before(CONNECT_DELIVERED_RETENTION_SECONDS),
    CONNECT_CLEANUP_BATCH,
  );
}

/**
 * A user code that matches no request: every request pending now counts one more wrong guess.
 * Those that reach `CONNECT_MAX_MISSES` stop being valid (see `openRequest`).
 */
async function recordMiss(ctx: Context) {
  await ctx.store.run(
    "UPDATE connect_requests SET misses = misses + 1 WHERE status = 'pending' AND expires_at > ?",
    nowIso(ctx),
  );
}

/** Whether a pending request can no longer be decided: its time ran out or its code was guessed at too often. */
function lapsed(ctx: Context, row: RequestRow): 'expired' | 'too_many_guesses' | undefined {
  if (hasPassed(ctx, row.expires_at)) return 'expired';
  if (row.misses >= CONNECT_MAX_MISSES) return 'too_many_guesses';
  return undefined;
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
  if (!row) {
    await ctx.store.write(() => recordMiss(ctx));
    throw new ServiceError('not_found', UNKNOWN_CODE);
  }
  const machine = JSON.parse(row.machine) as MachineFacts;
  // A code withdrawn after too many wrong guesses reads as expired: either way, start again.
  const expired = row.status === 'pending' && lapsed(ctx, row) !== undefined;
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
  /** `unknown_code`, `expired`, `too_many_guesses`, or `already_<status>`. */
  reason: string;
  row: RequestRow | undefined;
}

/**
 * A pending request, still open; or why a decided, lapsed or unknown code is refused. An unknown
 * code counts as a wrong guess against every pending request (inside the caller's write).
 */
async function openRequest(ctx: Context, code: string): Promise<{ row: RequestRow } | { refused: Refused }> {
  const row = await byUserCode(ctx, code);
  if (!row) {
    await recordMiss(ctx);
    return { refused: { code: 'not_found', message: UNKNOWN_CODE, reason: 'unknown_code', row } };
  }
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
  const why = lapsed(ctx, row);
  if (why) {
    return {
      refused: {
        code: 'gone',
        message:
          why === 'expired'
            ? 'this code expired: ask your assistant for a new one'
            : 'this code was withdrawn after too many wrong codes were tried: ask your assistant for a new one',
        reason: why,
        row,
      },
    };
  }
  return { row };
}

const LAPSED = new Set(['expired', 'too_many_guesses']);

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
  // A lapsed request is marked decided by its first refusal: an unauthenticated deny of it is
  // receipted only then, so nobody can grow the chain by denying one lapsed code again and again.
  if (LAPSED.has(entry.reason) && entry.row && entry.row.decided_at === null) {
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
 * deny names no caller, so only the first refusal of a lapsed code leaves a receipt (see above).
 */
export async function deny(ctx: Context, code: string): Promise<{ status: 'denied'; receipt_id: string }> {
  const outcome = await ctx.store.write(async () => {
    const open = await openRequest(ctx, code);
    if ('refused' in open) {
      const { refused } = open;
      const first = LAPSED.has(refused.reason) && refused.row?.decided_at === null;
      const receipt = first
        ? await receiptDenial(ctx, { org_id: null, key_id: null, row: refused.row, reason: refused.reason })
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
      return lapsed(ctx, row) ? { status: 'expired' as const } : { status: 'pending' as const };
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
