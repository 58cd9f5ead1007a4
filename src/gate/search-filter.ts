// Which files of a folder a search tool reads, as ripgrep picks them: its `--glob` filters, its
// `--type`, and the `.gitignore` files it honours. A search is decided by the files it reads (see
// decideSearch in local.ts): a `*.ts` search beside an `.env` that a rule denies does not read the
// `.env`, and is not refused for it. Everything here errs one way only: where svc cannot be sure
// ripgrep leaves a file out, the file is decided as read.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { ignoredBy, type IgnoreRules } from './ignore-files.ts';
import { realPath } from './resolve.ts';

/** What a search reads of its folder, in ripgrep's terms. */
export interface SearchFilter {
  /**
   * ripgrep's `--glob`s, gitignore-style, relative to the searched folder: a file is read when it
   * matches one of them. Globs that exclude (`!*.test.ts`) are not honoured: the search is decided
   * on what it would read without them, more, never less.
   */
  globs?: readonly string[];
  /**
   * ripgrep's `--type`s (`ts`, `py`): a file of any of them is read. Honoured when every name is in
   * RIPGREP_TYPES, else left out.
   */
  types?: readonly string[];
  /**
   * The search leaves out hidden files and folders (a name starting with `.`), as ripgrep does
   * without `--hidden`, unless a glob names them.
   */
  skipsHidden?: boolean;
  /**
   * The search leaves out what `.gitignore` files do, as ripgrep does without `--no-ignore`,
   * inside a git work tree: ignored folders always, ignored files unless a glob names them. Not
   * honoured where `.ignore` or `.rgignore` files could bring such a file back, nor through a link.
   */
  gitignore?: boolean;
  /**
   * ripgrep may read a configuration file (RIPGREP_CONFIG_PATH, in the searching tool's
   * environment), which may add globs, types and flags: under one, every file is decided.
   */
  configurable?: boolean;
}

/**
 * File types ripgrep 14 knows (`rg --type-list`), for the names agents use most: each as ripgrep
 * defines it, so that a file it reads for the type is never left out. A name not here is not
 * honoured (the search is decided whole).
 */
export const RIPGREP_TYPES: Readonly<Record<string, readonly string[]>> = {
  c: ['*.[chH]', '*.[chH].in', '*.cats'],
  cpp: ['*.[ChH]', '*.[ChH].in', '*.[ch]pp', '*.[ch]pp.in', '*.[ch]xx', '*.[ch]xx.in', '*.cc', '*.cc.in', '*.hh', '*.hh.in', '*.inl'], // prettier-ignore
  cs: ['*.cs'],
  csharp: ['*.cs'],
  css: ['*.css', '*.scss'],
  dart: ['*.dart'],
  elixir: ['*.eex', '*.ex', '*.exs', '*.heex', '*.leex', '*.livemd'],
  go: ['*.go'],
  graphql: ['*.graphql', '*.graphqls'],
  haskell: ['*.c2hs', '*.cpphs', '*.hs', '*.hsc', '*.lhs'],
  html: ['*.ejs', '*.htm', '*.html'],
  java: ['*.java', '*.jsp', '*.jspx', '*.properties'],
  js: ['*.cjs', '*.js', '*.jsx', '*.mjs', '*.vue'],
  kotlin: ['*.kt', '*.kts'],
  less: ['*.less'],
  lua: ['*.lua'],
  markdown: ['*.markdown', '*.md', '*.mdown', '*.mdwn', '*.mdx', '*.mkd', '*.mkdn'],
  md: ['*.markdown', '*.md', '*.mdown', '*.mdwn', '*.mdx', '*.mkd', '*.mkdn'],
  ocaml: ['*.ml', '*.mli', '*.mll', '*.mly'],
  perl: ['*.PL', '*.perl', '*.pl', '*.plh', '*.plx', '*.pm', '*.t'],
  php: ['*.php', '*.php3', '*.php4', '*.php5', '*.php7', '*.php8', '*.pht', '*.phtml'],
  protobuf: ['*.proto'],
  py: ['*.py', '*.pyi'],
  python: ['*.py', '*.pyi'],
  ruby: ['*.gemspec', '*.rb', '*.rbw', '.irbrc', 'Gemfile', 'Rakefile', 'config.ru'],
  rust: ['*.rs'],
  sass: ['*.sass', '*.scss'],
  scala: ['*.sbt', '*.scala'],
  sql: ['*.psql', '*.sql'],
  svelte: ['*.svelte'],
  swift: ['*.swift'],
  ts: ['*.cts', '*.mts', '*.ts', '*.tsx'],
  typescript: ['*.cts', '*.mts', '*.ts', '*.tsx'],
  vue: ['*.vue'],
  zig: ['*.zig'],
};

/** The files a filtered search reads, asked of each entry its walk meets. */
export interface SearchWalk {
  /** Whether the search reads this file. */
  reads(path: string): boolean;
  /** Whether the search goes into this folder (the walk meets folders before what they hold). */
  enters(path: string): boolean;
}

/** Ignore files that may bring back what a `.gitignore` leaves out, for ripgrep: not modelled. */
const OVERRIDING_IGNORE_FILES = ['.ignore', '.rgignore'];

/**
 * How the search over `folder` picks its files, or undefined when it reads every file (no filter
 * svc can honour). `env` is the searching tool's environment.
 */
export function searchWalk(
  folder: string,
  filter: SearchFilter | undefined,
  env: NodeJS.ProcessEnv,
): SearchWalk | undefined {
  if (!filter) return undefined;
  // A configuration file may add globs, types and flags of its own.
  if (filter.configurable && env.RIPGREP_CONFIG_PATH) return undefined;
  const globs = includingGlobs(filter.globs ?? []);
  // A glob svc cannot place overrides the ignore files for files svc cannot name: nothing holds.
  if (globs === 'unplaceable') return undefined;
  const types = filter.types?.length ? filter.types.map((t) => RIPGREP_TYPES[t]) : undefined;
  const type = types?.every((t) => t !== undefined) ? types.flat() : undefined;
  // Through a link, ripgrep takes the ignore files where the folder really is (and the walk
  // decides the files there too): the ones on the named way are not its.
  const ignores = filter.gitignore && realPath(folder) === folder ? gitignores(folder, env) : undefined;
  // ripgrep leaves out a hidden name only where nothing else spoke of it: a `!` line or a type
  // may bring one back. Without the ignore files' whole picture, none is left out.
  const skipsHidden = filter.skipsHidden === true && ignores !== undefined && type === undefined;
  if (globs === undefined && type === undefined && ignores === undefined && !skipsHidden) return undefined;
  // Case aside, as ripgrep may match a type's names (more files, never fewer).
  const typeMatcher = type && ignore({ ignorecase: true }).add(type);
  const hidden = (rel: string) => /(?:^|\/)\.[^/]/.test(rel);
  const inside = (path: string) => {
    const rel = relative(folder, path).split(sep).join('/');
    return rel !== '' && rel !== '..' && !rel.startsWith('../') && !isAbsolute(rel) ? rel : undefined;
  };
  return {
    reads(path) {
      const rel = inside(path);
      // A file a followed link leads to, outside the folder: nothing to filter it by.
      if (rel === undefined) return true;
      // A file a glob names is read, whatever the ignore files say of it, hidden or not (ripgrep's
      // overrides).
      if (globs) return globs.ignores(rel);
      if (skipsHidden && hidden(rel) && !ignores.mayShowHidden(dirname(path))) return false;
      if (ignores?.ignored(path, false)) return false;
      return !typeMatcher || typeMatcher.ignores(rel.slice(rel.lastIndexOf('/') + 1));
    },
    // An ignored or hidden folder is not gone into, unless a glob names the folder itself: then
    // ripgrep goes in. A glob naming files in it is not enough: ripgrep's `-g '*.js'` reads an
    // ignored `x.js`, never `build/out.js` under an ignored `build/` (ripgrep 14.1.1).
    enters(path) {
      const rel = inside(path);
      if (rel === undefined || globs?.ignores(rel) || globs?.ignores(`${rel}/`)) return true;
      if (skipsHidden && hidden(rel) && !ignores.mayShowHidden(dirname(path))) return false;
      return !ignores?.ignored(path, true);
    },
  };
}

/** How many globs one glob's braces may make before svc decides the search whole. */
const MAX_GLOB_ALTERNATIVES = 256;

/**
 * One matcher for the globs that include files (gitignore-style, as ripgrep reads them), matching
 * case-insensitively and through a matched parent folder: more than ripgrep does, never less.
 * Undefined when there is no including glob; `unplaceable` when one may name files svc cannot tell:
 * one not relative to the folder (`/abs/…`, `../x`, `~`), a comment or a blank to the matcher
 * (`#x`, spaces), escapes, or braces other than ripgrep's plain `{a,b}`.
 */
function includingGlobs(globs: readonly string[]): Ignore | undefined | 'unplaceable' {
  const including = globs.filter((g) => !g.startsWith('!'));
  if (including.length === 0) return undefined;
  const lines: string[] = [];
  for (const glob of including) {
    // A class (`[…]`) may hold braces and commas, which the expansion below would split.
    const alternatives = glob.includes('[') ? undefined : ripgrepAlternatives(glob);
    if (alternatives === undefined) return 'unplaceable';
    for (const line of alternatives) {
      if (
        // To the matcher a `!` line brings back what the lines before it named.
        line.startsWith('!') ||
        line.trim() === '' ||
        line !== line.trim() ||
        line.startsWith('#') ||
        line.includes('\\') ||
        isAbsolute(line) ||
        line.startsWith('~') ||
        /(?:^|\/)\.\.(?:\/|$)/.test(line)
      )
        return 'unplaceable';
      lines.push(line);
    }
  }
  return ignore({ ignorecase: true }).add(lines);
}

/**
 * A glob's alternatives as ripgrep's `{a,b}` makes them: each brace group one of its
 * comma-parted words (`{x}` is `x`; `{a..c}` is no range). Undefined for nested or unbalanced
 * braces, or too many alternatives.
 */
function ripgrepAlternatives(glob: string): string[] | undefined {
  let results = [''];
  for (let at = 0; at < glob.length;) {
    const open = glob.indexOf('{', at);
    const close = glob.indexOf('}', at);
    if (open === -1) {
      if (close !== -1) return undefined;
      results = results.map((r) => r + glob.slice(at));
      break;
    }
    if (close !== -1 && close < open) return undefined;
    const end = glob.indexOf('}', open);
    if (end === -1 || glob.slice(open + 1, end).includes('{')) return undefined;
    const words = glob.slice(open + 1, end).split(',');
    const before = glob.slice(at, open);
    results = results.flatMap((r) => words.map((w) => r + before + w));
    if (results.length > MAX_GLOB_ALTERNATIVES) return undefined;
    at = end + 1;
  }
  return results;
}

/**
 * A `.gitignore` line both ripgrep and the matcher read alike: names of letters, digits, `.`,
 * `_` and `-`, with `*`, `?` and `**`, folders apart by `/`, a `!` before. ripgrep and the matcher
 * differ on classes with escapes, on `***`, on a lone `!` and on invalid ranges; a file holding
 * any other line is not used.
 */
const PLAIN_IGNORE_LINE = /^!?\/?(?:[\w.*?-]+\/)*[\w.*?-]+\/?$/;

/** The patterns of a `.gitignore` as both read them, or `unknown`; `above`: a folder over the search's. */
function plainIgnoreFile(text: string, above: boolean): { lines: string[]; negates: boolean } | 'unknown' {
  // ripgrep reads a byte order mark as part of the first pattern, and stops at bytes that are no
  // UTF-8: git and the matcher do neither.
  if (text.startsWith('\uFEFF') || text.includes('\uFFFD')) return 'unknown';
  const lines: string[] = [];
  let negates = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/[ \t\r]+$/, '');
    if (line === '' || line.startsWith('#')) continue;
    if (!PLAIN_IGNORE_LINE.test(line) || line.includes('***')) return 'unknown';
    if (line.startsWith('!')) negates = true;
    // ripgrep 14.1.1 applies a pattern with a `/` from a folder above the search's to the
    // search's first level at most: left out, it leaves nothing out that ripgrep reads.
    else if (above && /\/./.test(line)) continue;
    lines.push(line);
  }
  return { lines, negates };
}

/** The `.gitignore` files of a search, and whether any ignore file may show what is hidden. */
interface Gitignores {
  ignored(path: string, isDir: boolean): boolean;
  /** Whether something may bring back a hidden name in this folder (a `!` line, git's own excludes). */
  mayShowHidden(dir: string): boolean;
}

/**
 * The `.gitignore` files a search in `folder` honours, from its git work tree's root down, and
 * those it meets inside, as ripgrep reads them (case matters, each entry by its own path).
 * Undefined outside a work tree, or where an `.ignore` or `.rgignore` file lies above, up to the
 * file system's root (ripgrep reads those everywhere above, and ranks them first), or a
 * `.gitignore` above holds a line the two read otherwise.
 */
function gitignores(folder: string, env: NodeJS.ProcessEnv): Gitignores | undefined {
  const above: string[] = [];
  let root: string | undefined;
  for (let dir = folder; ; dir = dirname(dir)) {
    if (OVERRIDING_IGNORE_FILES.some((name) => existsSync(join(dir, name)))) return undefined;
    if (root === undefined) above.unshift(dir);
    if (root === undefined && existsSync(join(dir, '.git'))) root = dir;
    if (dirname(dir) === dir) break;
  }
  if (root === undefined) return undefined;
  const own = (dir: string): IgnoreRules[] | 'unknown' => {
    if (OVERRIDING_IGNORE_FILES.some((name) => existsSync(join(dir, name)))) return 'unknown';
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(dir, '.gitignore'));
    } catch {
      return [];
    }
    const file = plainIgnoreFile(bytes.toString('utf8'), dir !== folder && above.includes(dir));
    if (file === 'unknown') return 'unknown';
    return [{ dir, matcher: ignore({ ignorecase: false }).add(file.lines), negates: file.negates }];
  };
  const stacks = new Map<string, IgnoreRules[] | 'unknown'>();
  let stack: IgnoreRules[] | 'unknown' = [];
  for (const dir of above) {
    const rules = own(dir);
    stack = stack === 'unknown' || rules === 'unknown' ? 'unknown' : [...stack, ...rules];
  }
  if (stack === 'unknown') return undefined;
  stacks.set(folder, stack);
  // The rules in force in a folder of the walk: its parent's and its own. The walk enters a
  // folder only after its parent, so the parent's are known; a folder holding `.git` is another
  // work tree, with only its own.
  const stackOf = (dir: string): IgnoreRules[] | 'unknown' => {
    const known = stacks.get(dir);
    if (known) return known;
    const parent = dir === folder || dirname(dir) === dir ? [] : stackOf(dirname(dir));
    const rules = own(dir);
    const nested = existsSync(join(dir, '.git'));
    const made: IgnoreRules[] | 'unknown' =
      parent === 'unknown' || rules === 'unknown' ? 'unknown' : [...(nested ? [] : parent), ...rules];
    stacks.set(dir, made);
    return made;
  };
  const gitsOwn = gitExcludesMayShow(root, env);
  return {
    ignored(path, isDir) {
      const rules = stackOf(dirname(path));
      return rules !== 'unknown' && ignoredBy(rules, path, isDir, { ownPath: true });
    },
    mayShowHidden(dir) {
      const rules = stackOf(dir);
      return gitsOwn || rules === 'unknown' || rules.some((r) => r.negates);
    },
  };
}

/**
 * Whether git's own excludes may bring a name back for ripgrep (a `!` line in the repository's
 * `info/exclude` or the user's global ignore file), or cannot be read to tell.
 */
function gitExcludesMayShow(root: string, env: NodeJS.ProcessEnv): boolean {
  const negates = (path: string) => {
    try {
      return /^[ \t]*!/m.test(readFileSync(path, 'utf8'));
    } catch (error) {
      return (error as NodeJS.ErrnoException).code !== 'ENOENT';
    }
  };
  // A linked work tree's `.git` is a file naming the repository elsewhere: not followed.
  const gitDir = join(root, '.git');
  if (!statSync(gitDir, { throwIfNoEntry: false })?.isDirectory()) return true;
  const home = env.HOME ?? '';
  const gitConfigDir = join(env.XDG_CONFIG_HOME || join(home, '.config'), 'git');
  // A global ignore file named in a configuration (`core.excludesFile`, in either user file, or
  // one they include): not looked for, as if it brought anything back.
  const names = ['/etc/gitconfig', join(home, '.gitconfig'), join(gitConfigDir, 'config')].some((path) => {
    try {
      return /excludesfile|\[include/i.test(readFileSync(path, 'utf8'));
    } catch (error) {
      return (error as NodeJS.ErrnoException).code !== 'ENOENT';
    }
  });
  return names || negates(join(gitDir, 'info', 'exclude')) || negates(join(gitConfigDir, 'ignore'));
}
