// Ignore files (`.gitignore` and the like) as git and ripgrep read them: each file's patterns are
// anchored at its folder, and the last pattern that matches decides, a deeper file's after its
// parents'. Shared by the scan's walk and the gate's model of a search tool's walk.
import { relative, sep } from 'node:path';
import type { Ignore } from 'ignore';

/** The patterns of one ignore file, matched against paths relative to its folder. */
export interface IgnoreRules {
  dir: string;
  matcher: Ignore;
  /** Whether it brings anything back (`!keep.env`): for ripgrep, that also shows a hidden name. */
  negates?: boolean;
}

/**
 * Whether the ignore files above `path` (outermost first) leave it out: a subfolder's
 * `!keep.env` brings back a file its parent's `*.env` left out. The matcher, as git, also leaves
 * out whatever is inside a folder it leaves out; `ownPath` asks what ripgrep's walk answers,
 * which judges each entry by its own path only (it goes into such a folder when it is told to,
 * the folder searched itself, or one a glob names). The matcher cannot judge by the own path
 * alone, so inside a folder any of the files leaves out, `ownPath` answers false: read.
 */
export function ignoredBy(
  stack: readonly IgnoreRules[],
  path: string,
  isDir: boolean,
  { ownPath = false }: { ownPath?: boolean } = {},
): boolean {
  let ignored = false;
  for (const rules of stack) {
    const rel = relative(rules.dir, path).split(sep).join('/');
    if (rel === '' || rel === '..' || rel.startsWith('../')) continue;
    if (ownPath && folderAboveIgnored(rules, rel)) return false;
    const verdict = rules.matcher.test(isDir ? `${rel}/` : rel);
    if (verdict.ignored) ignored = true;
    else if (verdict.unignored) ignored = false;
  }
  return ignored;
}

/** Whether `rules` leave out a folder on the way to `rel` (relative to their own folder). */
function folderAboveIgnored(rules: IgnoreRules, rel: string): boolean {
  for (let at = rel.indexOf('/'); at !== -1; at = rel.indexOf('/', at + 1)) {
    if (rules.matcher.test(rel.slice(0, at + 1)).ignored) return true;
  }
  return false;
}
