// Paths as the gate matches them. An agent names a file as it likes (relative, with `..`, through a
// symlink); the gate decides on what the name reaches: the absolute path with `..` resolved, and
// the real path behind any symlink, so that neither form can be used to get around a rule.
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';

/**
 * The forms of `path` the gate checks: the absolute path (`~/` expanded, `..` resolved against
 * `cwd`) and, when it differs, the real path (symlinks followed). For a path that does not exist
 * yet (a file about to be written), the nearest existing folder is resolved and the rest joined.
 */
export function pathForms(path: string, { cwd, home }: { cwd: string; home: string }): string[] {
  const expanded = path === '~' ? home : path.startsWith('~/') ? join(home, path.slice(2)) : path;
  const absolute = isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
  const real = realOf(absolute);
  return real === absolute ? [absolute] : [absolute, real];
}

function realOf(absolute: string): string {
  const rest: string[] = [];
  for (let at = absolute; ; at = dirname(at)) {
    try {
      return join(realpathSync.native(at), ...rest.reverse());
    } catch {
      // Not there (yet), or not readable: resolve its folder instead.
      if (dirname(at) === at) return absolute;
      rest.push(basename(at));
    }
  }
}
