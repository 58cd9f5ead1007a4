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

async function byUserCode(ctx: Context, code: string): Promise<RequestRow> {
  const row = await ctx.store.get<RequestRow>(
    'SELECT * FROM connect_requests WHERE user_code = ?',
    normalizeUserCode(code),
  );
  if (!row)
    throw new ServiceError('not_found', 'no such code: check it against the one your assistant shows');
  return row;
}

/** What the approval page shows: the machine and the code, never anything secret. */
export async function describeRequest(ctx: Context, code: string) {
  const row = await byUserCode(ctx, code);
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

/** A pending request, still open: a decided or expired code is refused. */
async function openRequest(ctx: Context, code: string) {
  const row = await byUserCode(ctx, code);
  if (row.status !== 'pending') throw new ServiceError('conflict', `this code was already ${row.status}`);
  if (hasPassed(ctx, row.expires_at))
    throw new ServiceError('gone', 'this code expired: ask your assistant for a new one');
  return row;
}

/** Anyone shown the code may refuse it: denying grants nothing. */
export async function deny(ctx: Context, code: string) {
  return ctx.store.write(async () => {
    const row = await openRequest(ctx, code);
    await ctx.store.run(
      "UPDATE connect_requests SET status = 'denied', decided_at = ? WHERE id = ?",
      nowIso(ctx),
      row.id,
    );
    return { status: 'denied' as const };
  });
}

export async function approve(ctx: Context, caller: OrgCaller, code: string) {
  return ctx.store.write(async () => {
    const row = await openRequest(ctx, code);
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
