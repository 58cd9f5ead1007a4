// Scanning files on this computer with the detection core (src/scan/detect.ts): which files a
// scan reads (a folder walked with its `.gitignore` files and a `.svcignore` honoured, binaries and
// oversized files skipped), and one file scanned in constant memory, however large: it is read in
// chunks that end at a line break, so a value is never cut in two and line numbers run on.
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  type Dirent,
  type BigIntStats,
} from 'node:fs';
import { execFile } from 'node:child_process';
import { join, relative, sep } from 'node:path';
import { isUtf8 } from 'node:buffer';
import ignore from 'ignore';
import { ignoredBy, type IgnoreRules } from '../gate/ignore-files.ts';
import { describe, type Detector, type Finding } from '../scan/detect.ts';
import { lineBreaks } from '../scan/keywords.ts';
import { hasSealedMagic } from '../vault/sealed-file.ts';

/** Files larger than this are not scanned (reported as skipped): 100 MiB. */
export const MAX_SCAN_FILE_BYTES = 100 * 1024 * 1024;
/** Files up to this size are read whole; larger ones in chunks of about this size. */
export const SCAN_CHUNK_BYTES = 1024 * 1024;
/** A line longer than this is cut where a chunk ends (a value across the cut can be missed). */
export const MAX_CARRIED_LINE_BYTES = 64 * 1024;
/** How much of a file's start is looked at to tell a binary file (one with a NUL byte) apart. */
const BINARY_PROBE_BYTES = 8 * 1024;
/** The files whose patterns a walk honours, in every folder it enters. */
export const IGNORE_FILES = ['.gitignore', '.svcignore'] as const;

export interface FileToScan {
  /** Absolute. */
  path: string;
  /** Relative to the scanned folder, with `/` between parts: what findings name. */
  file: string;
  bytes: number;
  /**
   * The file the walk found at `path` (device and inode): what is opened must still be it. A folder
   * on the way swapped for a link after the walk, and the gate, looked at it (while the person is
   * asked about held files, say) leads elsewhere, and is skipped as `changed`; so is a file saved
   * anew meanwhile (an editor's rename), which the person can scan again.
   */
  identity?: string;
  /**
   * The path as it was named, when it is a link `path` is where it leads to (a file named alone):
   * the gate judges this one, whose forms hold both, so a rule on the link's own path holds too.
   */
  named?: string;
}

/** A file's identity, as FileToScan keeps it: exact, as inode numbers may pass 2^53. */
export const identityOf = (stat: { dev: bigint; ino: bigint }) => `${stat.dev}:${stat.ino}`;

/** Why a file the walk found could not be opened: gone, or a link now, is `changed`. */
const openFailure = (error: unknown, found: boolean): Skipped['reason'] =>
  found && ['ENOENT', 'ELOOP', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')
    ? 'changed'
    : 'unreadable';

/**
 * The read gate's word on one file of an agent's walk (a scan, a clean copy): read it (`true`),
 * read it for its clean copy only (`'clean'`: never scanned, and copied sharing nothing with the
 * copy's other files), leave it out as `protected` (`false`), or hold it until the walk's end
 * (`'ask'`: a rule asks the person first), when the person is asked once about every file held
 * (`ConfirmHeld`); `'ask-clean'` is held the same way, and after a yes read for its clean copy only
 * (a rule that lets out only a clean copy covers it too).
 */
export type Admit = (path: string) => Promise<boolean | 'ask' | 'clean' | 'ask-clean'>;

/**
 * Asks the person once, after a walk, whether the files `ask` rules held (names as the walk gives
 * them) may be read too: yes reads them all; anything else leaves them `protected`.
 */
export type ConfirmHeld = (files: readonly string[]) => Promise<boolean>;

export interface Skipped {
  file: string;
  /** `protected`: the read gate does not let the asker read it (an agent's scan). */
  /**
   * `changed`: the file the walk found is not what its path leads to any more (replaced, removed,
   * or reached through a link since): what is there now was never judged, so it is not read.
   */
  /** `sealed`: a file sealed in place (`svc protect`): its content is ciphertext, opened only through the gate. */
  reason: 'binary' | 'too_large' | 'unreadable' | 'protected' | 'changed' | 'sealed';
}

const IGNORE_CASE = process.platform === 'darwin' || process.platform === 'win32';

/** The rules of one ignore file, matched against paths relative to its folder. */
interface Rules extends IgnoreRules {
  /** `.svcignore`: the owner leaves these out of svc's reading, tracked by git or not. */
  svc: boolean;
}

/** The rules of the ignore files among a folder's entries. */
function rulesOf(dir: string, names: ReadonlySet<string>): Rules[] {
  const rules: Rules[] = [];
  for (const name of IGNORE_FILES) {
    if (!names.has(name)) continue;
    try {
      // As git matches them: by case only where the file system ignores case (its core.ignorecase).
      const matcher = ignore({ ignorecase: IGNORE_CASE }).add(readFileSync(join(dir, name), 'utf8'));
      rules.push({ dir, matcher, svc: name === '.svcignore' });
    } catch {
      // Unreadable: nothing to honour from it.
    }
  }
  return rules;
}

/**
 * Files git tracks under `root` that its ignore files name: ignore rules keep untracked files out of
 * a repository, never tracked ones, so a `.env` committed before it was ignored is still in every
 * clone, and is read. Relative to `root`, with the folders that hold them; none when `root` is not
 * in a work tree of git, or git is not installed.
 */
function trackedButIgnored(root: string): Promise<{ files: Set<string>; folders: Set<string> }> {
  return new Promise((resolve) => {
    execFile(
      'git',
      // The folder may be anyone's, and so may its `.git/config`: git runs a `core.fsmonitor`
      // command it names, so that is turned off; ls-files runs no hook, filter or other command.
      ['-c', 'core.fsmonitor=false', 'ls-files', '-z', '--cached', '--ignored', '--exclude-standard'],
      {
        cwd: root,
        maxBuffer: 64 * 1024 * 1024,
        timeout: 30_000,
        encoding: 'utf8',
        env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' },
      },
      (error, stdout) => {
        const files = new Set(error ? [] : stdout.split('\0').filter(Boolean));
        const folders = new Set<string>();
        for (const file of files) {
          for (let at = file.indexOf('/'); at !== -1; at = file.indexOf('/', at + 1))
            folders.add(file.slice(0, at));
        }
        resolve({ files, folders });
      },
    );
  });
}

/** A folder's entries, sorted by name, and the rules of its own ignore files; undefined if unreadable. */
function listing(dir: string): { entries: Dirent[]; own: Rules[] } | undefined {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const own = rulesOf(dir, new Set(entries.map((e) => e.name)));
  return { entries, own };
}

/**
 * How long the walk reads before it lets the event loop turn, in milliseconds. It reads the file
 * system with synchronous calls, a few microseconds each on a warm cache: each promise of the
 * asynchronous ones cost the main thread about ten, and a thread of the runtime's pool besides, a
 * tenth of a folder scan's time on two cores. Between turns the threads' answers are handled and
 * their next batches sent; bounded in time, not entries, so a slow disk holds the loop no longer.
 */
const WALK_TURN_MS = 2;

/**
 * The files of `root` a scan reads, in a stable order: folders and files the ignore files name
 * are left out (with their patterns anchored where each file lies, as git does), `.git` always
 * but for its `config` when `gitConfig` is asked (a scan reads it), and symbolic links are not
 * followed (what they lead to is scanned where it lies, if inside). Files it cannot scan are
 * handed to `skip`.
 */
export async function* filesToScan(
  root: string,
  skip: (skipped: Skipped) => void = () => {},
  { gitConfig = false }: { gitConfig?: boolean } = {},
): AsyncGenerator<FileToScan> {
  // `repo`: the folder git is asked in for an entry, the nearest one up holding `.git` (a scanned
  // folder may hold several repositories), or the root (which may be inside one).
  const pending: { dir: string; stack: Rules[]; repo: string }[] = [{ dir: root, stack: [], repo: root }];
  // Each repository is asked once, and only when the walk meets something its ignore files leave
  // out: most walks never do.
  const tracked = new Map<string, ReturnType<typeof trackedButIgnored>>();
  /** Whether an entry the ignore files leave out is read anyway: git tracks it (or, for a folder, files in it). */
  const stillRead = async (stack: readonly Rules[], path: string, isDir: boolean, repo: string) => {
    const svcRules = stack.filter((rules) => rules.svc);
    if (ignoredBy(svcRules, path, isDir)) return false;
    if (!tracked.has(repo)) tracked.set(repo, trackedButIgnored(repo));
    const { files, folders } = await tracked.get(repo)!;
    const rel = relative(repo, path).split(sep).join('/');
    return isDir ? folders.has(rel) : files.has(rel);
  };
  let turned = performance.now();
  const turn = async () => {
    if (performance.now() - turned < WALK_TURN_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    turned = performance.now();
  };
  for (let head = 0; head < pending.length; head++) {
    const { dir, stack: above, repo: outer } = pending[head]!;
    // Walked folders are let go: a large tree's folders are not all held to its end.
    pending[head] = { dir, stack: [], repo: outer };
    await turn();
    const list = listing(dir);
    if (!list) {
      skip({ file: relative(root, dir).split(sep).join('/') || '.', reason: 'unreadable' });
      continue;
    }
    const { entries, own } = list;
    const stack = own.length > 0 ? [...above, ...own] : above;
    const repo = entries.some((e) => e.name === '.git') ? dir : outer;
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name === '.git') {
          // A repository's own settings: a remote's URL may hold a token (`https://ghp_…@github.com/…`).
          // The rest of `.git` is history and objects, never read.
          if (gitConfig) {
            const config = join(path, 'config');
            const stat = lstatSync(config, { bigint: true, throwIfNoEntry: false });
            if (stat?.isFile() && stat.size <= MAX_SCAN_FILE_BYTES) {
              const file = relative(root, config).split(sep).join('/');
              yield { path: config, file, bytes: Number(stat.size), identity: identityOf(stat) };
            }
          }
          continue;
        }
        if (ignoredBy(stack, path, true) && !(await stillRead(stack, path, true, repo))) continue;
        pending.push({ dir: path, stack, repo });
        continue;
      }
      if (!entry.isFile()) continue;
      if (ignoredBy(stack, path, false) && !(await stillRead(stack, path, false, repo))) continue;
      await turn();
      const file = relative(root, path).split(sep).join('/');
      let stat: BigIntStats | undefined;
      try {
        stat = lstatSync(path, { bigint: true, throwIfNoEntry: false });
      } catch {
        stat = undefined;
      }
      if (stat === undefined) skip({ file, reason: 'unreadable' });
      else if (stat.size > MAX_SCAN_FILE_BYTES) skip({ file, reason: 'too_large' });
      else yield { path, file, bytes: Number(stat.size), identity: identityOf(stat) };
    }
  }
}

/**
 * Scans a UTF-16 file whole (up to the size cap): chunks cut at a line break's byte would split its
 * characters, and such files are small in practice. Lines and columns count as in any text.
 */
function scanUtf16(
  fd: number,
  size: number,
  encoding: 'utf16le' | 'utf16be',
  file: string,
  detector: Detector,
  fingerprint: (type: string, value: string) => string,
): ScanOutcome {
  const bytes = readAll(fd, size);
  // The byte order mark is not part of the text: columns on the first line count from after it.
  const text = decodeUtf16(bytes.subarray(2), encoding);
  if (text === undefined) return { skipped: 'binary' };
  return { findings: describe(text, detector.matches(text, file), fingerprint), bytes: bytes.length };
}

/** A file's bytes from its start, up to `size` (fewer when it shrank since its size was read). */
function readAll(fd: number, size: number): Buffer {
  const buffer = Buffer.alloc(size);
  let read = 0;
  while (read < size) {
    const got = readSync(fd, buffer, read, size - read, read);
    if (got === 0) break;
    read += got;
  }
  return buffer.subarray(0, read);
}

/** How far back from a chunk's end a key block that is still open is looked for: a PEM block's reach. */
const OPEN_BLOCK_REACH = 70 * 1024;
const BLOCK_STARTS = [Buffer.from('-----BEGIN '), Buffer.from('PuTTY-User-Key-File-')];
const BLOCK_END = Buffer.from('-----END ');
const PUTTY_END = Buffer.from('Private-MAC:');

/**
 * Where the line starts that opens a key block (a PEM block, a PuTTY key) whose end is not in
 * `buffer[0, filled)`: a piece that ended inside it would cut it in two, and neither part is a key.
 * Undefined when there is none, or it starts the buffer (a block longer than a chunk is no key).
 */
function openBlockStart(buffer: Buffer, filled: number): number | undefined {
  const from = Math.max(0, filled - OPEN_BLOCK_REACH);
  const tail = buffer.subarray(from, filled);
  let latest = -1;
  let end = BLOCK_END;
  for (const [i, start] of BLOCK_STARTS.entries()) {
    const found = tail.lastIndexOf(start);
    if (found !== -1 && from + found > latest) {
      latest = from + found;
      end = i === 0 ? BLOCK_END : PUTTY_END;
    }
  }
  if (latest <= 0) return undefined;
  const window = buffer.subarray(latest + 1, filled);
  if (window.includes(end)) return undefined;
  const line = buffer.lastIndexOf(10, latest) + 1;
  // Carried bytes and the next chunk must fit the read buffer: a block on a line that began far
  // back is not carried (its lines are cut where chunks end, as any long line's).
  return line > 0 && filled - line <= OPEN_BLOCK_REACH ? line : undefined;
}

/**
 * How a scan opens a file the walk found: not through a link (a file swapped for a link to another
 * after the walk, and the gate, looked at it), and without waiting (a file swapped for a named pipe
 * would hold a thread until something wrote to it); what opens must then be a regular file.
 */
const OPEN_FOUND_FILE = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
/** How a file named on purpose is opened: through a link, if it is one, but never waiting. */
const OPEN_NAMED_FILE = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * The read buffer, one per thread and reused by every file it scans (scanFile runs start to end
 * without yielding): a folder of thousands of small files allocated and zeroed 2 MiB for each.
 * Only the bytes just read are ever looked at, so it needs no zeroing.
 */
let readBuffer: Buffer | undefined;

/** Where the last character that starts before `end` starts: a cut there splits no character. */
function characterStart(buffer: Buffer, end: number): number {
  let at = end;
  // Continuation bytes are 10xxxxxx; a character is at most 4 bytes long.
  while (at > end - 3 && at > 0 && (buffer[at - 1]! & 0xc0) === 0x80) at--;
  const lead = buffer[at - 1];
  if (lead === undefined || lead < 0xc0) return end;
  // `at - 1` holds a lead byte: whole if its continuation bytes all arrived.
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
  return end - (at - 1) >= length ? end : at - 1;
}

/** A text file read whole: its text, and how it was decoded (to write it back the same way). */
/** How a text file's bytes are read, and written back (encodeText). */
export type TextEncoding = 'utf8' | 'latin1' | 'utf16le' | 'utf16be';

export type WholeText =
  { text: string; encoding: TextEncoding; bytes: number; mode: number } | { skipped: Skipped['reason'] };

/**
 * A file that starts with a UTF-16 byte order mark (`FF FE`, `FE FF`): what Windows tools write
 * (PowerShell 5's `>` and `Out-File`, registry exports). Its NUL bytes are its text's, not a
 * binary's. Undefined for any other start.
 */
export function utf16Of(start: Uint8Array): 'utf16le' | 'utf16be' | undefined {
  // `FF FE 00 00` is UTF-32's mark, little end first: not UTF-16 (and read as a binary).
  if (start[0] === 0xff && start[1] === 0xfe && !(start[2] === 0 && start[3] === 0)) return 'utf16le';
  if (start[0] === 0xfe && start[1] === 0xff) return 'utf16be';
  return undefined;
}

/**
 * The text of a UTF-16 file, its byte order mark kept (as a UTF-8 file's is), so writing it back
 * restores it; undefined when the bytes are not UTF-16 text after all (a binary that starts with
 * `FF FE`): a lone surrogate, or a NUL character, which text does not hold.
 */
function decodeUtf16(bytes: Uint8Array, encoding: 'utf16le' | 'utf16be'): string | undefined {
  if (bytes.length % 2 !== 0) return undefined;
  let text: string;
  try {
    const decoder = new TextDecoder(encoding === 'utf16le' ? 'utf-16le' : 'utf-16be', {
      ignoreBOM: true,
      fatal: true,
    });
    text = decoder.decode(bytes);
  } catch {
    return undefined;
  }
  return text.includes('\u0000') ? undefined : text;
}

/** The bytes of `text` in the encoding it was read in. */
export function encodeText(text: string, encoding: TextEncoding): Buffer {
  if (encoding === 'utf16be') return Buffer.from(text, 'utf16le').swap16();
  return Buffer.from(text, encoding);
}

/**
 * Reads a text file whole, up to MAX_SCAN_FILE_BYTES, for what needs all of it at once (a clean
 * copy reads a YAML or JSON file's structure from its start). UTF-8, a byte order mark kept; a
 * file that is not valid UTF-8 is read as Latin-1, byte for byte, so that writing the text back
 * the same way changes no byte that was not replaced.
 */
export function readWholeText(path: string, identity?: string): WholeText {
  let fd: number;
  try {
    // A path named on purpose may be a link; a file a walk found (with its identity) is opened as
    // a scan opens it, never through one. A named pipe is never waited on.
    fd = openSync(path, identity === undefined ? OPEN_NAMED_FILE : OPEN_FOUND_FILE);
  } catch (error) {
    return { skipped: openFailure(error, identity !== undefined) };
  }
  try {
    const stat = fstatSync(fd, { bigint: true });
    if (identity !== undefined && identityOf(stat) !== identity) return { skipped: 'changed' };
    if (!stat.isFile()) return { skipped: 'unreadable' };
    const size = Number(stat.size);
    const mode = Number(stat.mode);
    if (size > MAX_SCAN_FILE_BYTES) return { skipped: 'too_large' };
    const probe = Buffer.allocUnsafe(BINARY_PROBE_BYTES);
    const probed = readSync(fd, probe, 0, BINARY_PROBE_BYTES, 0);
    const utf16 = utf16Of(probe.subarray(0, probed));
    if (hasSealedMagic(probe.subarray(0, probed))) return { skipped: 'sealed' };
    if (!utf16 && probe.subarray(0, probed).includes(0)) return { skipped: 'binary' };
    const bytes = readAll(fd, size);
    const read = bytes.length;
    if (utf16) {
      const text = decodeUtf16(bytes, utf16);
      return text === undefined
        ? { skipped: 'binary' }
        : { text, encoding: utf16, bytes: read, mode: mode & 0o777 };
    }
    try {
      const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
      return { text, encoding: 'utf8', bytes: read, mode: mode & 0o777 };
    } catch {
      return { text: bytes.toString('latin1'), encoding: 'latin1', bytes: read, mode: mode & 0o777 };
    }
  } finally {
    closeSync(fd);
  }
}

export type ScanOutcome = { findings: Finding[]; bytes: number } | { skipped: Skipped['reason'] };

/**
 * Scans one file. A file up to SCAN_CHUNK_BYTES is read whole; a larger one chunk by chunk, each
 * chunk ending after its last line break (the rest carried into the next, up to
 * MAX_CARRIED_LINE_BYTES), so memory stays about two chunks whatever the file's size.
 */
export function scanFile(
  target: Pick<FileToScan, 'path' | 'file' | 'identity'>,
  detector: Detector,
  fingerprint: (type: string, value: string) => string,
): ScanOutcome {
  let fd: number;
  try {
    fd = openSync(target.path, OPEN_FOUND_FILE);
  } catch (error) {
    return { skipped: openFailure(error, target.identity !== undefined) };
  }
  try {
    readBuffer ??= Buffer.allocUnsafe(2 * SCAN_CHUNK_BYTES);
    const buffer = readBuffer;
    const findings: Finding[] = [];
    // For bytes that are not UTF-8 alone. Every piece ends after a whole character, so none is
    // carried from one piece to the next; the byte order mark is dropped here, at the file's start.
    const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
    // The carried bytes (a line's start, never more than a chunk) sit at the buffer's start and the
    // next chunk is read after them: each piece is decoded once into one string, with no joined copy.
    let carried = 0;
    let linesBefore = 0;
    /** Characters of the current line already scanned, when a piece ended inside a line. */
    let columnsBefore = 0;
    let bytes = 0;
    let position = 0;
    /** The file's first line, for the pieces after the first (a table's header). */
    let header: string | undefined;
    /** The piece before and its line breaks, added to the lines before the next piece. */
    let previous: { text: string; breaks: number } | undefined;
    /** Whether the file's first bytes were read: its byte order mark, if any, is not in its text. */
    let started = false;
    /** Decodes a piece of whole characters and scans it, its bytes given to the keyword search when they are the text's. */
    const scanBytes = (piece: Buffer, last: boolean) => {
      const bytes =
        !started && piece[0] === 0xef && piece[1] === 0xbb && piece[2] === 0xbf ? piece.subarray(3) : piece;
      started = true;
      // Valid UTF-8, nearly every file, is decoded by the runtime's own routine, twice the speed of
      // a TextDecoder's. Bytes that are not UTF-8 decode as U+FFFD, whose offsets their bytes do
      // not give. No byte but a line break decodes to one; the last piece's are never needed.
      const valid = isUtf8(bytes);
      const text = valid ? bytes.toString('utf8') : decoder.decode(bytes);
      scanText(text, valid ? bytes : undefined, last ? 0 : lineBreaks(piece));
    };
    const scanText = (text: string, utf8: Uint8Array | undefined, breaks: number) => {
      if (previous !== undefined) {
        const before = previous.text;
        if (header === undefined) {
          const first = before.indexOf('\n');
          header = before.slice(0, first === -1 ? before.length : first);
        }
        const last = before.lastIndexOf('\n');
        linesBefore += previous.breaks;
        columnsBefore = last === -1 ? columnsBefore + before.length : before.length - last - 1;
      }
      previous = { text, breaks };
      const matches = detector.matches(text, target.file, header, utf8);
      for (const finding of describe(text, matches, fingerprint)) {
        const first = finding.line === 1;
        findings.push({
          ...finding,
          line: finding.line + linesBefore,
          column: first ? finding.column + columnsBefore : finding.column,
        });
      }
    };
    const stat = fstatSync(fd, { bigint: true });
    if (target.identity !== undefined && identityOf(stat) !== target.identity) return { skipped: 'changed' };
    if (!stat.isFile()) return { skipped: 'unreadable' };
    const size = Number(stat.size);
    for (;;) {
      let read: number;
      try {
        read = readSync(fd, buffer, carried, SCAN_CHUNK_BYTES, position);
      } catch (error) {
        // A file that opens but cannot be read (EIO, a kernel file that refuses reads): this file
        // is not scanned, and the scan goes on. A fault of svc's own (a read past its buffer) is not.
        if (error instanceof RangeError) throw error;
        return { skipped: 'unreadable' };
      }
      // The first read tells a binary file (a NUL byte in its start) apart: no read of its own. A
      // UTF-16 file has NUL bytes too, and its byte order mark says so: it is read whole instead.
      if (position === 0) {
        const utf16 = utf16Of(buffer.subarray(0, read));
        if (utf16) return scanUtf16(fd, size, utf16, target.file, detector, fingerprint);
        // A sealed file says so: not "binary", which would leave the person wondering.
        if (hasSealedMagic(buffer.subarray(0, read))) return { skipped: 'sealed' };
        if (buffer.subarray(0, Math.min(read, BINARY_PROBE_BYTES)).includes(0)) return { skipped: 'binary' };
      }
      position += read;
      bytes += read;
      const filled = carried + read;
      // A file read to the size it had when opened is scanned to its end at once: a small file in
      // one piece, with no second read to learn that it ended.
      if (read === 0 || position >= size) {
        // The last piece: bytes of a character the file never finished decode as U+FFFD.
        if (filled > 0) scanBytes(buffer.subarray(0, filled), true);
        break;
      }
      // A line break's byte (0x0A) is never part of another character in UTF-8. A key block still
      // open at the chunk's end is carried whole into the next piece, as its rule reads it whole.
      const cut = openBlockStart(buffer, filled) ?? buffer.lastIndexOf(10, filled - 1) + 1;
      // A line that never ends is scanned in pieces rather than held whole.
      const keep = cut === 0 && filled > MAX_CARRIED_LINE_BYTES ? characterStart(buffer, filled) : cut;
      if (keep > 0) scanBytes(buffer.subarray(0, keep), false);
      buffer.copy(buffer, 0, keep, filled);
      carried = filled - keep;
    }
    return { findings, bytes };
  } finally {
    closeSync(fd);
  }
}
