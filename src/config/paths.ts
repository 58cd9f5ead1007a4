// Where svc keeps its data (SVC_HOME when set, else the per-user data dir of this OS; data-dir.ts),
// and the file modes that keep it private: keys and the store live there.
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';

import { basename, dirname, join } from 'node:path';

export { resolveDataDir } from './data-dir.ts';

/** Group and other bits: none of them may be set on what svc keeps. */
const SHARED_BITS = 0o077;

/**
 * Creates a directory if needed, private to this user (0700). One that already exists with wider
 * modes (a data dir made by hand, say 0755) is tightened, not adopted as it is.
 */
export function ensurePrivateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (statSync(dir).mode & SHARED_BITS) chmodSync(dir, 0o700);
  return dir;
}

/** Creates the data dir if needed and keeps it private to this user (see ensurePrivateDir). */
export function ensureDataDir(dir: string): string {
  return ensurePrivateDir(dir);
}

/**
 * Makes `file` private to this user (0600): created empty when `create` and absent, tightened
 * when it exists with wider modes, left alone when absent and not to be created.
 */
export function ensurePrivateFile(file: string, { create }: { create: boolean }): void {
  let fd: number;
  try {
    fd = openSync(file, create ? 'a' : 'r', 0o600);
  } catch (error) {
    if (!create && (error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    if (fstatSync(fd).mode & SHARED_BITS) fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

/** The longest name of a file most file systems allow, in bytes (ext4, XFS, APFS, NTFS in UTF-16 units). */
const MAX_NAME_BYTES = 255;

/**
 * Writes a whole file so that a reader, or a crash, sees the old file or the new one, never a
 * part: written beside it, flushed to disk, then renamed over it. A failure leaves nothing behind.
 */
export function writeFileAtomic(file: string, data: string | Uint8Array, mode = 0o644): void {
  writeWhole(file, data, mode, (temp) => renameSync(temp, file));
}

/**
 * Writes a new file as writeFileAtomic does, but never over one that exists, even one made while it
 * was written: the flushed file is linked to its name (link(2) refuses a name that exists, and the
 * error, EEXIST, is thrown), then its temporary name is removed.
 */
export function writeNewFileAtomic(file: string, data: string | Uint8Array, mode = 0o644): void {
  writeWhole(file, data, mode, (temp) => {
    linkSync(temp, file);
    rmSync(temp, { force: true });
  });
}

function writeWhole(
  file: string,
  data: string | Uint8Array,
  mode: number,
  place: (temp: string) => void,
): void {
  // A hidden name of its own beside the file: a folder walk or a glob passes over it. The file's name
  // is in it while it fits: a name near the 255 bytes a file system allows would not take the 18
  // more, and the write of a file that may exist would fail.
  const name = basename(file);
  const tag = `${randomBytes(6).toString('hex')}.tmp`;
  const temp = join(
    dirname(file),
    Buffer.byteLength(name) + tag.length + 2 <= MAX_NAME_BYTES ? `.${name}.${tag}` : `.svc-${tag}`,
  );
  const fd = openSync(temp, 'wx', mode);
  try {
    try {
      writeFileSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    place(temp);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
