// Exposures (docs/SHARE.md, Exposures): a folder of this computer offered to a partner for a time.
// The partner's page (and a program, over the same link) lists the files the read gate lets a
// partner have and asks for a clean copy of one: it is made from the file at that moment with the
// scanner's redaction (redact.ts), never the file's own bytes, sent once and not kept. Every copy
// and every refused request is decided in one write with its signed receipt, which names the file
// and the token types and counts, never a value. Exposures belong to this computer's store, like
// its seals: they are filed under no organization.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { deriveKey } from '../vault/derive.ts';
import { GateUnavailable, type Asker } from '../gate/check.ts';
import { RulesUnreadable } from '../gate/local.ts';
import { hashAccessCode, keepAccessCode, sameAccessCode } from './access-code.ts';
import { hasPassed, nowIso, type Context, type LocalGate } from './context.ts';
import { ServiceError } from './errors.ts';
import { cleanTextOf } from './redact.ts';
import { filesToScan } from './scan-files.ts';
import {
  EXPOSURE_COPY_MAX_BYTES,
  EXPOSURE_DEFAULT_MAX_COPIES,
  EXPOSURE_DEFAULT_TTL_HOURS,
  EXPOSURE_MAX_FILES,
  EXPOSURE_WRONG_CODES_MAX,
  LINK_PAGE_NONCE_SECONDS,
} from './vocabulary.ts';

export {
  EXPOSURE_COPY_MAX_BYTES,
  EXPOSURE_DEFAULT_MAX_COPIES,
  EXPOSURE_DEFAULT_TTL_HOURS,
  EXPOSURE_MAX_FILES,
  EXPOSURE_WRONG_CODES_MAX,
};

export type ExposureState = 'active' | 'used_up' | 'ended' | 'locked' | 'expired';
type Ended = Exclude<ExposureState, 'active'>;

/**
 * Who the read gate decides for: every partner of every exposure is the client `partner`, with
 * no agent handle, so a rule with `who: ["partner"]` holds for partners only, and a rule without
 * `who` holds for them as for any agent. A daily `limit` counts all partners together.
 */
export const PARTNER_CLIENT = 'partner';

/** What a partner may have a copy of: what the gate lets out, clean. `ask` has nobody to ask. */
const LET_OUT = new Set(['allowed', 'limited', 'clean_copy']);

interface ExposureRow {
  exposure_id: string;
  folder: string;
  created_by: string;
  code_hash: Uint8Array | null;
  code_salt: Uint8Array | null;
  wrong_codes: number;
  max_copies: number;
  copies: number;
  created_at: string;
  expires_at: string;
  ended_at: string | null;
  end_reason: Exclude<Ended, 'expired'> | null;
  ended_by: string | null;
  receipt_id: string;
}

export interface StartExposureInput {
  folder: string;
  expires_hours?: number | undefined;
  max_copies?: number | undefined;
  code?: string | undefined;
  /** Who started it, as the receipt names them (`cli`, or an agent through svc_expose). */
  by?: string | undefined;
}

/** 128 random bits in base64url, never starting with `-` (a command line's option). */
function newExposureId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

export const exposurePath = (exposureId: string) => `/x/${exposureId}`;

const partnerOf = (row: ExposureRow): Asker => ({ cwd: row.folder, client: PARTNER_CLIENT });

function stateOf(ctx: Context, row: ExposureRow): ExposureState {
  if (row.end_reason) return row.end_reason;
  return hasPassed(ctx, row.expires_at) ? 'expired' : 'active';
}

const STATE_SAID: Record<Ended, string> = {
  used_up: 'gave as many copies as its owner allowed',
  ended: 'was ended by its owner',
  locked: 'was ended after too many wrong access codes',
  expired: 'has expired',
};

async function exposureRow(ctx: Context, exposureId: string): Promise<ExposureRow | undefined> {
  return await ctx.store.get<ExposureRow>('SELECT * FROM exposures WHERE exposure_id = ?', exposureId);
}

/** An exposure as its owner sees it: the folder, the state and the counts. */
function statusOf(ctx: Context, row: ExposureRow) {
  const state = stateOf(ctx, row);
  return {
    exposure_id: row.exposure_id,
    path: exposurePath(row.exposure_id),
    folder: row.folder,
    state,
    created_at: row.created_at,
    created_by: row.created_by,
    expires_at: row.expires_at,
    has_code: row.code_hash !== null,
    max_copies: row.max_copies,
    copies_used: row.copies,
    copies_left: state === 'active' ? row.max_copies - row.copies : 0,
    wrong_codes: row.wrong_codes,
    ended_at: row.ended_at ?? (state === 'expired' ? row.expires_at : null),
    ended_by: row.ended_by,
    receipt_id: row.receipt_id,
  };
}

// ---------------------------------------------------------------- the owner's side (local)

export async function startExposure(ctx: Context, input: StartExposureInput) {
  const folder = resolve(input.folder);
  let isFolder: boolean;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch {
    throw new ServiceError('not_found', `no folder ${folder}: give a folder that exists on this computer`);
  }
  if (!isFolder) {
    throw new ServiceError(
      'invalid_request',
      `${folder} is not a folder: an exposure offers a folder's files`,
    );
  }
  const code = input.code === undefined ? null : await keepAccessCode(input.code);
  const now = ctx.clock();
  const expiresAt = new Date(
    now.getTime() + (input.expires_hours ?? EXPOSURE_DEFAULT_TTL_HOURS) * 3_600_000,
  ).toISOString();
  const maxCopies = input.max_copies ?? EXPOSURE_DEFAULT_MAX_COPIES;
  const exposureId = newExposureId();
  const by = input.by ?? 'owner';
  return ctx.store.write(async () => {
    const receipt = await ctx.chains.append('service', {
      kind: 'exposure.start',
      org_id: null,
      signed_at: now.toISOString(),
      body: {
        exposure_id: exposureId,
        folder,
        expires_at: expiresAt,
        max_copies: maxCopies,
        has_code: code !== null,
        by,
      },
    });
    await ctx.store.run(
      `INSERT INTO exposures (exposure_id, folder, created_by, code_hash, code_salt, max_copies, created_at,
         expires_at, receipt_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      exposureId,
      folder,
      by,
      code?.hash ?? null,
      code?.salt ?? null,
      maxCopies,
      now.toISOString(),
      expiresAt,
      receipt.receipt_id,
    );
    return { ...statusOf(ctx, (await exposureRow(ctx, exposureId))!), receipt };
  });
}

export const EXPOSURES_PAGE_MAX = 200;

export async function listExposures(ctx: Context, limit = 50) {
  const rows = await ctx.store.all<ExposureRow>(
    'SELECT * FROM exposures ORDER BY created_at DESC, rowid DESC LIMIT ?',
    Math.min(limit, EXPOSURES_PAGE_MAX),
  );
  return { exposures: rows.map((row) => statusOf(ctx, row)), count: rows.length };
}

function unknownExposure(exposureId: string): ServiceError {
  return new ServiceError(
    'not_found',
    `no exposure ${exposureId}: check that the whole link was copied, or ask its owner for a new one`,
  );
}

/**
 * Ends an exposure now, with a receipt: nothing more is listed or copied. One that has already
 * ended (or expired) answers its state without a second receipt.
 */
export async function endExposure(ctx: Context, exposureId: string, by = 'owner') {
  return ctx.store.write(async () => {
    const row = await exposureRow(ctx, exposureId);
    if (!row)
      throw new ServiceError('not_found', `no exposure ${exposureId}: list them with svc expose list`);
    if (stateOf(ctx, row) !== 'active') return { ...statusOf(ctx, row), receipt: null, already_ended: true };
    const at = nowIso(ctx);
    const receipt = await ctx.chains.append('service', {
      kind: 'exposure.end',
      org_id: null,
      signed_at: at,
      body: { exposure_id: exposureId, copies_used: row.copies, by },
    });
    await ctx.store.run(
      "UPDATE exposures SET ended_at = ?, end_reason = 'ended', ended_by = ? WHERE exposure_id = ?",
      at,
      by,
      exposureId,
    );
    return { ...statusOf(ctx, (await exposureRow(ctx, exposureId))!), receipt, already_ended: false };
  });
}

// ---------------------------------------------------------------- the partner's side (no credential)

/** The nonce a listing hands out: when it stops being accepted, and an HMAC over the id and that time. */
function pageMac(ctx: Context, exposureId: string, until: number): string {
  const key = deriveKey(ctx.vault.secret('data-columns'), { purpose: 'svc-expose-page-v1', salt: 'svc' });
  return createHmac('sha256', key).update(`${exposureId}\u0000${until}`).digest('base64url');
}

function pageNonce(ctx: Context, exposureId: string): string {
  const until = Math.floor(ctx.clock().getTime() / 1000) + LINK_PAGE_NONCE_SECONDS;
  return `${until}.${pageMac(ctx, exposureId, until)}`;
}

function nonceHolds(ctx: Context, exposureId: string, nonce: string): boolean {
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(nonce);
  if (!match) return false;
  const until = Number(match[1]);
  if (until * 1000 <= ctx.clock().getTime()) return false;
  const expected = Buffer.from(pageMac(ctx, exposureId, until));
  const given = Buffer.from(match[2]!);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

async function gateOf(ctx: Context): Promise<LocalGate> {
  if (!ctx.localGate) {
    throw new ServiceError(
      'forbidden',
      'this service has no read gate of the computer that holds the folder, so it lets no file out',
    );
  }
  return await ctx.localGate();
}

/** Rules that cannot be read are the owner's to fix; until then nothing is let out. */
async function whileGateDecides<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof RulesUnreadable || error instanceof GateUnavailable) {
      throw new ServiceError('forbidden', 'the owner’s read rules cannot be read now, so no file is let out');
    }
    throw error;
  }
}

interface ExposedFile {
  /** Relative to the folder, with `/` between parts: what the partner sees and asks for. */
  file: string;
  path: string;
  bytes: number;
}

/**
 * The files of an exposure's folder a partner may ask for: walked as a scan walks (ignore files
 * honoured, `.git` and symbolic links left out, and `.svc` too), at most EXPOSURE_MAX_FILES looked at, each up to
 * EXPOSURE_COPY_MAX_BYTES and let out by the gate. The gate only explains here, so a listing
 * records nothing and spends no daily use; a copy decides again, for real.
 */
async function exposedFiles(
  ctx: Context,
  row: ExposureRow,
): Promise<{ files: ExposedFile[]; truncated: boolean }> {
  const gate = await gateOf(ctx);
  return whileGateDecides(async () => {
    const files: ExposedFile[] = [];
    let looked = 0;
    for await (const target of filesToScan(row.folder)) {
      if (looked++ >= EXPOSURE_MAX_FILES) return { files, truncated: true };
      // A project's `.svc` folder holds its rules, which name the very files not let out.
      if (target.bytes > EXPOSURE_COPY_MAX_BYTES || target.file.split('/').includes('.svc')) continue;
      const { decision } = await gate.explain(target.path, 'read', partnerOf(row));
      if (LET_OUT.has(decision.outcome)) files.push(target);
    }
    return { files, truncated: false };
  });
}

function goneError(row: ExposureRow, state: Ended, details: Record<string, unknown> = {}): ServiceError {
  const when = row.ended_at ?? row.expires_at;
  return new ServiceError('gone', `this exposure ${STATE_SAID[state]} at ${when}; nothing more is served`, {
    state,
    ended_at: when,
    ...details,
  });
}

/** What a partner's page lists: the files it may ask for, and a nonce to ask with. Counts nothing. */
export async function listExposedFiles(ctx: Context, exposureId: string) {
  const row = await exposureRow(ctx, exposureId);
  if (!row) throw unknownExposure(exposureId);
  const state = stateOf(ctx, row);
  if (state !== 'active') throw goneError(row, state);
  const { files, truncated } = await exposedFiles(ctx, row);
  return {
    exposure_id: exposureId,
    expires_at: row.expires_at,
    needs_code: row.code_hash !== null,
    copies_left: row.max_copies - row.copies,
    files: files.map(({ file, bytes }) => ({ file, bytes })),
    truncated,
    nonce: pageNonce(ctx, exposureId),
  };
}

type CopyReason =
  | 'copied'
  | 'stale_page'
  | 'code_required'
  | 'wrong_code'
  | 'unknown_file'
  | 'not_text'
  | `exposure_${Ended}`;

/** The refusals decided from the exposure and the request alone, before any file is looked at. */
function refusalOf(
  ctx: Context,
  row: ExposureRow,
  nonce: string,
  codeHash: Buffer | null,
): CopyReason | null {
  const state = stateOf(ctx, row);
  if (state !== 'active') return `exposure_${state}`;
  if (!nonceHolds(ctx, row.exposure_id, nonce)) return 'stale_page';
  if (row.code_hash && codeHash === null) return 'code_required';
  if (row.code_hash && !sameAccessCode(row.code_hash, codeHash!)) return 'wrong_code';
  return null;
}

interface MadeCopy {
  text: string;
  values: number;
  tokens_by_type: Record<string, number>;
  gate_outcome: string;
}

/**
 * Makes and serves one clean copy. The file must be among those a listing would show now, and the
 * gate is asked again (recorded and counted as any read it decides); a file it does not let out is
 * refused exactly as a file that is not there, so a refusal never tells a protected file exists.
 * The copy is counted, with its receipt, in one write that checks the exposure again, so two
 * requests racing for the last copy get one.
 */
export async function copyExposedFile(
  ctx: Context,
  exposureId: string,
  input: { nonce: string; code?: string | undefined; file: string },
) {
  const before = await exposureRow(ctx, exposureId);
  if (!before) throw unknownExposure(exposureId);
  // The slow hash runs before the write, so a guesser cannot hold the store's lock with it.
  const codeHash =
    before.code_salt && input.code !== undefined ? await hashAccessCode(input.code, before.code_salt) : null;
  let made: MadeCopy | undefined;
  let fileRefusal: 'unknown_file' | 'not_text' | undefined;
  if (refusalOf(ctx, before, input.nonce, codeHash) === null) {
    const { files } = await exposedFiles(ctx, before);
    const target = files.find((f) => f.file === input.file);
    if (!target) fileRefusal = 'unknown_file';
    else {
      const gate = await gateOf(ctx);
      const { decision } = await whileGateDecides(() =>
        gate.check({ kind: 'paths', action: 'read', paths: [target.path] }, partnerOf(before)),
      );
      if (!LET_OUT.has(decision.outcome)) fileRefusal = 'unknown_file';
      else {
        // Never the file's bytes: the clean text, made now from the file as it is.
        const clean = cleanTextOf(target.path);
        if ('unavailable' in clean) fileRefusal = 'not_text';
        else made = { ...clean, gate_outcome: decision.outcome };
      }
    }
  }
  const decided = await ctx.store.write(async () => {
    const row = (await exposureRow(ctx, exposureId))!;
    const reason: CopyReason = refusalOf(ctx, row, input.nonce, codeHash) ?? fileRefusal ?? 'copied';
    let ends: Exclude<Ended, 'expired' | 'ended'> | null = null;
    if (reason === 'wrong_code' && row.wrong_codes + 1 >= EXPOSURE_WRONG_CODES_MAX) ends = 'locked';
    if (reason === 'copied' && row.copies + 1 >= row.max_copies) ends = 'used_up';
    const outcome = reason === 'copied' ? 'allow' : 'deny';
    const copyNumber = outcome === 'allow' ? row.copies + 1 : null;
    const at = nowIso(ctx);
    const copied =
      outcome === 'allow'
        ? {
            tokens_by_type: made!.tokens_by_type,
            values_replaced: made!.values,
            // A digest of what was sent, so the partner's copy can be matched to this receipt.
            clean_sha256: createHash('sha256').update(made!.text).digest('hex'),
            gate_outcome: made!.gate_outcome,
          }
        : {};
    const receipt = await ctx.chains.append('service', {
      kind: 'exposure.copy',
      org_id: null,
      signed_at: at,
      body: {
        exposure_id: exposureId,
        outcome,
        reason,
        file: input.file,
        copy_number: copyNumber,
        ...copied,
        ...(ends ? { ends } : {}),
      },
    });
    await ctx.store.run(
      `INSERT INTO exposure_copies (exposure_id, at, outcome, reason, file, copy_number, tokens_by_type, receipt_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      exposureId,
      at,
      outcome,
      reason,
      input.file,
      copyNumber,
      outcome === 'allow' ? JSON.stringify(made!.tokens_by_type) : null,
      receipt.receipt_id,
    );
    await ctx.store.run(
      'UPDATE exposures SET copies = copies + ?, wrong_codes = wrong_codes + ? WHERE exposure_id = ?',
      outcome === 'allow' ? 1 : 0,
      reason === 'wrong_code' ? 1 : 0,
      exposureId,
    );
    if (ends) {
      await ctx.store.run(
        "UPDATE exposures SET ended_at = ?, end_reason = ?, ended_by = 'svc' WHERE exposure_id = ?",
        at,
        ends,
        exposureId,
      );
    }
    return { row, reason, receipt, copyNumber, ends };
  });
  const { row, reason, receipt, copyNumber, ends } = decided;
  const receiptFields = { receipt_id: receipt.receipt_id };
  switch (reason) {
    case 'copied':
      return {
        exposure_id: exposureId,
        file: input.file,
        text: made!.text,
        values_replaced: made!.values,
        tokens_by_type: made!.tokens_by_type,
        copy_number: copyNumber!,
        copies_left: row.max_copies - copyNumber!,
        used_up: ends === 'used_up',
        ...receiptFields,
        receipt,
      };
    case 'stale_page':
      throw new ServiceError(
        'stale_page',
        'this list was loaded too long ago: load it again, then ask again',
        {
          reason,
          ...receiptFields,
        },
      );
    case 'code_required':
      throw new ServiceError('code_required', 'this exposure needs the access code its owner gave you', {
        reason,
        ...receiptFields,
      });
    case 'wrong_code': {
      const left = Math.max(0, EXPOSURE_WRONG_CODES_MAX - row.wrong_codes - 1);
      throw new ServiceError(
        'wrong_code',
        left
          ? `wrong access code: ${left} more wrong code${left === 1 ? '' : 's'} and the exposure ends`
          : 'wrong access code: that was the last try, and the exposure has ended',
        { reason, attempts_left: left, ...receiptFields },
      );
    }
    case 'unknown_file':
      throw new ServiceError(
        'not_found',
        `no file ${input.file} here: ask only for a file the list names, as it names it`,
        { reason, ...receiptFields },
      );
    case 'not_text':
      throw new ServiceError(
        'unsupported_media_type',
        `${input.file} is not a text file svc can make a clean copy of`,
        { reason, ...receiptFields },
      );
    default:
      throw goneError(row, reason.slice('exposure_'.length) as Ended, { reason, ...receiptFields });
  }
}
