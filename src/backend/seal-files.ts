// Files sealed in place (docs/VAULT.md): protect seals a file beside itself and renames the sealed
// copy over it; open releases one only after the read gate's decision; revoke destroys a seal's
// data key. Each seal's data key is kept in the store, wrapped under a key derived from the vault,
// and every open (released or refused) and every revocation is receipted on the service chain.
import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { closeSync, constants, openSync, readSync, type Stats } from 'node:fs';
import {
  link,
  lstat,
  mkdir,
  open,
  readdir,
  rename,
  rm,
  stat,
  unlink,
  type FileHandle,
} from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { realPath, within } from '../gate/resolve.ts';
import { deriveKey } from '../vault/derive.ts';
import { open as unwrap, seal as wrap } from '../vault/seal.ts';
import {
  DEFAULT_CHUNK_BYTES,
  HEADER_BYTES,
  SEALED_MAGIC,
  SealedFileError,
  createHeader,
  hasSealedMagic,
  openStream,
  parseHeader,
  plaintextSize,
  sealStream,
  type SealedFileCode,
  type SealedHeader,
} from '../vault/sealed-file.ts';
import { nowIso, type Context } from './context.ts';
import { ServiceError } from './errors.ts';
import { Refusal, receiptRefusals } from './governance.ts';
import { realPlaceOf, systemPlaceOf } from './system-folders.ts';
import { holdTemp, releaseTemp } from './temp-files.ts';
import { SEAL_ID } from './vocabulary.ts';

export { SEAL_ID };

const sealIdText = (bytes: Uint8Array) => `seal_${Buffer.from(bytes).toString('hex')}`;

/** The salt of the wrapping key of seals that belong to no organization (organization ids are `org_…`). */
const MACHINE_SALT = 'svc-machine';
/**
 * Reads and writes go to the disk in pieces of about 1 MiB, many 64 KiB chunks each: one system
 * call (and one trip through libuv's threads) per chunk costs more than the cipher does.
 */
export const IO_BYTES = 1024 * 1024;
/**
 * Names of svc's own files beside a file being sealed or opened, or in the archive while a file is
 * wrapped: skipped by walks, swept when stale.
 */
const TEMP_NAME = /^\.svc-(seal|open|wrap)-(\d+)-[0-9a-zA-Z]+$/;

/**
 * The key that wraps the data keys of one owner's seals: HKDF over the vault's data secret with
 * its own purpose, salted with the organization (or, for this computer's own seals, a fixed salt
 * no organization id can take).
 */
function wrappingKey(ctx: Context, orgId: string | null): KeyObject {
  return deriveKey(ctx.vault.secret('data-columns'), {
    purpose: 'svc-seal-wrap-v1',
    salt: orgId ?? MACHINE_SALT,
  });
}

/** A wrapped key names its seal as additional data: moved to another seal's row, it does not open. */
const wrapAad = (sealId: string) => Buffer.from(`svc-seal-data-key\u0000${sealId}`, 'utf8');

/** What the read gate decided about a path, as the caller (CLI or tool) asked it. */
export interface Admission {
  allowed: boolean;
  /** The gate's outcome: allowed, limited, ask, clean_copy, denied (or why it could not decide). */
  outcome: string;
  rule_id: string | null;
  /** The audit row of the decision, when a rule decided. */
  audit_id: string | null;
  /** Why not, in words, when refused. */
  message?: string | undefined;
}

/** Steps of sealing, in order; observers see each once per file (`chunk` once per chunk). */
export type ProtectStep = 'key_stored' | 'chunk' | 'written' | 'replaced' | 'done' | 'skipped' | 'failed';

export interface ProtectProgress {
  step: ProtectStep;
  path: string;
  /** Files sealed, skipped or failed so far. */
  files: number;
  /** Plaintext bytes sealed so far, over every file. */
  bytes: number;
}

export type SkipReason =
  | 'already_sealed'
  | 'symlink'
  | 'not_a_file'
  | 'hard_linked'
  | 'svc_data'
  | 'system_folder'
  | 'version_control'
  | 'protected';

export interface ProtectOptions {
  /** Who seals, as receipts name them. */
  by: string;
  /** The gate's decision on sealing a file (a write); absent: the person's own command, no gate. */
  admit?: ((path: string) => Promise<Admission>) | undefined;
  onProgress?: ((progress: ProtectProgress) => void) | undefined;
  chunkBytes?: number;
}

export interface SealedOne {
  path: string;
  seal_id: string;
  bytes: number;
  receipt_id: string;
}

export interface ProtectResult {
  sealed: SealedOne[];
  skipped: { path: string; reason: SkipReason }[];
  failed: { path: string; message: string }[];
}

/**
 * Seals every file of `paths` in place, folders recursively. A file already sealed, a symbolic
 * link, a file with other hard links (they would keep the plaintext), svc's own data dir, the
 * operating system's folders and version-control folders are skipped and said so. One file
 * failing does not stop the others, nor does a path that is not there: each is in `failed`.
 */
export async function protectPaths(
  ctx: Context,
  paths: readonly string[],
  options: ProtectOptions,
): Promise<ProtectResult> {
  const result: ProtectResult = { sealed: [], skipped: [], failed: [] };
  const dataDir = dirname(resolve(ctx.store.file));
  const swept = new Set<string>();
  let bytes = 0;
  const report = (step: ProtectStep, path: string) =>
    options.onProgress?.({
      step,
      path,
      files: result.sealed.length + result.skipped.length + result.failed.length,
      bytes,
    });
  const skip = (path: string, reason: SkipReason) => {
    result.skipped.push({ path, reason });
    report('skipped', path);
  };
  for (const given of paths) {
    for await (const found of walk(resolve(given), dataDir)) {
      if ('reason' in found) {
        skip(found.path, found.reason);
        continue;
      }
      if ('failure' in found) {
        result.failed.push({ path: found.path, message: found.failure });
        report('failed', found.path);
        continue;
      }
      const { path } = found;
      try {
        if (options.admit) {
          const admission = await options.admit(path);
          if (!admission.allowed) {
            skip(path, 'protected');
            continue;
          }
        }
        const folder = dirname(path);
        if (!swept.has(folder)) {
          swept.add(folder);
          await sweepLeftovers(folder);
        }
        const outcome = await sealOne(ctx, path, options, (step, done) => {
          if (step === 'chunk') bytes += done;
          report(step, path);
        });
        if ('reason' in outcome) skip(path, outcome.reason);
        else {
          result.sealed.push(outcome);
          report('done', path);
        }
      } catch (error) {
        result.failed.push({ path, message: failureText(error) });
        report('failed', path);
      }
    }
  }
  return result;
}

/** A file to work on, one left alone and why, or a path that could not be looked at and why. */
export type Found =
  { path: string } | { path: string; reason: SkipReason } | { path: string; failure: string };

/**
 * Files under `root` (or `root` itself), in name order, without following symbolic links. A path
 * that cannot be looked at (gone, or a folder svc may not list) is answered as a failure, never
 * thrown: the caller goes on with the rest and reports it. The operating system's folders
 * (system-folders.ts) are left alone: what is sealed there, or wrapped and removed, breaks the computer.
 */
export async function* walk(root: string, dataDir: string): AsyncGenerator<Found> {
  yield* walkFrom(root, realPlaceOf(root), realPath(dataDir));
}

/** `real` is where `path` is once the links in its folders are followed; `realData` is real too. */
async function* walkFrom(path: string, real: string, realData: string): AsyncGenerator<Found> {
  // Held to the real path: a path through a link to the data dir, or to a folder above it, is in it.
  if (within(real, realData)) {
    yield { path, reason: 'svc_data' };
    return;
  }
  const place = systemPlaceOf(real);
  if (place === 'system') {
    yield { path, reason: 'system_folder' };
    return;
  }
  let stat: Stats;
  try {
    stat = await lstat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    yield {
      path,
      failure: code === 'ENOENT' ? 'nothing is there: give files or folders that exist' : lookFailure(code),
    };
    return;
  }
  if (stat.isSymbolicLink()) {
    yield { path, reason: 'symlink' };
  } else if (stat.isFile()) {
    // A file right inside a folder that holds people's folders (/var) is still the system's.
    if (place === 'above_open') yield { path, reason: 'system_folder' };
    else yield { path };
  } else if (!stat.isDirectory()) {
    yield { path, reason: 'not_a_file' };
  } else {
    let entries;
    try {
      entries = (await readdir(path, { withFileTypes: true })).sort((a, b) =>
        a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
      );
    } catch (error) {
      yield { path, failure: lookFailure((error as NodeJS.ErrnoException).code) };
      return;
    }
    for (const entry of entries) {
      if (TEMP_NAME.test(entry.name)) continue;
      const inner = join(path, entry.name);
      // A repository's own files are its history: sealing them would break the repository.
      if (entry.isDirectory() && entry.name === '.git') yield { path: inner, reason: 'version_control' };
      else yield* walkFrom(inner, join(real, entry.name), realData);
    }
  }
}

function lookFailure(code: string | undefined): string {
  if (code === 'EACCES' || code === 'EPERM') return 'svc may not look into it (permissions)';
  return `svc could not look at it (${code ?? 'error'})`;
}

/** Seals one regular file in place. */
async function sealOne(
  ctx: Context,
  path: string,
  options: ProtectOptions,
  step: (step: ProtectStep, bytes: number) => void,
): Promise<SealedOne | { reason: SkipReason }> {
  // O_NOFOLLOW: the path was a file when walked; if it has become a link since, refuse it.
  const source = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  let sealId: string | undefined;
  let temp: string | undefined;
  let replaced = false;
  try {
    const before = await source.stat();
    if (!before.isFile()) return { reason: 'not_a_file' };
    if (before.nlink > 1) return { reason: 'hard_linked' };
    const start = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await source.read(start, 0, HEADER_BYTES, 0);
    if (hasSealedMagic(start.subarray(0, bytesRead))) return { reason: 'already_sealed' };

    const idBytes = randomBytes(16);
    sealId = sealIdText(idBytes);
    const header = createHeader(idBytes, options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
    const rawKey = randomBytes(32);
    const key = createSecretKey(rawKey);
    const wrapped = wrap(wrappingKey(ctx, null), rawKey, wrapAad(sealId));
    rawKey.fill(0);
    // The wrapped key is on disk before the original is replaced: a crash from here on leaves a
    // sealed file whose key exists, never one whose key was lost.
    await ctx.store.run(
      `INSERT INTO seals (seal_id, org_id, path, bytes, created_at, created_by, wrapped_key)
       VALUES (?, NULL, ?, ?, ?, ?, ?)`,
      sealId,
      path,
      before.size,
      nowIso(ctx),
      options.by,
      wrapped,
    );
    await syncStore(ctx);
    step('key_stored', 0);

    temp = join(dirname(path), `.svc-seal-${process.pid}-${randomBytes(6).toString('hex')}`);
    holdTemp(temp);
    await sealInto(source, before, await open(temp, 'wx', 0o600), key, header, {
      onChunk: (bytes) => step('chunk', bytes),
      changed: `${path} changed while it was being sealed, so it was left as it is: seal it again once nothing writes to it`,
      mode: before.mode & 0o777,
    });
    step('written', 0);

    // The name must still be the file that was read: something put in its place meanwhile is not replaced.
    const now = await lstat(path);
    if (now.ino !== before.ino || now.dev !== before.dev) {
      throw new ServiceError(
        'conflict',
        `${path} was replaced while it was being sealed; it was left as it is`,
      );
    }
    await rename(temp, path);
    releaseTemp(temp);
    temp = undefined;
    replaced = true;
    await syncFolder(dirname(path));
    step('replaced', 0);

    const receipt = await ctx.store.write(async () => {
      const at = nowIso(ctx);
      await ctx.store.run('UPDATE seals SET sealed_at = ? WHERE seal_id = ?', at, sealId!);
      return ctx.chains.append('service', {
        kind: 'seal.protect',
        org_id: null,
        signed_at: at,
        body: { seal_id: sealId, path, bytes: before.size, by: options.by },
      });
    });
    return { path, seal_id: sealId, bytes: before.size, receipt_id: receipt.receipt_id };
  } catch (error) {
    if (temp) {
      await unlink(temp).catch(() => undefined);
      releaseTemp(temp);
    }
    // Not renamed over the original: the seal was never used, and its key goes with it.
    if (sealId && !replaced) {
      await ctx.store
        .run('DELETE FROM seals WHERE seal_id = ? AND sealed_at IS NULL', sealId)
        .catch(() => undefined);
    }
    throw error;
  } finally {
    await source.close();
  }
}

/** Passes a stream through while counting its bytes. */
/**
 * Seals everything `source` holds, as it was when `before` was taken, into `out` (then flushed and
 * closed), in constant memory. Each plaintext piece passes `onPlain` on its way through; a file that
 * changed while it was read is refused (`conflict`, with the message `changed`) and `out` is left
 * for the caller to remove.
 */
export async function sealInto(
  source: FileHandle,
  before: Stats,
  out: FileHandle,
  key: KeyObject,
  header: SealedHeader,
  options: {
    onPlain?: (piece: Buffer) => void;
    onChunk: (bytes: number) => void;
    changed: string;
    /** The sealed file's permissions, when not the private 0600. */
    mode?: number;
  },
): Promise<void> {
  let plaintextBytes = 0;
  try {
    const reading = source.createReadStream({ start: 0, highWaterMark: IO_BYTES, autoClose: false });
    async function* plaintext(): AsyncGenerator<Buffer> {
      for await (const piece of reading as AsyncIterable<Buffer>) {
        plaintextBytes += piece.length;
        options.onPlain?.(piece);
        yield piece;
      }
    }
    const writer = new BatchedWriter(out, false);
    let index = 0;
    for await (const pieces of sealStream(key, header, plaintext())) {
      await writer.add(...pieces);
      // The header comes first; every later piece is a chunk, its ciphertext as long as its plaintext.
      if (index++ > 0) options.onChunk(pieces[0]!.length);
    }
    await writer.flush();
    const after = await source.stat();
    if (plaintextBytes !== before.size || after.size !== before.size || after.mtimeMs !== before.mtimeMs) {
      throw new ServiceError('conflict', options.changed);
    }
    if (options.mode !== undefined) await out.chmod(options.mode);
    await out.sync();
  } finally {
    await out.close();
  }
}

async function writeAll(out: FileHandle, bytes: Buffer): Promise<void> {
  let at = 0;
  while (at < bytes.length) at += (await out.write(bytes, at, bytes.length - at)).bytesWritten;
}

/** Writes pieces in batches of about `IO_BYTES`, one writev each; plaintext is zeroed once written. */
export class BatchedWriter {
  private readonly file: FileHandle;
  private readonly wipe: boolean;
  private pieces: Buffer[] = [];
  private bytes = 0;

  constructor(file: FileHandle, wipe: boolean) {
    this.file = file;
    this.wipe = wipe;
  }

  async add(...pieces: Buffer[]): Promise<void> {
    for (const piece of pieces) {
      this.pieces.push(piece);
      this.bytes += piece.length;
    }
    if (this.bytes >= IO_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    const { pieces, bytes } = this;
    if (pieces.length === 0) return;
    this.pieces = [];
    this.bytes = 0;
    const { bytesWritten } = await this.file.writev(pieces);
    // A short write is rare for a file, but possible: the rest goes the slow way.
    if (bytesWritten < bytes) await writeAll(this.file, Buffer.concat(pieces).subarray(bytesWritten));
    if (this.wipe) for (const piece of pieces) piece.fill(0);
  }

  /** Drops what was not written (a file that failed to open): zeroed, never written. */
  discard(): void {
    if (this.wipe) for (const piece of this.pieces) piece.fill(0);
    this.pieces = [];
    this.bytes = 0;
  }
}

/** A rename or a new file is durable only once its folder's entry is on disk too. */
export async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Makes the store's last commits survive a power loss, not only a crash of this process: the store
 * commits without flushing the log (synchronous=NORMAL), and a sealed file whose wrapped key were
 * lost could never be opened. Flushing the log and the database files is what a FULL commit does.
 */
export async function syncStore(ctx: Context): Promise<void> {
  for (const file of [`${ctx.store.file}-wal`, ctx.store.file]) {
    let handle: FileHandle;
    try {
      handle = await open(file, 'r');
    } catch {
      continue;
    }
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}

/**
 * Removes what a sealing or an opening that crashed left in `folder`: a sealed copy not yet renamed
 * (`.svc-seal-<pid>-…`), a private folder of plaintext not yet released (`.svc-open-<pid>-…`) or an
 * archive object not yet named (`.svc-wrap-<pid>-…`), once the process that made it is gone.
 */
export async function sweepLeftovers(folder: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return;
  }
  for (const name of names) {
    const match = TEMP_NAME.exec(name);
    if (!match || processAlive(Number(match[2]))) continue;
    await rm(join(folder, name), { recursive: true, force: true }).catch(() => undefined);
  }
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

export function failureText(error: unknown): string {
  if (error instanceof ServiceError || error instanceof SealedFileError) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return 'svc may not read or replace it (permissions)';
  if (code === 'ENOENT') return 'it disappeared while being sealed';
  if (code === 'ENOSPC') return 'the disk is full';
  if (code === 'ELOOP') return 'it became a symbolic link while being sealed';
  return `it could not be sealed (${code ?? (error as Error).message})`;
}

// ---------------------------------------------------------------- open

/** Where an opened file's plaintext goes. */
export type OpenTarget =
  | { kind: 'file'; path: string }
  | { kind: 'in_place' }
  | { kind: 'stdout'; write: (bytes: Buffer) => Promise<void> }
  | { kind: 'text'; maxBytes: number };

export type OpenStep = 'admitted' | 'chunk' | 'verified' | 'receipted' | 'released';

export interface OpenOptions {
  out: OpenTarget;
  by: string;
  /**
   * The read gate's decision, asked first on the file given (`opened`): nothing is read before it
   * allows. Then, when its seal was made under another path (the file was copied, linked or
   * moved), on that path too (`sealed_as`, a read): gate rules follow the sealed file, so a copy
   * opens only where the file it was sealed as would.
   */
  admit: (path: string, role: 'opened' | 'sealed_as') => Promise<Admission>;
  onProgress?: ((progress: { step: OpenStep; bytes: number }) => void) | undefined;
}

export interface Opened {
  seal_id: string;
  path: string;
  released_to: OpenTarget['kind'];
  out_path: string | null;
  bytes: number;
  receipt_id: string;
  /** The plaintext, for a `text` target only. */
  text?: string;
}

interface SealRow {
  seal_id: string;
  org_id: string | null;
  path: string;
  bytes: number;
  created_at: string;
  created_by: string;
  sealed_at: string | null;
  wrapped_key: string | null;
  revoked_at: string | null;
  revoked_by: string | null;
  revoke_reason: string | null;
}

const SEALED_ERROR_CODE: Record<SealedFileCode, ServiceError['code']> = {
  not_sealed: 'invalid_request',
  unsupported: 'invalid_request',
  malformed: 'sealed_corrupt',
  corrupt: 'sealed_corrupt',
  truncated: 'sealed_corrupt',
  trailing_data: 'sealed_corrupt',
  too_large: 'sealed_corrupt',
};

/**
 * Releases a sealed file, only once the gate allows reading it, to a file, back in place, to a
 * stream, or as text. Nothing of it is released before every chunk has authenticated and the
 * receipt is written; every refusal is receipted too (`seal.open.deny`).
 */
export async function openSealed(ctx: Context, path: string, options: OpenOptions): Promise<Opened> {
  const target = resolve(path);
  const { out } = options;
  const where = out.kind === 'file' ? resolve(out.path) : null;
  const asked = { path: target, released_to: out.kind, out_path: where, by: options.by };
  let sealId: string | null = null;
  let gate: Record<string, unknown> | null = null;
  /** The path the seal was made at and the gate's decision there, when the file is opened under another. */
  let sealedAs: { path: string; gate: Record<string, unknown> } | null = null;
  const refuse = (code: ServiceError['code'], message: string, reason: string, details = {}) =>
    new Refusal(
      code,
      message,
      { ...details, seal_id: sealId },
      {
        kind: 'seal.open.deny',
        org_id: null,
        body: { ...asked, seal_id: sealId, gate, ...(sealedAs && { sealed_as: sealedAs }), reason },
      },
    );
  return receiptRefusals(ctx, async () => {
    const admission = await options.admit(target, 'opened');
    gate = { outcome: admission.outcome, rule_id: admission.rule_id, audit_id: admission.audit_id };
    if (!admission.allowed) {
      throw refuse(
        'forbidden',
        admission.message ?? `the read gate did not allow reading ${target}; nothing was released`,
        'gate',
        { outcome: admission.outcome, rule_id: admission.rule_id, audit_id: admission.audit_id },
      );
    }
    options.onProgress?.({ step: 'admitted', bytes: 0 });
    if (where !== null && (await exists(where))) {
      throw refuse(
        'conflict',
        (await isFolder(where))
          ? `${where} is a folder: name a file in it that does not exist yet`
          : `${where} already exists: name a file that does not, or remove it first`,
        'out_exists',
      );
    }
    // The plaintext is written beside its destination, then moved in: the folder must be there.
    if (where !== null && !(await isFolder(dirname(where)))) {
      throw refuse(
        'not_found',
        `there is no folder ${dirname(where)} to open into: make it first, or name a file in a folder that exists`,
        'out_folder_missing',
      );
    }
    let source: FileHandle;
    try {
      source = await open(target, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw refuse(
        code === 'ENOENT' ? 'not_found' : 'forbidden',
        code === 'ENOENT' ? `no file at ${target}` : `svc cannot read ${target} (${code ?? 'error'})`,
        'unreadable',
      );
    }
    try {
      const stat = await source.stat();
      if (!stat.isFile()) {
        throw refuse(
          'invalid_request',
          `${target} is not a file: open takes one sealed file (svc seal list, or svc_seal_list, lists them)`,
          'not_a_file',
        );
      }
      const first = Buffer.alloc(HEADER_BYTES);
      const { bytesRead } = await source.read(first, 0, HEADER_BYTES, 0);
      let header: SealedHeader;
      try {
        header = parseHeader(first.subarray(0, bytesRead));
      } catch (error) {
        const sealed = error as SealedFileError;
        throw refuse(SEALED_ERROR_CODE[sealed.code], `${target}: ${sealed.message}`, sealed.code);
      }
      sealId = sealIdText(header.sealId);
      const sealedAt = await ctx.store.get<{ path: string }>(
        'SELECT path FROM seals WHERE seal_id = ?',
        sealId,
      );
      if (sealedAt && resolve(sealedAt.path) !== target) {
        const origin = await options.admit(sealedAt.path, 'sealed_as');
        const decided = { outcome: origin.outcome, rule_id: origin.rule_id, audit_id: origin.audit_id };
        sealedAs = { path: sealedAt.path, gate: decided };
        if (!origin.allowed) {
          throw refuse(
            'forbidden',
            `${target} was sealed as ${sealedAt.path}, and gate rules follow the sealed file: ${
              origin.message ?? `the read gate did not allow reading ${sealedAt.path}`
            }; nothing was released`,
            'gate',
            decided,
          );
        }
      }
      const key = await dataKey(ctx, sealId, (code, message, reason, details) =>
        refuse(code, message, reason, details),
      );
      const chunks = (from: FileHandle) =>
        openStream(from.createReadStream({ start: 0, highWaterMark: IO_BYTES, autoClose: false }), () => key);
      const receipted = async (bytes: number) => {
        const receipt = await ctx.chains.append('service', {
          kind: 'seal.open',
          org_id: null,
          signed_at: nowIso(ctx),
          body: { ...asked, seal_id: sealId, gate, ...(sealedAs && { sealed_as: sealedAs }), bytes },
        });
        options.onProgress?.({ step: 'receipted', bytes });
        return receipt.receipt_id;
      };
      const opened = (bytes: number, receiptId: string, outPath: string | null): Opened => ({
        seal_id: sealId!,
        path: target,
        released_to: out.kind,
        out_path: outPath,
        bytes,
        receipt_id: receiptId,
      });
      const failed = (error: unknown) => {
        if (!(error instanceof SealedFileError)) return error;
        return refuse(SEALED_ERROR_CODE[error.code], `${target}: ${error.message}`, error.code);
      };

      if (out.kind === 'stdout' || out.kind === 'text') {
        if (out.kind === 'text' && plaintextSize(stat.size, header.chunkBytes) > out.maxBytes) {
          throw refuse(
            'payload_too_large',
            `${target} is too large to answer as text (at most ${out.maxBytes} bytes): open it to a file`,
            'too_large',
          );
        }
        // First pass: authenticate every chunk, keep nothing (or, for text, keep it in memory only).
        const kept: Buffer[] = [];
        let bytes = 0;
        try {
          for await (const piece of chunks(source)) {
            bytes += piece.length;
            if (out.kind === 'text') kept.push(piece);
            else piece.fill(0);
            options.onProgress?.({ step: 'chunk', bytes });
          }
        } catch (error) {
          for (const piece of kept) piece.fill(0);
          throw failed(error);
        }
        options.onProgress?.({ step: 'verified', bytes });
        if (out.kind === 'text') {
          const all = Buffer.concat(kept);
          for (const piece of kept) piece.fill(0);
          let text: string;
          try {
            text = new TextDecoder('utf-8', { fatal: true }).decode(all);
          } catch {
            throw refuse(
              'invalid_request',
              `${target} is not UTF-8 text: open it to a file instead`,
              'not_text',
            );
          } finally {
            all.fill(0);
          }
          const receiptId = await receipted(bytes);
          options.onProgress?.({ step: 'released', bytes });
          return { ...opened(bytes, receiptId, null), text };
        }
        const receiptId = await receipted(bytes);
        // Second pass, through the same descriptor: only now does plaintext leave svc.
        let written = 0;
        try {
          for await (const piece of chunks(source)) {
            await out.write(piece);
            written += piece.length;
          }
        } catch (error) {
          throw failed(error);
        }
        options.onProgress?.({ step: 'released', bytes: written });
        return opened(written, receiptId, null);
      }

      // To a file or back in place: moved onto it only once every chunk has authenticated and the
      // receipt is written.
      const destination = where ?? target;
      let receiptId = '';
      const bytes = await releaseToFile(destination, {
        pieces: chunks(source),
        replace: out.kind === 'in_place',
        // Back in place, the file keeps the sealed file's permissions (the original's); a new file is private.
        mode: out.kind === 'in_place' ? stat.mode & 0o777 : undefined,
        onPiece: (_piece, bytes) => options.onProgress?.({ step: 'chunk', bytes }),
        failed,
        beforeMove: async (bytes) => {
          options.onProgress?.({ step: 'verified', bytes });
          if (out.kind === 'in_place') {
            const now = await lstat(target);
            if (now.ino !== stat.ino || now.dev !== stat.dev) {
              throw refuse(
                'conflict',
                `${target} was replaced while it was being opened; nothing was released`,
                'replaced',
              );
            }
          }
          receiptId = await receipted(bytes);
        },
        appeared: () =>
          refuse(
            'conflict',
            `${destination} appeared while the file was being opened, so it was not overwritten; nothing was released`,
            'out_exists',
          ),
      });
      options.onProgress?.({ step: 'released', bytes });
      return opened(bytes, receiptId, destination);
    } finally {
      await source.close();
    }
  });
}

/** How a release into a file ends, for `releaseToFile`. */
export interface ReleaseToFile {
  /** Every authenticated piece, in order. */
  pieces: AsyncIterable<Buffer>;
  /** Replace what is at the destination (a file opened in place), or refuse to overwrite anything. */
  replace: boolean;
  /** The new file's permissions, when not the private 0600. */
  mode?: number | undefined;
  onPiece?: ((piece: Buffer, bytes: number) => void) | undefined;
  /** What a failure while reading or writing becomes when thrown (a tampered chunk, a full disk). */
  failed(error: unknown): unknown;
  /**
   * Runs once every piece is written and flushed, before anything is moved into place: the last
   * checks and the receipt. Throwing abandons the release; nothing is left behind.
   */
  beforeMove(bytes: number): Promise<void>;
  /** The refusal when a file appeared at the destination meanwhile (never overwritten). */
  appeared(): Error;
}

/**
 * Writes released plaintext to `destination` so that no one ever sees part of it there: into a
 * private folder beside it, flushed, then renamed over it (`replace`) or linked to its name (link(2)
 * refuses an existing name, so a file made there meanwhile is never overwritten). Answers the bytes
 * written.
 */
export async function releaseToFile(destination: string, release: ReleaseToFile): Promise<number> {
  const folder = dirname(destination);
  await sweepLeftovers(folder);
  const privateDir = join(folder, `.svc-open-${process.pid}-${randomBytes(6).toString('hex')}`);
  // Held before it is made: an interruption from here on removes it with whatever it holds.
  holdTemp(privateDir);
  try {
    await mkdir(privateDir, { mode: 0o700 });
  } catch (error) {
    releaseTemp(privateDir);
    throw error;
  }
  try {
    const temp = join(privateDir, basename(destination));
    const file = await open(temp, 'wx', 0o600);
    let bytes = 0;
    try {
      const writer = new BatchedWriter(file, true);
      try {
        for await (const piece of release.pieces) {
          bytes += piece.length;
          release.onPiece?.(piece, bytes);
          await writer.add(piece);
        }
        await writer.flush();
      } catch (error) {
        writer.discard();
        throw release.failed(error);
      }
      if (release.mode !== undefined) await file.chmod(release.mode);
      await file.sync();
    } finally {
      await file.close();
    }
    await release.beforeMove(bytes);
    if (release.replace) await rename(temp, destination);
    else {
      try {
        await link(temp, destination);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        throw release.appeared();
      }
    }
    await rm(privateDir, { recursive: true, force: true });
    await syncFolder(folder);
    return bytes;
  } finally {
    await rm(privateDir, { recursive: true, force: true });
    releaseTemp(privateDir);
  }
}

export async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** The data key of a seal, unwrapped; refused when the seal is unknown or revoked. */
async function dataKey(
  ctx: Context,
  sealId: string,
  refuse: (
    code: ServiceError['code'],
    message: string,
    reason: string,
    details?: Record<string, unknown>,
  ) => Error,
): Promise<KeyObject> {
  const row = await ctx.store.get<SealRow>('SELECT * FROM seals WHERE seal_id = ?', sealId);
  if (!row) {
    throw refuse(
      'not_found',
      `no seal ${sealId} in this store: the file was sealed by another svc (another computer or data dir), or this store was replaced`,
      'unknown_seal',
    );
  }
  if (row.wrapped_key === null) {
    throw refuse(
      'gone',
      `seal ${sealId} was revoked at ${row.revoked_at} by ${row.revoked_by}${row.revoke_reason ? ` (${row.revoke_reason})` : ''}: its key was destroyed, and nobody can open this file again`,
      'revoked',
      {
        status: 'revoked',
        revoked_at: row.revoked_at,
        revoked_by: row.revoked_by,
        revoke_reason: row.revoke_reason,
      },
    );
  }
  const raw = unwrap(wrappingKey(ctx, row.org_id), row.wrapped_key, wrapAad(sealId));
  try {
    return createSecretKey(raw);
  } finally {
    raw.fill(0);
  }
}

// ---------------------------------------------------------------- revoke and list

export interface Revoked {
  seal_id: string;
  path: string;
  revoked_at: string;
  revoked_by: string;
  revoke_reason: string | null;
  /** False when the seal was revoked before: nothing changed, no new receipt. */
  changed: boolean;
  receipt_id: string | null;
  /** Whether the store's log was cleared of the destroyed key at once (else at its next checkpoint). */
  log_cleared: boolean;
}

export interface RevokeOptions {
  by: string;
  reason?: string | undefined;
  /** The gate's decision on the sealed file's path (a write), for an agent's call. */
  admit?: ((path: string) => Promise<Admission>) | undefined;
}

/**
 * Revokes a seal, by its id or by a sealed file's path: its wrapped data key is overwritten and
 * removed in the same write as its receipt (crypto-shredding), so no copy of the file opens again.
 */
export async function revokeSeal(ctx: Context, target: string, options: RevokeOptions): Promise<Revoked> {
  let sealId: string;
  if (SEAL_ID.test(target)) sealId = target;
  else sealId = await sealIdOfFile(resolve(target));
  const refuse = (
    code: ServiceError['code'],
    message: string,
    reason: string,
    gate: Record<string, unknown> | null = null,
  ) =>
    new Refusal(
      code,
      message,
      { seal_id: sealId, ...gate },
      {
        kind: 'seal.revoke.deny',
        org_id: null,
        body: { seal_id: sealId, target, by: options.by, reason, gate },
      },
    );
  return receiptRefusals(ctx, async () => {
    const known = await ctx.store.get<SealRow>('SELECT * FROM seals WHERE seal_id = ?', sealId);
    if (!known)
      throw refuse(
        'not_found',
        `no seal ${sealId} in this store: \`svc seal list\` lists them`,
        'unknown_seal',
      );
    if (options.admit) {
      const admission = await options.admit(known.path);
      if (!admission.allowed) {
        throw refuse(
          'forbidden',
          admission.message ?? `the gate did not allow changing ${known.path}; the seal stands`,
          'gate',
          { outcome: admission.outcome, rule_id: admission.rule_id, audit_id: admission.audit_id },
        );
      }
    }
    const revoked = await ctx.store.write(async () => {
      const row = (await ctx.store.get<SealRow>('SELECT * FROM seals WHERE seal_id = ?', sealId))!;
      if (row.wrapped_key === null) return { row, receipt_id: null };
      const at = nowIso(ctx);
      const reason = options.reason?.trim() || null;
      // secure_delete zeroes the freed bytes of the page, and the key is first overwritten in place
      // with zeros of its own length, so the page written back holds no trace of it.
      ctx.store.db.exec('PRAGMA secure_delete = ON');
      try {
        await ctx.store.run(
          'UPDATE seals SET wrapped_key = ? WHERE seal_id = ?',
          '0'.repeat(row.wrapped_key.length),
          sealId,
        );
        await ctx.store.run(
          'UPDATE seals SET wrapped_key = NULL, revoked_at = ?, revoked_by = ?, revoke_reason = ? WHERE seal_id = ?',
          at,
          options.by,
          reason,
          sealId,
        );
      } finally {
        ctx.store.db.exec('PRAGMA secure_delete = OFF');
      }
      const receipt = await ctx.chains.append('service', {
        kind: 'seal.revoke',
        org_id: null,
        signed_at: at,
        body: { seal_id: sealId, path: row.path, by: options.by, reason },
      });
      return {
        row: { ...row, revoked_at: at, revoked_by: options.by, revoke_reason: reason },
        receipt_id: receipt.receipt_id,
      };
    });
    const { row } = revoked;
    return {
      seal_id: sealId,
      path: row.path,
      revoked_at: row.revoked_at!,
      revoked_by: row.revoked_by!,
      revoke_reason: row.revoke_reason,
      changed: revoked.receipt_id !== null,
      receipt_id: revoked.receipt_id,
      log_cleared: revoked.receipt_id !== null ? checkpoint(ctx) : true,
    };
  });
}

/**
 * Copies the store's log into the database file and empties it, so the page that held the key
 * before revocation is overwritten in both. Another process reading at that moment can keep it
 * from completing; then the next checkpoint does it.
 */
function checkpoint(ctx: Context): boolean {
  try {
    const row = ctx.store.readDb.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get() as { busy: number };
    return row.busy === 0;
  } catch {
    return false;
  }
}

async function sealIdOfFile(path: string): Promise<string> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    throw new ServiceError('not_found', `no file at ${path}: give a sealed file or a seal id (seal_…)`);
  }
  try {
    const first = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await handle.read(first, 0, HEADER_BYTES, 0);
    try {
      return sealIdText(parseHeader(first.subarray(0, bytesRead)).sealId);
    } catch (error) {
      throw new ServiceError('invalid_request', `${path}: ${(error as SealedFileError).message}`);
    }
  } finally {
    await handle.close();
  }
}

/**
 * `opened`: the key is kept, but the file at the seal's path is not sealed (opened back in place,
 * or replaced); `missing`: nothing is there. Both are read from the file when listed.
 */
export type SealState = 'sealed' | 'pending' | 'revoked' | 'opened' | 'missing';

export interface SealListing {
  seal_id: string;
  path: string;
  bytes: number;
  state: SealState;
  created_at: string;
  created_by: string;
  sealed_at: string | null;
  revoked_at: string | null;
  revoked_by: string | null;
  revoke_reason: string | null;
}

/**
 * The seals of this store, newest first; never a key. `pending`: the key was stored but the
 * sealing did not finish (a crash); the file is either still the original or sealed and opens.
 */
export async function listSeals(ctx: Context, limit = 1000): Promise<SealListing[]> {
  const rows = await ctx.store.all<SealRow>(
    'SELECT * FROM seals ORDER BY created_at DESC, seal_id LIMIT ?',
    limit,
  );
  return rows.map((row) => ({
    seal_id: row.seal_id,
    path: row.path,
    bytes: row.bytes,
    state: row.wrapped_key === null ? 'revoked' : row.sealed_at === null ? 'pending' : onDisk(row.path),
    created_at: row.created_at,
    created_by: row.created_by,
    sealed_at: row.sealed_at,
    revoked_at: row.revoked_at,
    revoked_by: row.revoked_by,
    revoke_reason: row.revoke_reason,
  }));
}

/** Whether the file a seal was made of is still sealed: its first bytes, read without following a link. */
function onDisk(path: string): 'sealed' | 'opened' | 'missing' {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'opened';
  }
  try {
    const prefix = Buffer.alloc(SEALED_MAGIC.length);
    const read = readSync(fd, prefix, 0, prefix.length, 0);
    return hasSealedMagic(prefix.subarray(0, read)) ? 'sealed' : 'opened';
  } catch {
    return 'opened';
  } finally {
    closeSync(fd);
  }
}

/** The interface svc's tools are handed: sealing on the computer the server runs on. */
export interface SealFiles {
  protect(paths: readonly string[], options: ProtectOptions): Promise<ProtectResult>;
  open(path: string, options: OpenOptions): Promise<Opened>;
  revoke(target: string, options: RevokeOptions): Promise<Revoked>;
}

/** `SealFiles` over one core. */
export function sealFilesOn(ctx: () => Context): SealFiles {
  return {
    protect: (paths, options) => protectPaths(ctx(), paths, options),
    open: (path, options) => openSealed(ctx(), path, options),
    revoke: (target, options) => revokeSeal(ctx(), target, options),
  };
}
