// Clean copies of files and folders on this computer (docs/SCAN.md, Clean copies): every file the
// scanner would read is read whole, its values replaced by typed tokens (src/scan/redact.ts) with
// one token allocator for the whole copy, and written under the copy's folder, each file written
// beside its place and renamed into it. The source is never written; a file with nothing found is
// copied byte for byte; binaries are skipped and reported. The token-to-value mapping is handed
// back to the caller in memory only: nothing here logs it or writes it in the clear.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path';
import { ensurePrivateDir, writeFileAtomic, writeNewFileAtomic } from '../config/paths.ts';
import { shellQuote } from '../config/command.ts';
import { cleanCopiesDir } from '../gate/builtin.ts';
import { realPath, within } from '../gate/resolve.ts';
import { detector, type Detector, type Match } from '../scan/detect.ts';
import { KnownValues, redactText, TokenAllocator, type Form, type Found } from '../scan/redact.ts';
import { DETECTION_RULES, TABLE_READERS } from '../scan/rules.ts';
import { deriveKey } from '../vault/derive.ts';
import type { Context } from './context.ts';
import { ServiceError } from './errors.ts';
import { keepMapping } from './redact-mapping.ts';
import {
  encodeText,
  filesToScan,
  identityOf,
  readWholeText,
  type Admit,
  type ConfirmHeld,
  type FileToScan,
  type Skipped,
} from './scan-files.ts';

/** How the place of a copy is given, in the command line and in svc_redact. */
const OUT = '`--out`; svc_redact: `out`';

/**
 * The file svc leaves in a folder it made a clean copy in: a later copy may write over such a
 * folder, never over one it did not make.
 */
export const CLEAN_COPY_MARKER = '.svc-clean-copy';

export interface RedactOptions {
  /**
   * Where the copy goes. A folder's copy: this folder (default `<folder>.clean` beside it). A
   * file's copy: a file of the same name in this folder (default `<name>.clean<ext>` beside it).
   */
  out?: string | undefined;
  /**
   * Whether a file may be read (the read gate's decision, for an agent): a file it refuses is not
   * read and not copied, and is reported as skipped, `protected`. A file it holds (`'ask'`) waits
   * for `confirm`.
   */
  admit?: Admit | undefined;
  /**
   * Asked once, after every other file was read, about the files `admit` held (a file's copy: at
   * once). Yes copies them too; without it, or without a yes, they are `protected`.
   */
  confirm?: ConfirmHeld | undefined;
  /**
   * svc's own data dir (its store and keys), never copied: a source in it is refused, and its files
   * under a folder being copied are skipped as `protected`. Taken from the store when `ctx` is given.
   */
  dataDir?: string | undefined;
  /** Called after each file, with the files done and the bytes read so far. */
  onProgress?: ((done: { files: number; bytes: number }) => void) | undefined;
  /**
   * Keep the mapping from token to value, sealed in the store (redact-mapping.ts), so that the
   * owner can put values back later; the copy's id comes back in the report. Off by default.
   */
  keepMapping?: boolean | undefined;
}

export interface CopiedFile {
  /** Relative to the source folder, with `/` between parts (a file alone: its name). */
  file: string;
  /** `redacted`: values were replaced; `copied`: nothing was found, the bytes are the source's. */
  status: 'redacted' | 'copied';
  /** Values replaced in this file. */
  values: number;
}

/** What a clean copy did, without a single value: what may be shown and logged. */
export interface RedactReport {
  /** The source, absolute. */
  source: string;
  /** The copy: a folder, or for a file alone the copied file. Absolute. */
  out: string;
  kind: 'file' | 'folder';
  files: CopiedFile[];
  skipped: Skipped[];
  values_replaced: number;
  /** Distinct values per type: how many tokens of each type the copy holds. */
  tokens_by_type: Record<string, number>;
  /** The id that names the kept mapping (`svc redact reverse`); null when it is not kept. */
  copy_id: string | null;
  /** The receipt of keeping the mapping; null when it is not kept. */
  receipt_id: string | null;
}

export interface CleanCopy {
  report: RedactReport;
  /**
   * Token to value, for the owner who asked to keep it (sealed in the vault). Never log it,
   * never print it, never send it anywhere in the clear.
   */
  mapping: ReadonlyMap<string, string>;
  /** Token and value once for each way the files wrote it (TokenAllocator.forms): the same care. */
  forms: readonly Form[];
}

/** The scanner's rules as one detector, built once per process on first use. */
let scanner: Detector | undefined;
export const cleanCopyDetector = () => (scanner ??= detector(DETECTION_RULES, TABLE_READERS));

/**
 * Makes a clean copy of a folder or a file. Refused, before anything is read: a source that is not
 * there, svc's own data dir (as source or as copy), a copy that would land on the source or inside
 * it, and a copy folder that holds files svc did not put there (they could be written over). A
 * file's copy beside it is written only as a new file: a file already there is refused, unless it
 * holds exactly this copy.
 */
export async function redactPath(
  ctx: Context | undefined,
  path: string,
  options: RedactOptions = {},
): Promise<CleanCopy> {
  if (options.keepMapping && !ctx)
    throw new Error("keeping a mapping needs svc's core (its store and vault)");
  const { source, out, kind } = cleanCopyPlace(path, options.out);
  const isFile = kind === 'file';
  const dataDir = options.dataDir ?? (ctx ? dirname(resolve(ctx.store.file)) : undefined);
  const realData = dataDir === undefined ? undefined : realPath(resolve(dataDir));
  const inData = (p: string) => realData !== undefined && within(realPath(p), realData);
  if (inData(source) || inData(out)) {
    throw new ServiceError(
      'forbidden',
      `${inData(source) ? source : out} is in svc's own data dir (its store and keys), which svc never copies or writes a copy into: give another ${inData(source) ? 'path' : `place for the copy (${OUT})`}`,
    );
  }
  const tokens = new TokenAllocator();
  const skipped: Skipped[] = [];
  const files: CopiedFile[] = [];
  let done = 0;
  let bytes = 0;
  const admitted = async (target: FileToScan): Promise<boolean | 'ask' | 'clean' | 'ask-clean'> => {
    // svc's data dir inside a folder being copied: its files are svc's own, whatever the gate says.
    const answer = inData(target.path)
      ? false
      : options.admit
        ? await options.admit(target.named ?? target.path)
        : true;
    if (answer === false) skipped.push({ file: target.file, reason: 'protected' });
    return answer;
  };
  /** Whether the person lets the files held for them be read too; if not, they are `protected`. */
  const confirmed = async (held: readonly FileToScan[]): Promise<boolean> => {
    if (held.length === 0) return false;
    const yes = options.confirm ? await options.confirm(held.map((t) => t.file)) : false;
    if (!yes) for (const target of held) skipped.push({ file: target.file, reason: 'protected' });
    return yes;
  };
  const record = (target: FileToScan, outcome: CleanFileOutcome, copiedAs = target.file) => {
    if ('skipped' in outcome) skipped.push({ file: target.file, reason: outcome.skipped });
    else {
      files.push({
        file: copiedAs,
        status: outcome.values > 0 ? 'redacted' : 'copied',
        values: outcome.values,
      });
    }
  };

  let staging: Staging | undefined;
  try {
    checkCopyPlace({ source, out, kind }, options.out !== undefined);
    if (isFile) {
      const name = basename(source);
      // The file itself, where a link leads, and which file it is: the gate judges that, and what is
      // read must still be it (a file put in its place while the person is asked is `changed`).
      const real = realPath(source);
      const found = lstatSync(real, { bigint: true });
      const target = {
        path: real,
        file: name,
        bytes: Number(found.size),
        identity: identityOf(found),
        named: source,
      };
      // Asked first: a protected file gets no copy folder and no copy.
      const answer = await admitted(target);
      const held = answer === 'ask' || answer === 'ask-clean';
      if (answer === false || (held && !(await confirmed([target]))))
        throw nothingCopied(skipped, () => source);
      // Beside the file, the copy's name may be a file of the person's own: written only as a new file
      // (or left as it is when it holds this very copy). In an --out folder svc claimed (empty, or
      // marked as svc's), an earlier copy may be replaced.
      const beside = options.out === undefined;
      if (!beside) claimFolder(dirname(out), name);
      mkdirSync(dirname(out), { recursive: true });
      try {
        const outcome = writeCleanFile(target, out, tokens, { replace: !beside });
        record(target, outcome);
        if (!('skipped' in outcome)) bytes += outcome.bytes;
        options.onProgress?.({ files: ++done, bytes });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw outExists(out);
        throw error;
      }
    } else {
      // The copy is made in a folder of its own beside `out` and takes its place only once whole: a
      // failure part-way leaves the earlier copy as it was, and a copy made again holds nothing from
      // an earlier one (whose tokens were numbered by another allocator).
      // Through a link to a folder, the copy goes where the link leads (where the gate judged it).
      const place = realPath(out);
      staging = stagingFor(place);
      // First every file is read and searched, so that a value found in one is replaced wherever
      // it stands in the others too; then each is written, from what was found in it.
      const known = new KnownValues();
      /** The values of the files only their clean copy may leave. */
      const cleanKnown = new KnownValues();
      const found: { target: FileToScan; matches: Match[]; digest: string; cleanOnly: boolean }[] = [];
      const search = (target: FileToScan, cleanOnly = false) => {
        const read = readWholeText(target.path, target.identity);
        if ('skipped' in read) {
          skipped.push({ file: target.file, reason: read.skipped });
          return;
        }
        const matches = cleanCopyDetector().matches(read.text, target.file);
        // The values of a file only its clean copy may leave are looked for in the others only when
        // nobody could guess them: the reader may write those, and a guess written there would be
        // replaced only if right.
        (cleanOnly ? cleanKnown : known).add(read.text, matches);
        // A token any file (or name) of the copy holds as text is not handed out in another.
        tokens.reserve(read.text);
        tokens.reserve(target.file);
        found.push({ target, matches, digest: digestOf(read.text), cleanOnly });
        bytes += read.bytes;
        options.onProgress?.({ files: ++done, bytes });
      };
      const held: { target: FileToScan; cleanOnly: boolean }[] = [];
      for await (const target of filesToScan(source, (s) => skipped.push(s))) {
        // A project's svc folder (its rule file) is the source's: in the copy its rules would hold
        // over clean files, and tell a partner which files are protected.
        if (SVC_FOLDER.test(target.file)) continue;
        const answer = await admitted(target);
        if (answer === 'ask' || answer === 'ask-clean')
          held.push({ target, cleanOnly: answer === 'ask-clean' });
        else if (answer) search(target, answer === 'clean');
      }
      // The person is asked once, about every file held, when the rest has been read.
      if (await confirmed(held.map((h) => h.target))) {
        for (const { target, cleanOnly } of held) search(target, cleanOnly);
      }
      // Every file the gate protects and none else: there is nothing to copy, and no copy to claim.
      if (found.length === 0 && skipped.some((s) => s.reason === 'protected'))
        throw nothingCopied(skipped, (file) => join(source, file));
      const names = new Map<string, string>();
      // Files the reader may read whole: every value of theirs, and the unguessable ones of the
      // clean-only files. A clean-only file: the unguessable values of any file.
      const forOpen = known.with(cleanKnown.unguessable());
      const unguessable = known.with(cleanKnown).unguessable();
      for (const { target, matches, digest, cleanOnly } of found) {
        const copiedAs = target.file
          .split('/')
          .map((part, i, parts) => cachedName(names, parts.slice(0, i + 1).join('/'), tokens, forOpen))
          .join('/');
        const destination = join(staging.dir, ...copiedAs.split('/'));
        mkdirSync(dirname(destination), { recursive: true });
        // A clean-only file gets its own values replaced, by tokens of its own (`scope`): equal to
        // nothing in the files its reader may write. Of the values found elsewhere, only those
        // nobody could guess are looked for in it (KnownValues.unguessable).
        const write = cleanOnly
          ? {
              known: unguessable,
              found: { matches, digest },
              scope: target.file,
              writtenIn: copiedAs,
              from: target.file,
            }
          : { known: forOpen, found: { matches, digest }, writtenIn: copiedAs, from: target.file };
        record(target, writeCleanFile(target, destination, tokens, write), copiedAs);
      }
      markFolder(
        staging.dir,
        files.map((f) => f.file),
      );
      replaceFolder(place, staging);
      staging = undefined;
    }
    const mapping = tokens.mapping();
    const tokensByType = tokens.tokensByType();
    // Kept once the copy is in place: a mapping is never kept for a copy that was not made.
    const kept =
      options.keepMapping && ctx
        ? await keepMapping(
            ctx,
            { source, out, kind, tokens_by_type: tokensByType },
            { forms: tokens.forms(), from: tokens.provenance() },
          )
        : undefined;
    return {
      report: {
        source,
        out,
        kind,
        files,
        skipped,
        values_replaced: files.reduce((n, f) => n + f.values, 0),
        tokens_by_type: tokensByType,
        copy_id: kept?.copy_id ?? null,
        receipt_id: kept?.receipt_id ?? null,
      },
      mapping,
      forms: tokens.forms(),
    };
  } finally {
    if (staging) rmSync(staging.dir, { recursive: true, force: true });
  }
}

/** A file in a project's `.svc` folder, at any depth of the folder copied. */
const SVC_FOLDER = /(?:^|\/)\.svc\//;

/** A copy of protected files only: refused, naming them, rather than an empty copy said to be made. */
const nothingCopied = (skipped: readonly Skipped[], pathOf: (file: string) => string) => {
  const files = skipped.filter((s) => s.reason === 'protected').map((s) => s.file);
  // Named by full path, so that the command naming the rule works wherever it is run.
  const paths = files.slice(0, 5).map(pathOf);
  return new ServiceError(
    'forbidden',
    `nothing was copied: the read gate protects ${paths.join(', ')}${files.length > 5 ? ` and ${files.length - 5} more` : ''} from this reader (\`svc rules explain ${shellQuote(paths[0] ?? 'PATH')}\`, or svc_rules action "explain", names the rule); a rule that lets only a clean copy out allows one`,
    { protected: files.slice(0, 20) },
  );
};

/**
 * Refuses a place for a copy before anything is read or asked: a file's copy that would be the file
 * itself, a folder's copy inside the folder or holding it, and a folder that holds files svc did not
 * put there. `out` was given (rather than the default beside the source).
 */
export function checkCopyPlace(
  place: { source: string; out: string; kind: 'file' | 'folder' },
  given: boolean,
): void {
  const { source, out } = place;
  if (place.kind === 'file') {
    if (realPath(out) === realPath(source)) {
      throw new ServiceError(
        'invalid_request',
        `the copy would replace ${source} itself: give another folder for it (${OUT})`,
      );
    }
    if (given) checkFolder(dirname(out));
    return;
  }
  const realSource = realPath(source);
  const realOut = realPath(out);
  if (within(realOut, realSource) || within(realSource, realOut)) {
    throw new ServiceError(
      'invalid_request',
      within(realOut, realSource)
        ? `the copy of ${source} cannot go inside it (${out}): give a folder outside it for the copy (${OUT})`
        : `${source} is inside ${out}, which the copy would replace: give a folder outside it for the copy (${OUT})`,
    );
  }
  checkFolder(out);
}

const outExists = (out: string) =>
  new ServiceError(
    'conflict',
    `${out} already exists and is not the clean copy svc would write (a file of yours, or a copy of the file as it was): svc never writes over it; remove it, or give a folder for the copy (${OUT})`,
  );

/**
 * Where the clean copy of `path` goes, absolute, before anything is read (for a gate to decide the
 * write first): a folder's copy folder, or a file's copy. A source that is not there is refused.
 */
export function cleanCopyPlace(
  path: string,
  out: string | undefined,
): { source: string; out: string; kind: 'file' | 'folder' } {
  // An empty path (an unset `"$DIR"` in a script) would be the current folder: never a guess.
  if (path.trim() === '') {
    throw new ServiceError('invalid_request', 'the path to copy is empty: give a folder or a file');
  }
  const source = resolve(path);
  let stat;
  try {
    stat = statSync(source);
  } catch {
    throw new ServiceError('not_found', `nothing to copy at ${source}: give a folder or a file that exists`);
  }
  // A named pipe, a device or a socket is there, but holds no text to copy.
  if (!stat.isFile() && !stat.isDirectory()) {
    throw new ServiceError(
      'invalid_request',
      `${source} is neither a regular file nor a folder (a named pipe, a device or a socket): give a file or a folder to copy`,
    );
  }
  const isFile = stat.isFile();
  if (isFile) {
    const name = basename(source);
    return {
      source,
      kind: 'file',
      out: out === undefined ? join(dirname(source), cleanName(name)) : join(resolve(out), name),
    };
  }
  return { source, kind: 'folder', out: resolve(out ?? `${source.replace(/[\\/]+$/, '')}.clean`) };
}

/** `config.json` → `config.clean.json`, `.env` → `.env.clean`, `notes` → `notes.clean`. */
export function cleanName(name: string): string {
  const ext = extname(name);
  return ext ? `${name.slice(0, -ext.length)}.clean${ext}` : `${name}.clean`;
}

export type CleanFileOutcome = { values: number; bytes: number } | { skipped: Skipped['reason'] };

/**
 * Writes the clean copy of one file to `destination`: its values replaced by tokens from
 * `tokens`, or its bytes as they are when nothing is found. Written beside the destination and
 * renamed into place, so a reader sees the old copy or the new, never a part. With `replace:
 * false`, linked to a name that must be free; a file there is left as it is when it holds exactly
 * this copy (the same copy made again), and refused otherwise (EEXIST is thrown).
 */
export function writeCleanFile(
  target: Pick<FileToScan, 'path' | 'file' | 'identity'>,
  destination: string,
  tokens: TokenAllocator,
  {
    replace = true,
    known,
    found,
    scope,
    writtenIn,
    from,
  }: {
    replace?: boolean;
    /** Values found in the other files of the copy; without it, this file's own. */
    known?: KnownValues;
    /** What a first read found in the file, used when the text is still the one it read. */
    found?: { matches: Match[]; digest: string };
    /** Tokens of the file's own (`TokenAllocator.tokenFor`), for a file its reader may have only clean. */
    scope?: string;
    /** The file's name in the copy's folder (`redactText`). */
    writtenIn?: string;
    /** The file's name in the source folder (`redactText`). */
    from?: string;
  } = {},
): CleanFileOutcome {
  const read = readWholeText(target.path, target.identity);
  if ('skipped' in read) return read;
  const clean = redactText(
    read.text,
    target.file,
    cleanMatches(read.text, target.file, known, found),
    tokens,
    { scope, writtenIn, from },
  );
  const bytes = encodeText(clean.text, read.encoding);
  if (replace) writeFileAtomic(destination, bytes, read.mode);
  else {
    try {
      writeNewFileAtomic(destination, bytes, read.mode);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !holds(destination, bytes)) throw error;
    }
  }
  return { values: clean.replaced, bytes: read.bytes };
}

/**
 * The last part of a file's path in the source (`path`: a folder's or the file's name) as the copy
 * names it: the values found in it replaced as in a text (`contacts/jane@x.io/notes.txt` is copied
 * as `contacts/[EMAIL_1]/notes.txt`), each path looked at once per copy. Its tokens come from that
 * path, which putting them back reads.
 */
function cachedName(
  names: Map<string, string>,
  path: string,
  tokens: TokenAllocator,
  known: KnownValues,
): string {
  let clean = names.get(path);
  if (clean === undefined) {
    const part = path.slice(path.lastIndexOf('/') + 1);
    const matches = cleanCopyDetector().matches(part, '');
    clean = redactText(part, '', [...matches, ...known.elsewhere(part, matches)], tokens, {
      from: path,
    }).text;
    names.set(path, clean);
  }
  return clean;
}

/** The detector's matches in a file's text, and the places where a value found in the copy stands too. */
function cleanMatches(
  text: string,
  file: string,
  known: KnownValues | undefined,
  found: { matches: Match[]; digest: string } | undefined,
): Found[] {
  const matches =
    found && found.digest === digestOf(text) ? found.matches : cleanCopyDetector().matches(text, file);
  const values = known ?? new KnownValues();
  if (!known) values.add(text, matches);
  return [...matches, ...values.elsewhere(text, matches)];
}

const digestOf = (text: string) => createHash('sha256').update(text).digest('base64');

/** Whether `path` is a regular file (not a link) holding exactly `bytes`. */
function holds(path: string, bytes: Buffer): boolean {
  try {
    const stat = lstatSync(path);
    return stat.isFile() && stat.size === bytes.length && readFileSync(path).equals(bytes);
  } catch {
    return false;
  }
}

/**
 * Takes a folder for a copy of one file: made when missing, taken when empty or when svc's marker
 * says every file in it is a copy svc wrote; the file's name is added to the marker's list.
 */
function claimFolder(folder: string, name: string): void {
  checkFolder(folder);
  mkdirSync(folder, { recursive: true });
  markFolder(folder, [...new Set([...(copiedInto(folder) ?? []), name])]);
}

/**
 * Refuses a place for a copy that is a file, or a folder holding files svc did not put there: a
 * folder without svc's marker that is not empty, or one holding a file its marker does not list
 * (the person's own, put there since). A marker of an earlier version lists nothing: its folder is
 * taken as svc's.
 */
function checkFolder(folder: string): void {
  if (!existsSync(folder)) return;
  if (!statSync(folder).isDirectory()) {
    throw new ServiceError('invalid_request', `${folder} is a file: give a folder for the copy`);
  }
  const entries = readdirSync(folder);
  const foreign = `${folder} holds files svc did not put there, and the copy could write over them: give a new or empty folder for the copy (${OUT})`;
  if (entries.length > 0 && !entries.includes(CLEAN_COPY_MARKER))
    throw new ServiceError('invalid_request', foreign);
  const listed = copiedInto(folder);
  if (!listed) return;
  const ours = new Set([...listed, CLEAN_COPY_MARKER]);
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isDirectory()) continue;
    const file = relative(folder, join(entry.parentPath, entry.name)).split(sep).join('/');
    if (!ours.has(file) && !file.startsWith(STAGING_PREFIX))
      throw new ServiceError('invalid_request', foreign);
  }
}

const MARKER_TEXT = 'A clean copy made by svc redact: the values svc found are replaced by typed tokens.';

/** The files svc's marker in `folder` lists as copies it wrote; undefined without a list. */
function copiedInto(folder: string): string[] | undefined {
  try {
    const listed = (
      JSON.parse(readFileSync(join(folder, CLEAN_COPY_MARKER), 'utf8').split('\n')[1] ?? '') as {
        files?: unknown;
      }
    ).files;
    return Array.isArray(listed) ? listed.filter((f): f is string => typeof f === 'string') : undefined;
  } catch {
    return undefined;
  }
}

/** svc's marker: its line for a person, then the files it wrote there, for the next copy to check. */
function markFolder(folder: string, files: readonly string[]): void {
  writeFileAtomic(
    join(folder, CLEAN_COPY_MARKER),
    Buffer.from(`${MARKER_TEXT}\n${JSON.stringify({ files })}\n`),
    0o644,
  );
}

/** The names of the folders a copy is built in before it takes its place. */
const STAGING_PREFIX = '.svc-copy-';
/** A folder being built that is older than this was left by a copy that was stopped: removed. */
const STALE_STAGING_MS = 60 * 60 * 1000;

interface Staging {
  dir: string;
  /** Inside `out` (a read-only parent, or `out` a mount point) rather than beside it. */
  inside: boolean;
}

/**
 * Where a folder's copy is built before it takes `out`'s place: a new folder beside `out`; inside
 * `out` where none can be made beside it (a parent this user may not write) or `out` is a mount
 * point (which cannot be renamed). Folders of copies stopped earlier (older than an hour) are
 * removed on the way.
 */
function stagingFor(out: string): Staging {
  const parent = dirname(out);
  const name = `${STAGING_PREFIX}${randomBytes(6).toString('hex')}`;
  removeStale(parent, `.${basename(out)}${STAGING_PREFIX}`);
  if (existsSync(out)) removeStale(out, STAGING_PREFIX);
  const mounted = existsSync(out) && statSync(out).dev !== statSync(parent).dev;
  if (!mounted) {
    const beside = join(parent, `.${basename(out)}${name}`);
    try {
      mkdirSync(beside);
      return { dir: beside, inside: false };
    } catch (error) {
      if (!['EACCES', 'EPERM', 'EROFS'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    }
  }
  mkdirSync(out, { recursive: true });
  const inside = join(out, name);
  mkdirSync(inside);
  return { dir: inside, inside: true };
}

function removeStale(folder: string, prefix: string): void {
  try {
    for (const name of readdirSync(folder)) {
      if (!name.startsWith(prefix)) continue;
      const path = join(folder, name);
      if (Date.now() - lstatSync(path).mtimeMs > STALE_STAGING_MS)
        rmSync(path, { recursive: true, force: true });
    }
  } catch {
    // Nothing to clean, or not this user's to clean.
  }
}

/**
 * Puts the whole copy built in `staging` in the place of `out` (an earlier copy, or nothing). Beside
 * it: two renames in one folder, so `out` is the old copy or the new one, never a mix. Inside it:
 * the earlier copy's entries are removed and the new ones moved up, one by one.
 */
function replaceFolder(out: string, staging: Staging): void {
  if (staging.inside) {
    const building = basename(staging.dir);
    for (const name of readdirSync(out)) {
      if (name !== building) rmSync(join(out, name), { recursive: true, force: true });
    }
    for (const name of readdirSync(staging.dir)) renameSync(join(staging.dir, name), join(out, name));
    rmSync(staging.dir, { recursive: true, force: true });
    return;
  }
  if (!existsSync(out)) {
    renameSync(staging.dir, out);
    return;
  }
  const old = `${staging.dir}.old`;
  renameSync(out, old);
  try {
    renameSync(staging.dir, out);
  } catch (error) {
    renameSync(old, out);
    throw error;
  }
  rmSync(old, { recursive: true, force: true });
}

/**
 * The clean text of one file, in memory: for a tool the gate lets read a file only clean, and for
 * a partner's copy from an exposure. Nothing is written, and the mapping is not kept: only the
 * count of distinct values per token type comes back with the text.
 */
export function cleanTextOf(
  path: string,
):
  | { text: string; values: number; tokens_by_type: Record<string, number> }
  | { unavailable: string; reason: Skipped['reason'] } {
  const read = readWholeText(path);
  if ('skipped' in read) return { unavailable: UNAVAILABLE[read.skipped], reason: read.skipped };
  const name = basename(path);
  const tokens = new TokenAllocator();
  const clean = redactText(read.text, name, cleanMatches(read.text, name, undefined, undefined), tokens);
  return { text: clean.text, values: clean.replaced, tokens_by_type: tokens.tokensByType() };
}

/** What a hook can tell an agent about the clean copy of a file it may read only clean. */
export type AgentCleanCopy = { path: string; values: number } | { unavailable: string };

const UNAVAILABLE: Record<Skipped['reason'], string> = {
  binary: 'it is a binary file',
  too_large: 'it is larger than 100 MiB',
  changed: 'it changed while svc read it',
  sealed: 'it is sealed: the person opens it with svc open',
  unreadable: 'svc cannot read it',
  protected: 'it is protected',
};

/**
 * Makes the clean copy of one file for one agent in svc's clean-copies folder (the one folder of
 * the data dir an agent may read; src/gate/builtin.ts) and says where it is, so that a hook can
 * refuse the file and point at its copy. The copy's folder is named by a keyed hash of the asker
 * and the file's path: the same agent gets the same place again (the copy made anew each time, so
 * it follows the file), and nobody without the vault can work out another agent's copy's place.
 */
export function cleanCopyForAgent(
  ctx: Context,
  dataDir: string,
  source: string,
  asker: { client?: string | undefined; agent?: string | undefined },
): AgentCleanCopy {
  try {
    if (!statSync(source).isFile()) return { unavailable: 'it is not a file' };
  } catch {
    return { unavailable: 'it is not there' };
  }
  const key = deriveKey(ctx.vault.secret('data-columns'), {
    purpose: 'svc-clean-copy-place-v1',
    salt: 'svc',
  });
  const place = createHmac('sha256', key.export())
    .update(`${asker.client ?? ''}\u0000${asker.agent ?? ''}\u0000${source}`)
    .digest('hex')
    .slice(0, 32);
  const folder = ensurePrivateDir(join(ensurePrivateDir(cleanCopiesDir(dataDir)), place));
  const name = basename(source);
  const destination = join(folder, name);
  const outcome = writeCleanFile({ path: source, file: name }, destination, new TokenAllocator());
  return 'skipped' in outcome
    ? { unavailable: UNAVAILABLE[outcome.skipped] }
    : { path: destination, values: outcome.values };
}
