// The operating system's own folders, which svc never seals in place (docs/VAULT.md): a sealed
// file there is one the computer can no longer read, and the computer may stop working. The home
// folder and the temporary folders stay open even where they lie inside one (a home under /var,
// macOS's temporary folders under /var/folders).
import { realpathSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { within } from '../gate/resolve.ts';

/** Folders of the operating system: Linux's (the Filesystem Hierarchy Standard) and macOS's. */
const SYSTEM_FOLDERS = [
  '/bin',
  '/boot',
  '/dev',
  '/etc',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/proc',
  '/run',
  '/sbin',
  '/sys',
  '/usr',
  '/var',
  '/System',
  '/Library',
  '/private/etc',
  '/private/var',
];

/** Folders inside those that hold people's files, not the system's. */
const PEOPLES_FOLDERS = ['/var/tmp', '/var/folders', '/private/var/tmp', '/private/var/folders'];

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Where people's files may be although a system folder holds them: computed once per process. */
let open: string[] | undefined;
function openFolders(): string[] {
  if (open) return open;
  const given = [...PEOPLES_FOLDERS, homedir(), tmpdir()]
    .map((p) => resolve(p))
    // A home folder of `/` (some service accounts) would open everything: it opens nothing.
    .filter((p) => p !== sep);
  open = [...new Set([...given, ...given.map(realOrSame)])];
  return open;
}

/**
 * Where `path` stands, by its real place (`path`'s folders resolved through their links, so a link
 * to /etc counts as /etc): `system` inside a system folder, `above_open` a system folder that holds
 * a folder of people's files (walked into, its other entries refused), or null elsewhere.
 */
export function systemPlaceOf(realPath: string): 'system' | 'above_open' | null {
  const opens = openFolders();
  if (opens.some((folder) => within(realPath, folder))) return null;
  if (!SYSTEM_FOLDERS.some((folder) => within(realPath, folder))) return null;
  return opens.some((folder) => within(folder, realPath)) ? 'above_open' : 'system';
}

/** `path` with the links of its folders resolved (the last name kept as it is: it may be a link itself). */
export function realPlaceOf(path: string): string {
  const absolute = resolve(path);
  const parent = dirname(absolute);
  return parent === absolute ? absolute : join(realOrSame(parent), basename(absolute));
}
