// Path patterns, gitignore-style (the `ignore` library's reading of .gitignore), with three
// anchors: `~/…` is under the home directory, `/…` is an absolute path on this machine, and
// anything else is relative to the project root (a pattern without a slash matches a name at any
// depth, `./name` only at the root). `!` negates; in a rule's list the last pattern that matches
// a path decides, as in a .gitignore file. Paths given to `matches` are absolute and already
// resolved (`..` and symlinks; see resolve.ts): patterns are never matched against raw input.
import { isAbsolute, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { realPath } from './resolve.ts';

/** Where a rule's patterns are anchored for one evaluation. */
export interface Anchors {
  projectRoot: string;
  home: string;
}

interface CompiledPattern {
  negated: boolean;
  /**
   * Text every path the pattern matches contains (lower case, as matching ignores case), so most
   * patterns are passed over without running the matcher; undefined when there is none to rely on.
   */
  literal: string | undefined;
  /** 'fs': matched against the path from the file-system root; 'project': from the project root. */
  base: 'fs' | 'project';
  /** The .gitignore line the matcher is made from. */
  line: string;
  /**
   * Made the first time a path gets past `literal`: making one costs more than most decisions
   * (a hook process makes them anew for every tool call), and most patterns are never run.
   */
  matcher?: Ignore;
}

/** A rule's path list, compiled once per set of anchors. */
export class PathPattern {
  private readonly patterns: CompiledPattern[];
  private readonly projectRoot: string;

  constructor(patterns: readonly string[], anchors: Anchors) {
    this.projectRoot = anchors.projectRoot;
    this.patterns = patterns.flatMap((raw): CompiledPattern[] => {
      const negated = raw.startsWith('!');
      const pattern = negated ? raw.slice(1) : raw;
      const absolute = pattern.startsWith('~/')
        ? `${anchors.home}/${pattern.slice(2)}`
        : pattern === '~'
          ? anchors.home
          : isAbsolute(pattern)
            ? pattern
            : undefined;
      if (absolute === undefined) {
        // `./name` is anchored at the project root, as `/name` is in a .gitignore file.
        const line = pattern.startsWith('./') ? `/${pattern.slice(2)}` : pattern;
        return [{ negated, base: 'project' as const, line, literal: literalOf(line) }];
      }
      // Paths are matched where they really are too (resolve.ts): a pattern through a symlink (a
      // home folder that is a link, `/tmp` on some systems) covers the real place as well.
      return [...new Set([absolute, realPrefix(absolute)])].map((form) => {
        const line = fsAnchored(form);
        return { negated, base: 'fs' as const, line, literal: literalOf(line) };
      });
    });
  }

  /** Whether `path` (absolute, resolved) is covered: the last pattern that matches it decides. */
  matches(path: string): boolean {
    let covered = false;
    let lower: string | undefined;
    let fromRoot: string | undefined;
    let fromProject: string | null | undefined;
    for (const pattern of this.patterns) {
      const { negated, base, literal } = pattern;
      // A negation can only change the answer for a path some earlier pattern covered, and a
      // plain pattern only one not covered yet.
      if (negated !== covered) continue;
      if (literal !== undefined && !(lower ??= path.toLowerCase()).includes(literal)) continue;
      let candidate: string | null;
      if (base === 'fs') candidate = fromRoot ??= toPosix(path.slice(1));
      else
        candidate =
          fromProject === undefined ? (fromProject = projectRelative(this.projectRoot, path)) : fromProject;
      if (!candidate) continue;
      const matcher = (pattern.matcher ??= ignore().add(pattern.line));
      // A path may name a folder: `secrets/` covers the folder itself too.
      if (matcher.ignores(candidate) || matcher.ignores(`${candidate}/`)) covered = !negated;
    }
    return covered;
  }
}

/**
 * The longest run of plain characters in a .gitignore line (slashes and `**` split it), which any
 * path it matches must contain; undefined for lines with escapes, character classes or letters
 * outside ASCII.
 */
function literalOf(line: string): string | undefined {
  // Outside ASCII, lower case and the matcher's case-blind match disagree (`ς` and `σ`, `µ` and `μ`):
  // no prefilter there, the matcher alone.
  if (/[\\[]|[^\t -~]/.test(line)) return undefined;
  const runs = line
    .toLowerCase()
    .split(/[*?]+/)
    .map((run) => run.replace(/^\/+|\/+$/g, ''));
  const longest = runs.reduce((a, b) => (b.length > a.length ? b : a), '');
  return longest.length >= 2 ? longest : undefined;
}

/**
 * `pattern` (absolute) with the folders before its first wildcard resolved as the system resolves
 * them (symlinks followed), the rest as written.
 */
function realPrefix(pattern: string): string {
  const wild = pattern.search(/[*?[\\]/);
  const plain = wild === -1 ? pattern : pattern.slice(0, pattern.lastIndexOf('/', wild) + 1);
  if (plain === '' || plain === '/') return pattern;
  const trailing = plain.endsWith('/') && plain.length > 1;
  let real: string;
  try {
    real = realPath(trailing ? plain.slice(0, -1) : plain);
  } catch {
    // A place this user cannot resolve (another user's home): the pattern as written alone.
    return pattern;
  }
  return `${real}${trailing ? '/' : ''}${pattern.slice(plain.length)}`;
}

/** An absolute pattern as a .gitignore line anchored at the file-system root. */
function fsAnchored(absolute: string): string {
  const posix = toPosix(absolute).replace(/\/{2,}$/, '/');
  return posix.startsWith('/') ? posix : `/${posix}`;
}

/** The path from the project root, or null when it lies outside the project (or is the root itself). */
function projectRelative(root: string, path: string): string | null {
  const rel = relative(root, path);
  // `..key.pem` and `..x/` are names in the project; only `..` itself, or a path through it, is not.
  if (!rel || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  return toPosix(rel);
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}
