// Writing a file so that a reader sees the old one or the new, never a part: written beside its
// place under a name of its own, flushed to the disk, then renamed over the place.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Writes `data` to `destination` atomically, the new file created with `mode`. */
export function writeAtomically(destination: string, data: Uint8Array, mode: number): void {
  const temp = join(dirname(destination), `.${basename(destination)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', mode);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, destination);
}
