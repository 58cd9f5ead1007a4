// Path patterns, gitignore-style (the `ignore` library's reading of .gitignore), with three
// anchors: `~/…` is under the home directory, `/…` is an absolute path on this machine, and
// anything else is relative to the project root (a pattern without a slash matches a name at any
// depth, `./name` only at the root). `!` negates; in a rule's list the last pattern that matches
// a path decides, as in a .gitignore file. Paths given to `matches` are absolute and already
// resolved (`..` and symlinks; see resolve.ts): patterns are never matched against raw input.
import { isAbsolute, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** Where a rule's patterns are anchored for one evaluation. */
export interface Anchors {
  projectRoot: string;
  home: string;
}

interface CompiledPattern {
  negated: boolean;
  /** 'fs': matched against the path from the file-system root; 'project': from the project root. */
  base: 'fs' | 'project';
  matcher: Ignore;
}

/** A rule's path list, compiled once per set of anchors. */
export class PathPattern {
  private readonly patterns: CompiledPattern[];
  private readonly projectRoot: string;

  constructor(patterns: readonly string[], anchors: Anchors) {
    this.projectRoot = anchors.projectRoot;
    this.patterns = patterns.map((raw) => {
      const negated = raw.startsWith('!');
      const pattern = negated ? raw.slice(1) : raw;
      if (pattern.startsWith('~/')) {
        return {
          negated,
          base: 'fs',
          matcher: ignore().add(fsAnchored(`${anchors.home}/${pattern.slice(2)}`)),
        };
      }
      if (pattern === '~') return { negated, base: 'fs', matcher: ignore().add(fsAnchored(anchors.home)) };
      if (isAbsolute(pattern)) return { negated, base: 'fs', matcher: ignore().add(fsAnchored(pattern)) };
      // `./name` is anchored at the project root, as `/name` is in a .gitignore file.
      const projectPattern = pattern.startsWith('./') ? `/${pattern.slice(2)}` : pattern;
      return { negated, base: 'project', matcher: ignore().add(projectPattern) };
    });
  }

  /** Whether `path` (absolute, resolved) is covered: the last pattern that matches it decides. */
  matches(path: string): boolean {
    let covered = false;
    let fromRoot: string | undefined;
    let fromProject: string | null | undefined;
    for (const { negated, base, matcher } of this.patterns) {
      // A negation can only change the answer for a path some earlier pattern covered, and a
      // plain pattern only one not covered yet.
      if (negated !== covered) continue;
      let candidate: string | null;
      if (base === 'fs') candidate = fromRoot ??= toPosix(path.slice(1));
      else
        candidate =
          fromProject === undefined ? (fromProject = projectRelative(this.projectRoot, path)) : fromProject;
      if (candidate && matcher.ignores(candidate)) covered = !negated;
    }
    return covered;
  }
}

/** An absolute pattern as a .gitignore line anchored at the file-system root. */
function fsAnchored(absolute: string): string {
  const posix = toPosix(absolute).replace(/\/{2,}$/, '/');
  return posix.startsWith('/') ? posix : `/${posix}`;
}

/** The path from the project root, or null when it lies outside the project (or is the root itself). */
function projectRelative(root: string, path: string): string | null {
  const rel = relative(root, path);
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) return null;
  return toPosix(rel);
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}
