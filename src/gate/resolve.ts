// Paths as the gate matches them. An agent names a file as it likes (relative, with `..`, through a
// symlink); the gate decides on what the name reaches: the absolute path with `..` resolved, and
// the real path behind any symlink, so that neither form can be used to get around a rule.
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';

/**
 * The agent's own process as `/proc` names it from inside (`self`, `thread-self`, and a thread of
 * it: `/proc/self/task/TID`): its working folder, and its root. The gate runs in another process,
 * where these lead elsewhere or nowhere.
 */
const OWN_WORKING_FOLDER = /^\/proc\/(?:self|thread-self)(?:\/task\/\d+)?\/cwd(?=\/|$)/;
const OWN_ROOT = /^\/proc\/(?:self|thread-self)(?:\/task\/\d+)?\/root(?=\/|$)/;

/**
 * The forms of `path` the gate checks: the absolute path (`~/` expanded, `..` resolved against
 * `cwd`) and, when it differs, the real path (symlinks followed). For a path that does not exist
 * yet (a file about to be written), the nearest existing folder is resolved and the rest joined.
 */
export function pathForms(path: string, { cwd, home }: { cwd: string; home: string }): string[] {
  const tilde = path === '~' ? home : path.startsWith('~/') ? `${home}/${path.slice(2)}` : path;
  // `/proc/self/cwd` is the working folder of the process that opens it: the agent's, not the gate's.
  const expanded = tilde.replace(OWN_WORKING_FOLDER, cwd).replace(OWN_ROOT, '') || '/';
  const absolute = isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
  // The real path comes from the name as written, `..` included: the system follows a symlink
  // before it goes up from it (`link/..` is the folder above where the link leads), which
  // resolving `..` as text first would not see.
  const real = realOf(isAbsolute(expanded) ? expanded : `${cwd}/${expanded}`, absolute);
  return real === absolute ? [absolute] : [absolute, real];
}

/** Whether `path` is `folder` or inside it: both absolute and in the same form (both real, say). */
export function within(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/**
 * `path` with every symbolic link and `..` resolved as the system resolves them, as far as it
 * exists: the rest, not there yet, joined as written.
 */
export function realPath(path: string): string {
  return realOf(path, resolve(path));
}

/**
 * A path the system reaches but cannot say where (a real path longer than PATH_MAX behind a
 * short link, a loop of links, a folder it may not list on the way): the gate cannot tell which
 * file it is, so its caller refuses.
 */
export class UnresolvablePath extends Error {}

function realOf(written: string, absolute: string): string {
  const rest: string[] = [];
  for (let at = written; ; at = dirname(at)) {
    try {
      return join(realpathSync.native(at), ...rest.reverse());
    } catch (error) {
      // Not there yet (a file about to be written): resolve its folder instead.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        throw new UnresolvablePath(
          `${written} cannot be resolved (${code ?? 'error'}): the gate cannot tell which file it is`,
        );
      }
      if (dirname(at) === at) return absolute;
      rest.push(basename(at));
    }
  }
}
