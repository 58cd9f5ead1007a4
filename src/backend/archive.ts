// The archive (docs/VAULT.md): files wrapped into `<data dir>/archive/`, each encrypted in the
// sealed-file format under a key derived from the vault, named by a keyed hash of its plaintext so
// equal files are stored once; restored only after the read gate's decision. Every wrap and every
// restore, allowed or refused, is receipted on the service chain.
import { createHmac, randomBytes, timingSafeEqual, type Hmac, type KeyObject } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { deriveKey } from '../vault/derive.ts';
import {
  DEFAULT_CHUNK_BYTES,
  HEADER_BYTES,
  SealedFileError,
  createHeader,
  openStream,
  parseHeader,
} from '../vault/sealed-file.ts';
import { newId, nowIso, type Context } from './context.ts';
import { ServiceError } from './errors.ts';
import { Refusal, receiptRefusals } from './governance.ts';
import {
  releaseToFile,
  IO_BYTES,
  sealInto,
  exists,
  failureText,
  sweepLeftovers,
  syncFolder,
  walk,
  type Admission,
  type SkipReason,
} from './seal-files.ts';
import { holdTemp, releaseTemp } from './temp-files.ts';
import { ARCHIVE_ID } from './vocabulary.ts';

export { ARCHIVE_ID };

/** The archive of this computer's own files is salted like its own seals: no organization id can take it. */
const MACHINE_SALT = 'svc-machine';
/** An object's name: the first 16 bytes of its keyed hash (a collision needs about 2^64 files). */
const OBJECT_ID_BYTES = 16;

/** Where a data dir keeps its archive: the objects, and the objects being written. */
export function archiveDir(ctx: Context): string {
  return join(dirname(resolve(ctx.store.file)), 'archive');
}

const objectsDir = (ctx: Context) => join(archiveDir(ctx), 'objects');
const objectPath = (ctx: Context, objectId: string) => join(objectsDir(ctx), objectId.slice('arc_'.length));

/**
 * The key of one object: HKDF over the vault's data secret, its purpose and the object's random key
 * id (the sealed-file header's id field). Each written object draws its own id, so no two objects
 * share a data key, and an object opens with the vault alone: no key is kept beside it.
 */
function objectKey(ctx: Context, keyId: Uint8Array): KeyObject {
  return deriveKey(ctx.vault.secret('data-columns'), {
    purpose: 'svc-archive-object-v1',
    salt: MACHINE_SALT,
    context: [Buffer.from(keyId).toString('hex')],
  });
}

/**
 * The HMAC-SHA256 key that names objects. Keyed, so an object's name tells someone without the
 * vault nothing about its content (a plain hash would confirm a guess of it).
 */
function nameKey(ctx: Context): KeyObject {
  return deriveKey(ctx.vault.secret('data-columns'), { purpose: 'svc-archive-name-v1', salt: MACHINE_SALT });
}

const objectIdOf = (hmac: Hmac) => `arc_${hmac.digest().subarray(0, OBJECT_ID_BYTES).toString('hex')}`;

// ---------------------------------------------------------------- wrap

/** Steps of wrapping one file, in order; `chunk` once per chunk. */
export type WrapStep = 'chunk' | 'written' | 'stored' | 'indexed' | 'removed' | 'done' | 'skipped' | 'failed';

export interface WrapProgress {
  step: WrapStep;
  path: string;
  files: number;
  bytes: number;
}

export interface WrapOptions {
  by: string;
  /** The gate's decision on reading a file; absent: the person's own command, no gate. */
  admit?: ((path: string) => Promise<Admission>) | undefined;
  /** Remove each original once its object is on disk and indexed (never before). */
  remove?: boolean;
  onProgress?: ((progress: WrapProgress) => void) | undefined;
}

export interface WrappedOne {
  path: string;
  object_id: string;
  entry_id: string;
  bytes: number;
  /** True when an equal file was archived before: nothing new was stored. */
  deduplicated: boolean;
  original_removed: boolean;
  receipt_id: string;
}

export interface WrapResult {
  wrapped: WrappedOne[];
  skipped: { path: string; reason: SkipReason }[];
  failed: { path: string; message: string; receipt_id: string | null }[];
}

/**
 * Wraps every file of `paths` into the archive, folders recursively (as protect walks them). The
 * originals stay unless `remove`. One file failing does not stop the others, nor does a path that
 * is not there: each is in `failed`.
 */
export async function wrapPaths(
  ctx: Context,
  paths: readonly string[],
  options: WrapOptions,
): Promise<WrapResult> {
  const result: WrapResult = { wrapped: [], skipped: [], failed: [] };
  const dataDir = dirname(resolve(ctx.store.file));
  let bytes = 0;
  const report = (step: WrapStep, path: string) =>
    options.onProgress?.({
      step,
      path,
      files: result.wrapped.length + result.skipped.length + result.failed.length,
      bytes,
    });
  await mkdir(objectsDir(ctx), { recursive: true, mode: 0o700 });
  await sweepLeftovers(archiveDir(ctx));
  const denied = async (path: string, reason: string, message: string | null, gate: Admission | null) =>
    (
      await ctx.chains.append('service', {
        kind: 'wrap.deny',
        org_id: null,
        signed_at: nowIso(ctx),
        body: {
          path,
          by: options.by,
          reason,
          message,
          gate: gate && { outcome: gate.outcome, rule_id: gate.rule_id, audit_id: gate.audit_id },
        },
      })
    ).receipt_id;
  for (const given of paths) {
    for await (const found of walk(resolve(given), dataDir)) {
      if ('reason' in found) {
        result.skipped.push(found);
        report('skipped', found.path);
        continue;
      }
      if ('failure' in found) {
        const receiptId = await denied(found.path, 'failed', found.failure, null).catch(() => null);
        result.failed.push({ path: found.path, message: found.failure, receipt_id: receiptId });
        report('failed', found.path);
        continue;
      }
      const { path } = found;
      try {
        if (options.admit) {
          const admission = await options.admit(path);
          if (!admission.allowed) {
            await denied(path, 'gate', admission.message ?? null, admission);
            result.skipped.push({ path, reason: 'protected' });
            report('skipped', path);
            continue;
          }
        }
        const outcome = await wrapOne(ctx, path, options, (step, done) => {
          if (step === 'chunk') bytes += done;
          report(step, path);
        });
        if ('reason' in outcome) {
          result.skipped.push({ path, reason: outcome.reason });
          report('skipped', path);
        } else {
          result.wrapped.push(outcome);
          report('done', path);
        }
      } catch (error) {
        const message = failureText(error);
        const receiptId = await denied(path, 'failed', message, null).catch(() => null);
        result.failed.push({ path, message, receipt_id: receiptId });
        report('failed', path);
      }
    }
  }
  return result;
}

/**
 * Wraps one file: encrypted into a temporary object in the archive while its keyed hash is taken,
 * flushed, then renamed to its name (or dropped when an equal object is there already); then indexed
 * and receipted in one write. The original is only read, and removed, if asked, after all that.
 */
async function wrapOne(
  ctx: Context,
  path: string,
  options: WrapOptions,
  step: (step: WrapStep, bytes: number) => void,
): Promise<WrappedOne | { reason: SkipReason }> {
  const source = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  let temp: string | undefined;
  try {
    const before = await source.stat();
    if (!before.isFile()) return { reason: 'not_a_file' };
    const keyId = randomBytes(16);
    const header = createHeader(keyId, DEFAULT_CHUNK_BYTES);
    const hmac = createHmac('sha256', nameKey(ctx));
    temp = join(archiveDir(ctx), `.svc-wrap-${process.pid}-${randomBytes(6).toString('hex')}`);
    holdTemp(temp);
    // The keyed hash is taken on the way through: one read of the file names and encrypts it.
    await sealInto(source, before, await open(temp, 'wx', 0o600), objectKey(ctx, keyId), header, {
      onPlain: (piece) => hmac.update(piece),
      onChunk: (bytes) => step('chunk', bytes),
      changed: `${path} changed while it was being wrapped, so nothing was archived: wrap it again once nothing writes to it`,
    });
    step('written', 0);

    const objectId = objectIdOf(hmac);
    const target = objectPath(ctx, objectId);
    const deduplicated = await exists(target);
    if (deduplicated) {
      // An equal file is archived already (under its own key): this copy is not needed.
      await unlink(temp);
    } else {
      await rename(temp, target);
      await syncFolder(objectsDir(ctx));
    }
    releaseTemp(temp);
    temp = undefined;
    step('stored', 0);

    const entryId = newId('wrp');
    const receipt = await ctx.store.write(async () => {
      const at = nowIso(ctx);
      await ctx.store.run(
        'INSERT OR IGNORE INTO archive_objects (object_id, bytes, stored_at) VALUES (?, ?, ?)',
        objectId,
        before.size,
        at,
      );
      await ctx.store.run(
        `INSERT INTO archive_entries (entry_id, object_id, org_id, path, bytes, wrapped_at, wrapped_by)
         VALUES (?, ?, NULL, ?, ?, ?, ?)`,
        entryId,
        objectId,
        path,
        before.size,
        at,
        options.by,
      );
      return ctx.chains.append('service', {
        kind: 'wrap',
        org_id: null,
        signed_at: at,
        body: {
          object_id: objectId,
          entry_id: entryId,
          path,
          bytes: before.size,
          deduplicated,
          by: options.by,
        },
      });
    });
    step('indexed', 0);

    let removed = false;
    if (options.remove) {
      // Only the very file that was read, unchanged: something put in its place meanwhile stays.
      const now = await lstat(path);
      if (
        now.ino === before.ino &&
        now.dev === before.dev &&
        now.size === before.size &&
        now.mtimeMs === before.mtimeMs
      ) {
        await unlink(path);
        await syncFolder(dirname(path));
        await ctx.store.run(
          'UPDATE archive_entries SET original_removed_at = ? WHERE entry_id = ?',
          nowIso(ctx),
          entryId,
        );
        removed = true;
        step('removed', 0);
      }
    }
    return {
      path,
      object_id: objectId,
      entry_id: entryId,
      bytes: before.size,
      deduplicated,
      original_removed: removed,
      receipt_id: receipt.receipt_id,
    };
  } catch (error) {
    if (temp) {
      await unlink(temp).catch(() => undefined);
      releaseTemp(temp);
    }
    throw error;
  } finally {
    await source.close();
  }
}

// ---------------------------------------------------------------- list

export interface ArchiveEntry {
  entry_id: string;
  object_id: string;
  path: string;
  bytes: number;
  wrapped_at: string;
  wrapped_by: string;
  original_removed_at: string | null;
}

/** What was wrapped, newest first; never a key or content. */
export async function listArchive(ctx: Context, limit = 1000): Promise<ArchiveEntry[]> {
  return ctx.store.all<ArchiveEntry>(
    `SELECT entry_id, object_id, path, bytes, wrapped_at, wrapped_by, original_removed_at
     FROM archive_entries ORDER BY wrapped_at DESC, entry_id LIMIT ?`,
    limit,
  );
}

// ---------------------------------------------------------------- restore

export type RestoreTarget =
  | { kind: 'file'; path: string; force: boolean }
  | { kind: 'original'; force: boolean }
  | { kind: 'stdout'; write: (bytes: Buffer) => Promise<void> };

export interface RestoreOptions {
  out: RestoreTarget;
  by: string;
  /**
   * The gate's decision: the paths the content was wrapped from (their rules follow the archived
   * copy; none for an object the index does not know) and where the plaintext goes (null for stdout).
   */
  admit: (from: readonly string[], to: string | null) => Promise<Admission>;
}

export interface Restored {
  object_id: string;
  /** Where the file was last wrapped from, when the index knows. */
  path: string | null;
  released_to: RestoreTarget['kind'];
  out_path: string | null;
  bytes: number;
  receipt_id: string;
}

/**
 * Restores an archived file, once the gate allows, to a file (never over an existing one unless
 * `force`), to where it was wrapped from, or to a stream. Nothing is released before every chunk
 * has authenticated, the content matches the object's name and the receipt is written.
 */
export async function restoreArchived(
  ctx: Context,
  objectId: string,
  options: RestoreOptions,
): Promise<Restored> {
  const { out } = options;
  let from: string | null = null;
  let destination: string | null = out.kind === 'file' ? resolve(out.path) : null;
  let gate: Record<string, unknown> | null = null;
  const refuse = (code: ServiceError['code'], message: string, reason: string, details = {}) =>
    new Refusal(
      code,
      message,
      { ...details, object_id: objectId },
      {
        kind: 'wrap.restore.deny',
        org_id: null,
        body: {
          object_id: objectId,
          path: from,
          released_to: out.kind,
          out_path: destination,
          by: options.by,
          gate,
          reason,
        },
      },
    );
  return receiptRefusals(ctx, async () => {
    if (!ARCHIVE_ID.test(objectId)) {
      throw refuse(
        'invalid_request',
        `${objectId} is not an archive id (arc_ and 32 hex digits): svc_wrap with action \`list\` (or \`svc wrap list\`) lists them`,
        'bad_id',
      );
    }
    // Every path this content was wrapped from, newest first: the rules of each follow the archived copy.
    const sources = (
      await ctx.store.all<{ path: string }>(
        'SELECT path FROM archive_entries WHERE object_id = ? ORDER BY wrapped_at DESC, rowid DESC',
        objectId,
      )
    ).map((e) => e.path);
    from = sources[0] ?? null;
    if (out.kind === 'original') {
      if (from === null) {
        throw refuse(
          'invalid_request',
          `the index does not say where ${objectId} came from: name where it goes`,
          'no_original',
        );
      }
      destination = from;
    }
    const admission = await options.admit([...new Set(sources)], destination);
    gate = { outcome: admission.outcome, rule_id: admission.rule_id, audit_id: admission.audit_id };
    if (!admission.allowed) {
      throw refuse(
        'forbidden',
        admission.message ?? `the read gate did not allow restoring ${objectId}; nothing was released`,
        'gate',
        gate,
      );
    }
    const force = out.kind !== 'stdout' && out.force;
    if (destination !== null && !force && (await exists(destination))) {
      throw refuse(
        'conflict',
        `${destination} already exists: name a file that does not, or restore with --force to replace it`,
        'out_exists',
      );
    }
    let source: FileHandle;
    try {
      source = await open(objectPath(ctx, objectId), constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch {
      throw refuse('not_found', `no object ${objectId} in this archive`, 'unknown_object');
    }
    try {
      const first = Buffer.alloc(HEADER_BYTES);
      const { bytesRead } = await source.read(first, 0, HEADER_BYTES, 0);
      let key: KeyObject;
      try {
        key = objectKey(ctx, parseHeader(first.subarray(0, bytesRead)).sealId);
      } catch (error) {
        throw refuse('sealed_corrupt', `${objectId}: ${(error as SealedFileError).message}`, 'corrupt');
      }
      const chunks = () =>
        openStream(
          source.createReadStream({ start: 0, highWaterMark: IO_BYTES, autoClose: false }),
          () => key,
        );
      // The content must be what the name says: an object swapped for another under this name is refused.
      const hmac = createHmac('sha256', nameKey(ctx));
      const matches = () => {
        const expected = Buffer.from(objectId.slice('arc_'.length), 'hex');
        return timingSafeEqual(hmac.digest().subarray(0, OBJECT_ID_BYTES), expected);
      };
      const failed = (error: unknown) =>
        error instanceof SealedFileError
          ? refuse('sealed_corrupt', `${objectId}: ${error.message}`, error.code)
          : error;
      const notItsName = () =>
        refuse(
          'sealed_corrupt',
          `${objectId} does not hold the file its name says: the archive was altered`,
          'name_mismatch',
        );
      const receipted = async (bytes: number) =>
        (
          await ctx.chains.append('service', {
            kind: 'wrap.restore',
            org_id: null,
            signed_at: nowIso(ctx),
            body: {
              object_id: objectId,
              path: from,
              released_to: out.kind,
              out_path: destination,
              by: options.by,
              gate,
              bytes,
            },
          })
        ).receipt_id;
      const restored = (bytes: number, receiptId: string): Restored => ({
        object_id: objectId,
        path: from,
        released_to: out.kind,
        out_path: destination,
        bytes,
        receipt_id: receiptId,
      });

      if (out.kind === 'stdout') {
        // First pass authenticates and checks the name, keeping nothing; only then is it decrypted again and written.
        let bytes = 0;
        try {
          for await (const piece of chunks()) {
            bytes += piece.length;
            hmac.update(piece);
            piece.fill(0);
          }
        } catch (error) {
          throw failed(error);
        }
        if (!matches()) throw notItsName();
        const receiptId = await receipted(bytes);
        let written = 0;
        try {
          for await (const piece of chunks()) {
            await out.write(piece);
            written += piece.length;
          }
        } catch (error) {
          throw failed(error);
        }
        return restored(written, receiptId);
      }

      const where = destination!;
      let receiptId = '';
      const bytes = await releaseToFile(where, {
        pieces: chunks(),
        replace: force,
        onPiece: (piece) => hmac.update(piece),
        failed,
        beforeMove: async (bytes) => {
          if (!matches()) throw notItsName();
          receiptId = await receipted(bytes);
        },
        appeared: () =>
          refuse(
            'conflict',
            `${where} appeared while the file was being restored, so it was not overwritten`,
            'out_exists',
          ),
      });
      return restored(bytes, receiptId);
    } finally {
      await source.close();
    }
  });
}

/** The interface svc's tools are handed: the archive of the computer the server runs on. */
export interface Archive {
  wrap(paths: readonly string[], options: WrapOptions): Promise<WrapResult>;
  list(): Promise<ArchiveEntry[]>;
  restore(objectId: string, options: RestoreOptions): Promise<Restored>;
}

/** `Archive` over one core. */
export function archiveOn(ctx: () => Context): Archive {
  return {
    wrap: (paths, options) => wrapPaths(ctx(), paths, options),
    list: () => listArchive(ctx()),
    restore: (objectId, options) => restoreArchived(ctx(), objectId, options),
  };
}
