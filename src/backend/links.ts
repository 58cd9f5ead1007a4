// Share links (docs/SHARE.md): content sealed on the sender's side, kept here with its policy only.
// The key that opens it travels in the link's fragment, which browsers never send, so the service
// holds ciphertext it cannot read. Every open attempt, allowed or refused, is decided in one write
// with its signed receipt; a link that ends (used up, burned, revoked, locked, expired) loses its
// ciphertext in the same write.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../vault/derive.ts';
import { hashAccessCode, keepAccessCode, sameAccessCode } from './access-code.ts';
import { hasPassed, nowIso, type Context } from './context.ts';
import type { OrgCaller } from './credentials.ts';
import { ServiceError } from './errors.ts';
import { Refusal, actorOf, receiptRefusals } from './governance.ts';
import type { Receipt } from './chains.ts';
import {
  LINK_CIPHER_OVERHEAD_BYTES,
  LINK_DEFAULT_MAX_OPENS,
  LINK_DEFAULT_TTL_HOURS,
  LINK_LIVE_BYTES_PER_ORG,
  LINK_LIVE_PER_ORG,
  LINK_PAGE_NONCE_SECONDS,
  LINK_WRONG_CODES_MAX,
} from './vocabulary.ts';

export {
  LINK_CIPHER_OVERHEAD_BYTES,
  LINK_DEFAULT_MAX_OPENS,
  LINK_DEFAULT_TTL_HOURS,
  LINK_LIVE_BYTES_PER_ORG,
  LINK_LIVE_PER_ORG,
  LINK_PAGE_NONCE_SECONDS,
  LINK_WRONG_CODES_MAX,
};

export type LinkState = 'active' | 'used_up' | 'burned' | 'revoked' | 'locked' | 'expired';

interface LinkRow {
  link_id: string;
  org_id: string;
  created_by: string;
  burn_after_read: number;
  ciphertext: Uint8Array | null;
  name_ciphertext: Uint8Array | null;
  size_bytes: number;
  content_type: string;
  key_check: string;
  sender_name: string | null;
  view_only: number;
  code_hash: Uint8Array | null;
  code_salt: Uint8Array | null;
  wrong_codes: number;
  max_opens: number;
  opens: number;
  created_at: string;
  expires_at: string;
  ended_at: string | null;
  end_reason: Exclude<LinkState, 'active'> | null;
  ended_by: string | null;
  end_note: string | null;
  receipt_id: string;
}

export interface CreateLinkInput {
  ciphertext_b64: string;
  name_ciphertext_b64?: string | undefined;
  size_bytes: number;
  content_type: string;
  key_check: string;
  sender_name?: string | undefined;
  expires_hours?: number | undefined;
  max_opens?: number | undefined;
  burn_after_read?: boolean | undefined;
  view_only?: boolean | undefined;
  code?: string | undefined;
}

const sha256Hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * A link's id: 128 random bits in base64url, so ids cannot be guessed or walked. Never starting
 * with `-`, which a command line would take for an option (`svc burn -x...`).
 */
function newLinkId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

export const linkPath = (linkId: string) => `/s/${linkId}`;

function stateOf(ctx: Context, row: LinkRow): LinkState {
  if (row.end_reason) return row.end_reason;
  return hasPassed(ctx, row.expires_at) ? 'expired' : 'active';
}

/** What a state means to the person holding the link, and whether anything can still be done. */
const STATE_SAID: Record<Exclude<LinkState, 'active'>, string> = {
  used_up: 'was opened as many times as its sender allowed',
  burned: 'was destroyed by its sender',
  revoked: "was revoked by its sender's organization",
  locked: 'was destroyed after too many wrong access codes',
  expired: 'has expired',
};

async function linkRow(ctx: Context, linkId: string): Promise<LinkRow | undefined> {
  return await ctx.store.get<LinkRow>('SELECT * FROM links WHERE link_id = ?', linkId);
}

// ---------------------------------------------------------------- the sender's side

export async function createLink(ctx: Context, caller: OrgCaller, input: CreateLinkInput) {
  return await receiptRefusals(ctx, () => createOnce(ctx, caller, input));
}

async function createOnce(ctx: Context, caller: OrgCaller, input: CreateLinkInput) {
  const ciphertext = Buffer.from(input.ciphertext_b64, 'base64');
  const nameCiphertext =
    input.name_ciphertext_b64 === undefined ? null : Buffer.from(input.name_ciphertext_b64, 'base64');
  if (ciphertext.byteLength !== input.size_bytes + LINK_CIPHER_OVERHEAD_BYTES) {
    throw new ServiceError(
      'invalid_request',
      `ciphertext_b64 must be the 12-byte IV, then size_bytes of AES-256-GCM ciphertext, then its 16-byte tag: ${input.size_bytes + LINK_CIPHER_OVERHEAD_BYTES} bytes, not ${ciphertext.byteLength}`,
    );
  }
  const burnAfterRead = input.burn_after_read ?? false;
  if (burnAfterRead && input.max_opens !== undefined && input.max_opens !== 1) {
    throw new ServiceError(
      'invalid_request',
      'a burn-after-read link opens once: leave out max_opens or give 1',
    );
  }
  const maxOpens = burnAfterRead ? 1 : (input.max_opens ?? LINK_DEFAULT_MAX_OPENS);
  const code = input.code === undefined ? null : await keepAccessCode(input.code);
  await sweepLinks(ctx);
  const now = ctx.clock();
  const expiresAt = new Date(
    now.getTime() + (input.expires_hours ?? LINK_DEFAULT_TTL_HOURS) * 3_600_000,
  ).toISOString();
  const linkId = newLinkId();
  return ctx.store.write(async () => {
    const live = await ctx.store.get<{ links: number; bytes: number }>(
      `SELECT COUNT(*) AS links, COALESCE(SUM(LENGTH(ciphertext)), 0) AS bytes FROM links
        WHERE org_id = ? AND ciphertext IS NOT NULL`,
      caller.orgId,
    );
    const over =
      (live?.links ?? 0) + 1 > LINK_LIVE_PER_ORG
        ? `the organization already has ${LINK_LIVE_PER_ORG} live links, the most allowed`
        : (live?.bytes ?? 0) + ciphertext.byteLength > LINK_LIVE_BYTES_PER_ORG
          ? `this link would take the organization's live links past ${LINK_LIVE_BYTES_PER_ORG} bytes`
          : null;
    if (over) {
      throw new Refusal(
        'quota_exceeded',
        `${over}: burn links no longer needed (svc links, svc burn) or wait for them to expire`,
        {},
        {
          kind: 'link.create.deny',
          org_id: caller.orgId,
          body: { ...actorOf(caller), size_bytes: input.size_bytes, reason: 'quota_exceeded' },
        },
      );
    }
    const receipt = await ctx.chains.append('service', {
      kind: 'link.create',
      org_id: caller.orgId,
      signed_at: now.toISOString(),
      body: {
        ...actorOf(caller),
        link_id: linkId,
        // Digests and policy only: the service never sees the content or its key.
        ciphertext_sha256: sha256Hex(ciphertext),
        size_bytes: input.size_bytes,
        content_type: input.content_type,
        expires_at: expiresAt,
        max_opens: maxOpens,
        burn_after_read: burnAfterRead,
        view_only: input.view_only ?? false,
        has_code: code !== null,
      },
    });
    await ctx.store.run(
      `INSERT INTO links (link_id, org_id, created_by, burn_after_read, ciphertext, name_ciphertext, size_bytes,
         content_type, key_check, sender_name, view_only, code_hash, code_salt, max_opens, created_at, expires_at,
         receipt_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      linkId,
      caller.orgId,
      caller.keyId,
      burnAfterRead ? 1 : 0,
      ciphertext,
      nameCiphertext,
      input.size_bytes,
      input.content_type,
      input.key_check,
      input.sender_name ?? null,
      input.view_only ? 1 : 0,
      code?.hash ?? null,
      code?.salt ?? null,
      maxOpens,
      now.toISOString(),
      expiresAt,
      receipt.receipt_id,
    );
    return {
      link_id: linkId,
      path: linkPath(linkId),
      created_at: now.toISOString(),
      expires_at: expiresAt,
      max_opens: maxOpens,
      burn_after_read: burnAfterRead,
      view_only: input.view_only ?? false,
      has_code: code !== null,
      receipt,
    };
  });
}

/** A link as its organization sees it: state and counts, never content. */
function statusOf(ctx: Context, row: LinkRow) {
  const state = stateOf(ctx, row);
  return {
    link_id: row.link_id,
    path: linkPath(row.link_id),
    state,
    content_type: row.content_type,
    size_bytes: row.size_bytes,
    created_at: row.created_at,
    created_by: row.created_by,
    expires_at: row.expires_at,
    burn_after_read: row.burn_after_read === 1,
    view_only: row.view_only === 1,
    has_code: row.code_hash !== null,
    max_opens: row.max_opens,
    opens_used: row.opens,
    opens_left: state === 'active' ? row.max_opens - row.opens : 0,
    wrong_codes: row.wrong_codes,
    ended_at: row.ended_at ?? (state === 'expired' ? row.expires_at : null),
    ended_by: row.ended_by,
    end_note: row.end_note,
    receipt_id: row.receipt_id,
  };
}

/**
 * The organization's link, or a receipted 404 (`kind`) that does not say whether another
 * organization has it.
 */
async function ownLink(ctx: Context, caller: OrgCaller, linkId: string, kind: string): Promise<LinkRow> {
  const row = await linkRow(ctx, linkId);
  if (!row || row.org_id !== caller.orgId) {
    throw new Refusal(
      'not_found',
      `no link ${linkId} in this organization: list them with svc links`,
      {},
      { kind, org_id: caller.orgId, body: { ...actorOf(caller), link_id: linkId, reason: 'unknown_link' } },
    );
  }
  return row;
}

export const LINKS_PAGE_MAX = 200;

export async function listLinks(ctx: Context, caller: OrgCaller, limit = 50) {
  const rows = await ctx.store.all<LinkRow>(
    'SELECT * FROM links WHERE org_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?',
    caller.orgId,
    Math.min(limit, LINKS_PAGE_MAX),
  );
  return { links: rows.map((row) => statusOf(ctx, row)), count: rows.length };
}

export async function linkStatus(ctx: Context, caller: OrgCaller, linkId: string) {
  const row = await receiptRefusals(ctx, () => ownLink(ctx, caller, linkId, 'link.status.deny'));
  const attempts = await ctx.store.all<{
    at: string;
    outcome: 'allow' | 'deny';
    reason: string;
    open_number: number | null;
    receipt_id: string;
  }>(
    'SELECT at, outcome, reason, open_number, receipt_id FROM link_attempts WHERE link_id = ? ORDER BY rowid',
    linkId,
  );
  return { ...statusOf(ctx, row), attempts };
}

/**
 * Ends a link now: its ciphertext is destroyed in the same write as the receipt. `burned` is the
 * sender's choice; `revoked` the organization's policy, with a reason the link's page shows. A link
 * that has already ended answers its state without a second receipt.
 */
export async function endLink(
  ctx: Context,
  caller: OrgCaller,
  linkId: string,
  how: 'burned' | 'revoked',
  note?: string,
) {
  return await receiptRefusals(ctx, () => endOnce(ctx, caller, linkId, how, note));
}

async function endOnce(
  ctx: Context,
  caller: OrgCaller,
  linkId: string,
  how: 'burned' | 'revoked',
  note: string | undefined,
) {
  return ctx.store.write(async () => {
    const row = await ownLink(ctx, caller, linkId, how === 'burned' ? 'link.burn.deny' : 'link.revoke.deny');
    const state = stateOf(ctx, row);
    if (state !== 'active') return { ...statusOf(ctx, row), receipt: null, already_ended: true };
    const at = nowIso(ctx);
    const receipt = await ctx.chains.append('service', {
      kind: how === 'burned' ? 'link.burn' : 'link.revoke',
      org_id: caller.orgId,
      signed_at: at,
      body: { ...actorOf(caller), link_id: linkId, opens_used: row.opens, reason: note ?? null },
    });
    await ctx.store.run(
      `UPDATE links SET ciphertext = NULL, name_ciphertext = NULL, ended_at = ?, end_reason = ?, ended_by = ?,
         end_note = ? WHERE link_id = ?`,
      at,
      how,
      caller.keyId,
      note ?? null,
      linkId,
    );
    return { ...statusOf(ctx, (await linkRow(ctx, linkId))!), receipt, already_ended: false };
  });
}

/** At most this many expired links lose their ciphertext per sweep. */
const SWEEP_MAX_LINKS = 64;

/**
 * Destroys the ciphertext of links past their expiry, oldest first and bounded, with one
 * `link.sweep` receipt per organization naming them. Runs when a link is made, so storage cannot
 * grow without expired content being cleared.
 */
export async function sweepLinks(ctx: Context): Promise<{ swept: number; receipts: Receipt[] }> {
  return ctx.store.write(async () => {
    const now = nowIso(ctx);
    const batch = await ctx.store.all<{ link_id: string; org_id: string; expires_at: string }>(
      `SELECT link_id, org_id, expires_at FROM links WHERE ciphertext IS NOT NULL AND expires_at <= ?
        ORDER BY expires_at LIMIT ?`,
      now,
      SWEEP_MAX_LINKS,
    );
    const byOrg = new Map<string, string[]>();
    for (const row of batch) byOrg.set(row.org_id, [...(byOrg.get(row.org_id) ?? []), row.link_id]);
    const receipts: Receipt[] = [];
    for (const [orgId, ids] of byOrg) {
      receipts.push(
        await ctx.chains.append('service', {
          kind: 'link.sweep',
          org_id: orgId,
          signed_at: now,
          body: { link_ids: ids, reason: 'expired' },
        }),
      );
      for (const id of ids) {
        await ctx.store.run(
          `UPDATE links SET ciphertext = NULL, name_ciphertext = NULL, ended_at = expires_at, end_reason = 'expired',
             ended_by = 'svc' WHERE link_id = ?`,
          id,
        );
      }
    }
    return { swept: batch.length, receipts };
  });
}

// ---------------------------------------------------------------- the page's side (no credential)

/**
 * The page's nonce: when it stops being accepted, and an HMAC over the link id and that time under
 * a key derived from the vault. A GET of the page hands one out; only a POST that returns it opens
 * the link, so a preview fetch of the page never does.
 */
function pageMac(ctx: Context, linkId: string, until: number): string {
  const key = deriveKey(ctx.vault.secret('data-columns'), { purpose: 'svc-link-page-v1', salt: 'svc' });
  return createHmac('sha256', key).update(`${linkId}\u0000${until}`).digest('base64url');
}

export function pageNonce(ctx: Context, linkId: string): string {
  const until = Math.floor(ctx.clock().getTime() / 1000) + LINK_PAGE_NONCE_SECONDS;
  return `${until}.${pageMac(ctx, linkId, until)}`;
}

function nonceHolds(ctx: Context, linkId: string, nonce: string): boolean {
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(nonce);
  if (!match) return false;
  const until = Number(match[1]);
  if (until * 1000 <= ctx.clock().getTime()) return false;
  const expected = Buffer.from(pageMac(ctx, linkId, until));
  const given = Buffer.from(match[2]!);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

function unknownLink(linkId: string): ServiceError {
  return new ServiceError(
    'not_found',
    `no link ${linkId}: check that the whole link was copied, or ask its sender for a new one`,
  );
}

/** What the page shows before anything is opened: no content, and no count is taken. */
export async function viewLink(ctx: Context, linkId: string) {
  const row = await linkRow(ctx, linkId);
  if (!row) throw unknownLink(linkId);
  const state = stateOf(ctx, row);
  return {
    link_id: row.link_id,
    state,
    message: state === 'active' ? null : `This link ${STATE_SAID[state]}.`,
    content_type: row.content_type,
    size_bytes: row.size_bytes,
    expires_at: row.expires_at,
    sender_name: row.sender_name,
    view_only: row.view_only === 1,
    burn_after_read: row.burn_after_read === 1,
    needs_code: row.code_hash !== null,
    key_check: row.key_check,
    opens_left: state === 'active' ? row.max_opens - row.opens : 0,
    open_nonce: state === 'active' ? pageNonce(ctx, linkId) : null,
  };
}

type OpenReason =
  'opened' | 'stale_page' | 'code_required' | 'wrong_code' | `link_${Exclude<LinkState, 'active'>}`;

/**
 * Opens a link: the ciphertext is released only with an allow receipt, in the same write that
 * counts the open, so concurrent opens of a one-open link release it once. Every refusal but an
 * unknown id is receipted too (an unknown id names no organization to file it under).
 */
export async function openLink(
  ctx: Context,
  linkId: string,
  input: { nonce: string; code?: string | undefined },
) {
  const before = await linkRow(ctx, linkId);
  if (!before) throw unknownLink(linkId);
  // The slow hash runs before the write, so a guesser cannot hold the store's lock with it.
  const codeHash =
    before.code_salt && input.code !== undefined ? await hashAccessCode(input.code, before.code_salt) : null;
  const decided = await ctx.store.write(async () => {
    const row = (await linkRow(ctx, linkId))!;
    const state = stateOf(ctx, row);
    const at = nowIso(ctx);
    let reason: OpenReason;
    let ends: Exclude<LinkState, 'active'> | null = null;
    if (state !== 'active') {
      reason = `link_${state}`;
      if (state === 'expired' && row.ciphertext) ends = 'expired';
    } else if (!nonceHolds(ctx, linkId, input.nonce)) reason = 'stale_page';
    else if (row.code_hash && codeHash === null) reason = 'code_required';
    else if (row.code_hash && !sameAccessCode(row.code_hash, codeHash!)) {
      reason = 'wrong_code';
      if (row.wrong_codes + 1 >= LINK_WRONG_CODES_MAX) ends = 'locked';
    } else {
      reason = 'opened';
      if (row.opens + 1 >= row.max_opens) ends = 'used_up';
    }
    const outcome = reason === 'opened' ? 'allow' : 'deny';
    const openNumber = outcome === 'allow' ? row.opens + 1 : null;
    const receipt = await ctx.chains.append('service', {
      kind: 'link.open',
      org_id: row.org_id,
      signed_at: at,
      body: { link_id: linkId, outcome, reason, open_number: openNumber, ...(ends ? { ends: ends } : {}) },
    });
    await ctx.store.run(
      'INSERT INTO link_attempts (link_id, at, outcome, reason, open_number, receipt_id) VALUES (?, ?, ?, ?, ?, ?)',
      linkId,
      at,
      outcome,
      reason,
      openNumber,
      receipt.receipt_id,
    );
    await ctx.store.run(
      `UPDATE links SET opens = opens + ?, wrong_codes = wrong_codes + ? WHERE link_id = ?`,
      outcome === 'allow' ? 1 : 0,
      reason === 'wrong_code' ? 1 : 0,
      linkId,
    );
    if (ends) {
      await ctx.store.run(
        `UPDATE links SET ciphertext = NULL, name_ciphertext = NULL, ended_at = ?, end_reason = ?, ended_by = 'svc'
          WHERE link_id = ?`,
        ends === 'expired' ? row.expires_at : at,
        ends,
        linkId,
      );
    }
    return { row, reason, receipt, openNumber, ends };
  });
  const { row, reason, receipt, openNumber, ends } = decided;
  const receiptFields = { receipt_id: receipt.receipt_id, receipt };
  switch (reason) {
    case 'opened':
      return {
        link_id: linkId,
        ciphertext_b64: Buffer.from(row.ciphertext!).toString('base64'),
        name_ciphertext_b64: row.name_ciphertext ? Buffer.from(row.name_ciphertext).toString('base64') : null,
        content_type: row.content_type,
        size_bytes: row.size_bytes,
        view_only: row.view_only === 1,
        burn_after_read: row.burn_after_read === 1,
        open_number: openNumber!,
        opens_left: row.max_opens - openNumber!,
        destroyed: ends === 'used_up',
        ...receiptFields,
      };
    case 'stale_page':
      throw new ServiceError('stale_page', 'this page was loaded too long ago: reload it, then open again', {
        reason,
        ...receiptFields,
      });
    case 'code_required':
      throw new ServiceError('code_required', 'this link needs the access code its sender gave you', {
        reason,
        ...receiptFields,
      });
    case 'wrong_code': {
      const left = Math.max(0, LINK_WRONG_CODES_MAX - row.wrong_codes - 1);
      throw new ServiceError(
        'wrong_code',
        left
          ? `wrong access code: ${left} more wrong code${left === 1 ? '' : 's'} and the link is destroyed`
          : 'wrong access code: that was the last try, and the link is now destroyed',
        { reason, attempts_left: left, ...receiptFields },
      );
    }
    default: {
      const state = reason.slice('link_'.length) as Exclude<LinkState, 'active'>;
      const note = state === 'revoked' && row.end_note ? ` (${row.end_note})` : '';
      const when = row.ended_at ?? row.expires_at;
      throw new ServiceError(
        'gone',
        `this link ${STATE_SAID[state]}${note} at ${when}; nothing can be opened`,
        {
          reason,
          state,
          ended_at: when,
          ...receiptFields,
        },
      );
    }
  }
}
