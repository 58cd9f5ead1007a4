// Ignore files (`.gitignore` and the like) as git and ripgrep read them: each file's patterns are
// anchored at its folder, and the last pattern that matches decides, a deeper file's after its
// parents'. Shared by the scan's walk and the gate's model of a search tool's walk.
import { relative, sep } from 'node:path';
import type { Ignore } from 'ignore';

/** The patterns of one ignore file, matched against paths relative to its folder. */
export interface IgnoreRules {
  dir: string;
  matcher: Ignore;
}

/**
 * Whether the ignore files above `path` (outermost first) leave it out: a subfolder's
 * `!keep.env` brings back a file its parent's `*.env` left out.
 */
export function ignoredBy(stack: readonly IgnoreRules[], path: string, isDir: boolean): boolean {
  let ignored = false;
  for (const rules of stack) {
    const rel = relative(rules.dir, path).split(sep).join('/');
    if (rel === '' || rel.startsWith('../')) continue;
    const verdict = rules.matcher.test(isDir ? `${rel}/` : rel);
    if (verdict.ignored) ignored = true;
    else if (verdict.unignored) ignored = false;
  }
  return ignored;
}
