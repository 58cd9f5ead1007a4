// What a parsed command line touches: the files it reads, the folders it searches, the files it
// writes, from what common programs are known to do with their arguments and redirections. A path
// that only exists when the command runs (a variable set elsewhere, a command's output, items fed
// to xargs) cannot be known: it is reported as `dynamic`, for the policy of docs/HOOKS.md.
import {
  closeSync,
  constants,
  fstatSync,
  globSync,
  openSync,
  readSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { expand } from 'brace-expansion';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { realPath } from '../resolve.ts';
import type { SearchFilter } from '../search-filter.ts';
import { ShellSyntaxError, parse, type Node, type Script, type Word } from './parse.ts';

export interface Touch {
  action: 'read' | 'search' | 'write' | 'run';
  path: string;
  /** The program (or redirection) that touches it. */
  via: string;
  /** For a search: which files of the folder it reads (src/gate/search-filter.ts); else all. */
  filter?: SearchFilter;
}

export interface CommandReach {
  touches: Touch[];
  /** What the command reaches that cannot be known before it runs, in words. */
  dynamic: string[];
}

interface Scope {
  cwd: string;
  home: string;
  vars: Map<string, string>;
  /** `pushd`'s stack of folders, the last pushed at the end. */
  dirs: string[];
  /**
   * Other folders the line may be working in: the ones before each `cd`, and where a relative `cd`
   * would have led from them. A `cd` may not run (after `||`, in `if`, sent to the background, to a
   * folder that is not there), so a relative path is decided in each of them too.
   */
  also: string[];
}

/** A scope of its own for a subshell or a substitution: its `cd` and variables stay inside it. */
const fork = (scope: Scope): Scope => ({
  ...scope,
  vars: new Map(scope.vars),
  dirs: [...scope.dirs],
  also: [...scope.also],
});

/** git's variables that set where its repository or work tree is. */
const GIT_PLACES =
  /^GIT_(?:DIR|WORK_TREE|COMMON_DIR|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|NAMESPACE|CONFIG|CONFIG_GLOBAL|CONFIG_SYSTEM|CONFIG_PARAMETERS|CONFIG_COUNT)$/;

/** git's variables that name a command it runs. */
const GIT_COMMANDS =
  /^GIT_(?:EXTERNAL_DIFF|EDITOR|SEQUENCE_EDITOR|PAGER|SSH|SSH_COMMAND|ASKPASS|EXEC_PATH|PROXY_COMMAND|TEMPLATE_DIR)$/;
/** Settings that name a command git runs, by name. */
const GIT_COMMAND_NAMES = String.raw`(?:core\.(?:fsmonitor|pager|editor|hookspath|sshcommand|askpass|gitproxy|attributesfile)|(?:diff|merge)\.[^=\s]*\.(?:command|textconv|driver)|diff\.external|sequence\.editor|gpg\.[^=\s]*program|credential\.[^=\s]*helper|filter\.[^=\s]*\.(?:clean|smudge|process)|protocol\.[^=\s]*allow|pager\.[^=\s]*|include\.path|includeif\.[^=\s]*)`;
/** Those settings as `-c` gives them (`name=value`). */
const GIT_COMMAND_SETTINGS = new RegExp(`^${GIT_COMMAND_NAMES}=`, 'i');
/** Those settings' names, as `git config NAME VALUE` writes them. */
const GIT_COMMAND_KEYS = new RegExp(`^${GIT_COMMAND_NAMES}$`, 'i');

/** git's subcommands svc reads a line of (the others, and aliases, are known only when they run). */
const GIT_KNOWN = new Set([
  'add',
  'am',
  'apply',
  'archive',
  'bisect',
  'blame',
  'branch',
  'bundle',
  'cat-file',
  'check-attr',
  'check-ignore',
  'checkout',
  'cherry',
  'cherry-pick',
  'clean',
  'clone',
  'commit',
  'commit-tree',
  'config',
  'count-objects',
  'describe',
  'diff',
  'diff-files',
  'diff-index',
  'diff-tree',
  'difftool',
  'fast-export',
  'fetch',
  'filter-branch',
  'for-each-ref',
  'format-patch',
  'fsck',
  'gc',
  'grep',
  'hash-object',
  'help',
  'init',
  'log',
  'ls-files',
  'ls-remote',
  'ls-tree',
  'merge',
  'merge-base',
  'merge-file',
  'mergetool',
  'mv',
  'name-rev',
  'notes',
  'pull',
  'push',
  'range-diff',
  'rebase',
  'reflog',
  'remote',
  'request-pull',
  'reset',
  'restore',
  'rev-list',
  'rev-parse',
  'revert',
  'rm',
  'send-email',
  'shortlog',
  'show',
  'show-branch',
  'show-ref',
  'sparse-checkout',
  'stash',
  'status',
  'submodule',
  'switch',
  'symbolic-ref',
  'tag',
  'update-index',
  'version',
  'whatchanged',
  'worktree',
  'write-tree',
]);
/** Subcommands that run commands they are given, or scripts of the repository. */
const GIT_RUNS = new Set(['bisect', 'difftool', 'filter-branch', 'mergetool', 'send-email', 'submodule']);
/** Plumbing and porcelain that print committed content. */
const GIT_SHOWS_HISTORY = new Set([
  'bundle',
  'diff-files',
  'diff-index',
  'diff-tree',
  'fast-export',
  'format-patch',
  'range-diff',
  'request-pull',
  'show-branch',
  'whatchanged',
]);

/** The root of the repository holding `cwd` (the nearest folder up with `.git`), else `cwd`. */
function repositoryRoot(cwd: string): string {
  for (let at = cwd; ; at = dirname(at)) {
    if (existsPath(join(at, '.git'))) return at;
    if (dirname(at) === at) return cwd;
  }
}

/** A path as the system reaches it: links followed, then `..` from where they lead; as written when not there. */
function physical(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}

/** Folders a line may be working in beyond its last `cd`'s, before it is taken as unknowable. */
const MAX_FOLDERS = 16;

/** A word's value, when it is known before the command runs. */
interface Value {
  text: string | undefined;
  /** Unquoted `*`, `?` or `[`: the shell expands it against the file system. */
  glob: boolean;
  /** Unquoted `{…}`: the shell makes several words of it (`{.env,x}`, `{1..3}`) before anything else. */
  braces?: boolean;
}

const RESERVED = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'while',
  'until',
  'time',
  '!',
  '{',
  '}',
]);

/** Programs that read every file argument (options aside). */
const READERS = new Set([
  'cat',
  'tac',
  'head',
  'tail',
  'less',
  'more',
  'nl',
  'od',
  'xxd',
  'hexdump',
  'strings',
  'base64',
  'base32',
  'cut',
  'sort',
  'uniq',
  'wc',
  'diff',
  'cmp',
  'comm',
  'paste',
  'rev',
  'fold',
  'fmt',
  'pr',
  'column',
  'tr',
  'file',
  'md5sum',
  'sha1sum',
  'sha256sum',
  'sha512sum',
  'shasum',
  'cksum',
  'zcat',
  'bzcat',
  'xzcat',
  'gzip',
  'gunzip',
  'bzip2',
  'xz',
  'zip',
  'iconv',
  'vi',
  'vim',
  'nano',
  'emacs',
  'view',
  'bat',
  'openssl',
  'gpg',
  'xmllint',
  'csvlook',
  'source',
  '.',
]);
/** Programs whose first non-option argument is a program text, then files. */
const SCRIPTED_READERS = new Set(['awk', 'gawk', 'mawk', 'sed', 'jq', 'yq']);
/** Searches: a pattern first, then files or folders (the working folder when none). */
const SEARCHERS = new Set(['grep', 'egrep', 'fgrep', 'rgrep', 'rg', 'ag', 'ack', 'git-grep']);
/** Variables set before a command that its branch reads: git's places and commands, ripgrep's configuration. */
const isProgramVar = (name: string) =>
  GIT_PLACES.test(name) || GIT_COMMANDS.test(name) || name === 'RIPGREP_CONFIG_PATH';

/** ripgrep's options that take a value (the next word, or joined: `-g*.ts`, `--glob=*.ts`). */
const RIPGREP_VALUE_OPTIONS = new Set(['-A', '-B', '-C', '-d', '-E', '-e', '-f', '-g', '-j', '-M', '-m', '-r', '-T', '-t', '--after-context', '--before-context', '--color', '--colors', '--context', '--context-separator', '--dfa-size-limit', '--encoding', '--engine', '--field-context-separator', '--field-match-separator', '--file', '--glob', '--hostname-bin', '--hyperlink-format', '--iglob', '--ignore-file', '--max-columns', '--max-count', '--max-depth', '--max-filesize', '--maxdepth', '--path-separator', '--pre', '--pre-glob', '--regex-size-limit', '--regexp', '--replace', '--sort', '--sortr', '--threads', '--type', '--type-add', '--type-clear', '--type-not']); // prettier-ignore

/**
 * Which files an `rg` line reads of its folders, from its options: `-g`/`--glob`/`--iglob` globs,
 * `-t`/`--type` types, hidden files left out unless `--hidden`, `-.` or `-uu`, ignore files
 * honoured unless `-u` or a `--no-ignore…`. Type definitions of its own (`--type-add`) leave the
 * types out. None (every file) under a configuration file set on the line (RIPGREP_CONFIG_PATH),
 * with a word only the run knows, or with a glob holding a `/` (ripgrep matches it from the
 * working folder).
 */
function ripgrepFilter(args: readonly Value[], scope: Scope): SearchFilter | undefined {
  // A word only the run knows may be any option; a configuration file may add any.
  if (args.some((a) => a.text === undefined) || scope.vars.has('RIPGREP_CONFIG_PATH')) return undefined;
  const globs: string[] = [];
  const types: string[] = [];
  let hidden = false;
  let noIgnore = false;
  let ownTypes = false;
  const take = (option: string, value: string) => {
    if (option === '-g' || option === '--glob' || option === '--iglob') globs.push(value);
    else if (option === '-t' || option === '--type') types.push(value);
    else if (option === '--type-add' || option === '--type-clear') ownTypes = true;
  };
  for (let i = 0; i < args.length; i++) {
    const text = args[i]!.text ?? '';
    if (text === '--') break;
    const long = /^(--[\w-]+)(?:=(.*))?$/s.exec(text);
    if (long) {
      const [, option, joined] = long;
      // An ignore file of the line's own may bring a hidden name back: hidden ones are decided.
      if (option === '--hidden' || option === '--ignore-file') hidden = true;
      else if (option === '--no-hidden') hidden = false;
      else if (/^--no-ignore(?:-vcs|-dot|-parent|-global|-exclude)?$/.test(option!)) noIgnore = true;
      // Like `-u`: the second one also reads hidden files.
      else if (option === '--unrestricted') {
        if (noIgnore) hidden = true;
        noIgnore = true;
      }
      if (RIPGREP_VALUE_OPTIONS.has(option!)) {
        const value = joined ?? args[++i]?.text;
        if (value !== undefined) take(option!, value);
      }
      continue;
    }
    if (!/^-[^-]/.test(text)) continue;
    // A cluster of short flags (`-uu`, `-.`, `-iw`), up to one that takes a value (`-g*.ts`).
    for (let at = 1; at < text.length; at++) {
      const flag = `-${text[at]}`;
      if (flag === '-u') {
        if (noIgnore) hidden = true;
        noIgnore = true;
      } else if (flag === '-.') hidden = true;
      if (RIPGREP_VALUE_OPTIONS.has(flag)) {
        const value = at + 1 < text.length ? text.slice(at + 1) : args[++i]?.text;
        if (value !== undefined) take(flag, value);
        break;
      }
    }
  }
  // A glob with a `/` is matched from the working folder, not from the folder searched.
  if (globs.some((g) => g.includes('/'))) return undefined;
  // A type's names are shown hidden or not (`-t sh` reads `.bashrc`), its own types too.
  if (types.length) hidden = true;
  return {
    ...(globs.length ? { globs } : {}),
    ...(types.length && !ownTypes ? { types } : {}),
    skipsHidden: !hidden,
    gitignore: !noIgnore,
    configurable: true,
  };
}

/**
 * Which files a `grep -r` reads of its folders: those whose names an `--include` names (its base
 * name, as grep matches it), every one without. grep reads hidden and ignored files alike.
 */
function grepFilter(args: readonly Value[]): SearchFilter | undefined {
  const globs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const text = args[i]!.text;
    if (text === undefined) return undefined;
    if (text === '--') break;
    // GNU's long options may be shortened (`--exclude-f`, `--reg`): one not spelled whole may be
    // any, taking the next word or not.
    const long = /^--([\w-]+)/.exec(text)?.[1];
    if (long !== undefined && !GREP_LONG_OPTIONS.has(long)) return undefined;
    // With an `--exclude` (or `--exclude-from`) first, grep reads what neither names: every
    // file, as far as svc can tell.
    if (/^--exclude(?:-from)?(?:=|$)/.test(text)) return undefined;
    const joined = /^--include=(.*)$/s.exec(text);
    if (joined || text === '--include') {
      const value = joined ? joined[1]! : args[++i]?.text;
      // A name with a `/` matches no base name; to grep `!x`, `[…]` and `{a,b}` are names the
      // matcher would read otherwise: svc decides every file.
      if (value === undefined || /[/[!{}]/.test(value)) return undefined;
      globs.push(value);
    } else if (GREP_VALUE_OPTIONS.has(text)) i++;
  }
  return globs.length ? { globs } : undefined;
}

/** GNU grep's long options, spelled whole. */
const GREP_LONG_OPTIONS = new Set(['after-context', 'basic-regexp', 'before-context', 'binary', 'binary-files', 'byte-offset', 'color', 'colour', 'context', 'count', 'dereference-recursive', 'devices', 'directories', 'exclude', 'exclude-dir', 'exclude-from', 'extended-regexp', 'file', 'files-with-matches', 'files-without-match', 'fixed-strings', 'help', 'ignore-case', 'include', 'initial-tab', 'invert-match', 'label', 'line-buffered', 'line-number', 'line-regexp', 'max-count', 'no-filename', 'no-ignore-case', 'no-messages', 'null', 'null-data', 'only-matching', 'perl-regexp', 'quiet', 'recursive', 'regexp', 'silent', 'text', 'version', 'with-filename', 'word-regexp']); // prettier-ignore

/**
 * GNU grep's options whose value is the next word (the other searchers' `-g` and `-t` too): an
 * `--include` there is that value. Not `--color`: its value is only ever joined (`--color=never`).
 */
const GREP_VALUE_OPTIONS = new Set(['-e', '-f', '-m', '-A', '-B', '-C', '-d', '-D', '-g', '-t', '--regexp', '--file', '--glob', '--type', '--max-count', '--after-context', '--before-context', '--context', '--directories', '--devices', '--exclude-dir', '--label', '--binary-files']); // prettier-ignore

/** find's tests (not its actions), each with at most one value. */
const FIND_TESTS =
  /^-(?:i?name|i?path|i?wholename|i?regex|x?type|size|empty|newer|[amc](?:time|min)|user|group|nouser|nogroup|perm|links|inum|samefile|readable|writable|executable|uid|gid|true|false)$/;

/**
 * The files a `find` expression keeps, when its tests are joined by "and" alone and one of them is
 * `-name` or `-iname` (a base name each): those names. Other tests, negated ones too, only keep
 * fewer. With `-o`, brackets or `,`, a name with a `/`, or `-type d` (it lists folders), every file.
 */
function findFilter(expression: readonly Value[]): SearchFilter | undefined {
  const names: string[] = [];
  let acted = false;
  for (let i = 0; i < expression.length; i++) {
    const text = expression[i]!.text;
    if (text === undefined) return undefined;
    // An action before a name test acts on every file it meets.
    if (/^-(exec|execdir|ok|okdir|print0?|printf|fprint0?|fprintf|fls|ls|delete)$/.test(text)) acted = true;
    if (/^-(exec|execdir|ok|okdir)$/.test(text)) {
      // The command run on each file, up to its `;` or `+`: its words are not tests.
      while (i + 1 < expression.length && !/^[;+]$/.test(expression[i + 1]!.text ?? '')) i++;
      i++;
    } else if (/^(!|-not)$/.test(text) && FIND_TESTS.test(expression[i + 1]?.text ?? '')) {
      // A negated test (`-not -path './node_modules/*'`) only keeps fewer: passed over, with its
      // value, as svc decides more files without it, never fewer. Not an action: `-not -exec`
      // runs its command on every file that reaches it.
      i++;
      if (!(expression[i + 1]?.text ?? '-').startsWith('-')) i++;
    } else if (/^(-o|-or|!|-not|\(|\)|,)$/.test(text)) return undefined;
    else if (text === '-name' || text === '-iname') {
      const name = expression[++i]?.text;
      // `!x`, `[…]` and `{a,b}` the matcher would read otherwise than find.
      if (acted || name === undefined || /[/[!{}]/.test(name)) return undefined;
      names.push(name);
    } else if (text === '-type' && /d/.test(expression[i + 1]?.text ?? 'd')) return undefined;
  }
  return names.length ? { globs: names } : undefined;
}

/** Programs that touch no file content through their arguments. */
const HARMLESS = new Set([
  'echo',
  'printf',
  'ls',
  'cd',
  'pwd',
  'true',
  'false',
  'test',
  '[',
  '[[',
  'which',
  'type',
  'export',
  'set',
  'unset',
  'exit',
  'return',
  'shift',
  'sleep',
  'whoami',
  'id',
  'uname',
  'hostname',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'stat',
  'df',
  'ps',
  'kill',
  'wait',
  'jobs',
  'read',
  'local',
  'declare',
  'npm',
  'npx',
  'pnpm',
  'yarn',
  'make',
  'tsc',
  'vitest',
  'jest',
  'cargo',
  'go',
  'docker',
  'clear',
]);
/** Programs that change or remove every path given to them (a mode or an owner first is harmless to check too). */
const WRITERS = new Set([
  'rm',
  'rmdir',
  'unlink',
  'mkdir',
  'touch',
  'truncate',
  'shred',
  'chmod',
  'chown',
  'chgrp',
  'chattr',
  'setfacl',
]);
/** Options, of any program, whose value is a file of secrets or settings it reads. */
const SECRET_FILE_OPTIONS = new Set([
  '--env-file',
  '--secret-file',
  '--password-file',
  '--key-file',
  '--credentials-file',
  '--kubeconfig',
]);
/** Programs that run the shell code given after `-c` (bundled too: `-qc`), or `--command`. */
const CODE_RUNNERS = new Set(['script', 'su', 'runuser', 'flock']);
/** Programs that read their sources and write their last argument (a copy, a move, a link). */
const COPIERS = new Set(['cp', 'mv', 'rsync', 'scp', 'install', 'ln', 'link']);
/** Prefixes that run the rest of the line as a command. */
const WRAPPERS = new Set([
  'sudo',
  'nice',
  'nohup',
  'exec',
  'builtin',
  'stdbuf',
  'doas',
  'setsid',
  'ionice',
  'chrt',
  'taskset',
]);
const SHELLS = new Set([
  'sh',
  'bash',
  'rbash',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'ash',
  'yash',
  'posh',
  'fish',
  'csh',
  'tcsh',
]);
/**
 * The words inline interpreter code may hold and still reach no file and run no program: printing,
 * arithmetic and text, in the languages of INTERPRETERS. Any other word (`open`, `require`,
 * `import`, `system`, `eval`, ...) makes the code's reach known only when it runs.
 */
const INERT_CODE_WORDS = new Set(
  `print println puts say printf echo p pp console log info warn error debug dir table len length str
  int float bool abs round min max sum pow sqrt floor ceil range list dict tuple sorted reversed
  enumerate zip map filter reduce sort join split strip lstrip rstrip trim lower upper replace format
  startswith endswith includes slice substring toUpperCase toLowerCase toString toFixed Math JSON
  stringify parse Number String Array Object keys values entries Date now toISOString process
  version versions platform arch sys cwd uc lc ucfirst lcfirst chomp chop reverse sprintf scalar
  for in of if else elif while return lambda def const let var function true false True False None
  null undefined nil and or not x y z i j k n a b s v e f r u _ F`.split(/\s+/),
);
const INTERPRETERS: Record<string, string[]> = {
  python: ['-c'],
  python3: ['-c'],
  node: ['-e', '-p', '--eval', '--print'],
  perl: ['-e', '-E'],
  ruby: ['-e'],
  php: ['-r'],
  deno: ['eval'],
  bun: ['-e', '--eval'],
  lua: ['-e'],
  Rscript: ['-e'],
  julia: ['-e'],
  pwsh: ['-c', '-Command'],
  tclsh: [],
  wish: [],
  osascript: ['-e'],
};

/** Programs a wrapper or an unknown program may hand the rest of its words to (`strace -o x sh -c …`). */
const LAUNCHED = (name: string) =>
  SHELLS.has(name) ||
  name in INTERPRETERS ||
  READERS.has(name) ||
  SEARCHERS.has(name) ||
  SCRIPTED_READERS.has(name) ||
  COPIERS.has(name) ||
  WRITERS.has(name) ||
  CODE_RUNNERS.has(name) ||
  WRAPPERS.has(name) ||
  [
    'env',
    'xargs',
    'find',
    'git',
    'tar',
    'dd',
    'curl',
    'wget',
    'eval',
    'command',
    'timeout',
    'watch',
  ].includes(name);

/**
 * What one line's analysis has done so far, across every script and `find -exec` it follows (the
 * analysis is synchronous: one line at a time).
 */
interface Line {
  /** The scripts read through, by the path the system resolves them to. */
  scripts: Map<string, string>;
  /** Scripts read through so far, counting each time. */
  followed: number;
  /** Units of work (commands analysed, paths a pattern matched) before the line is too large. */
  work: number;
  /** `git ls-files` answers, by folder. */
  tracked: Map<string, string[] | null>;
  /** The line defines a function named as a program whose output is taken as known. */
  shadowed: boolean;
  /** The line sets a startup file for shells (`BASH_ENV`, `ENV`) to a value only its run knows. */
  unknownStartup: boolean;
  /**
   * Folders whose files a command of the line may change without naming them (`git pull`,
   * `patch`): not touches the gate decides, but a script in one may not be what it holds now.
   */
  mayChange: string[];
  /** The line sets PATH: a program named without a `/` may be any file it chose. */
  pathSet: boolean;
}
let line: Line = newLine();

function newLine(): Line {
  return {
    scripts: new Map(),
    followed: 0,
    work: 0,
    tracked: new Map(),
    shadowed: false,
    unknownStartup: false,
    mayChange: [],
    pathSet: false,
  };
}

/** Work one line may take (commands read through, paths its patterns match) before it is unknowable. */
const MAX_LINE_WORK = 20_000;

/** Thrown when a line is larger than MAX_LINE_WORK: what it reaches is known only when it runs. */
class LineTooLarge extends Error {}

function spend(units: number): void {
  line.work += units;
  if (line.work > MAX_LINE_WORK) throw new LineTooLarge();
}

/** Programs whose output `knownOutput` may take as known; a function of the line's own name hides them. */
const PATH_PRINTERS =
  /(?:^|[\s;&|(){}])(?:function\s+)?(?:dirname|basename|realpath|readlink|pwd|cd)\s*(?:\(\s*\)|\{)/;

/** What `text` reaches when a shell in `cwd` runs it; throws ShellSyntaxError when it cannot be parsed. */
export function reachOf(text: string, options: { cwd: string; home: string }): CommandReach {
  const reach: CommandReach = { touches: [], dynamic: [] };
  const scope: Scope = {
    cwd: options.cwd,
    home: options.home,
    vars: new Map([
      ['HOME', options.home],
      ['PWD', options.cwd],
    ]),
    dirs: [],
    also: [],
  };
  line = newLine();
  line.shadowed = PATH_PRINTERS.test(text);
  try {
    script(parse(text), scope, reach, 0);
  } catch (error) {
    if (!(error instanceof LineTooLarge)) throw error;
    reach.dynamic.push('a line too large to follow before it runs');
  }
  scriptsWritten(reach);
  return reach;
}

/**
 * A script read through is what the file holds now. If anything in the line writes it, or the
 * folder it is in, before or after (a loop, the background), it may hold something else when it
 * runs: that script's reach is known only then.
 */
function scriptsWritten(reach: CommandReach): void {
  if (line.scripts.size === 0) return;
  const written = [
    ...reach.touches.filter((t) => t.action === 'write' && !METADATA_ONLY.has(t.via)).map((t) => t.path),
    ...line.mayChange,
  ].map(realPath);
  for (const [real, given] of line.scripts) {
    if (written.some((w) => w === real || real.startsWith(`${w}/`)))
      reach.dynamic.push(`a script this line changes (${given})`);
  }
}

/** Writers that change a file's mode, owner or times, never what it holds: `chmod +x x.sh && ./x.sh`. */
const METADATA_ONLY = new Set(['chmod', 'chown', 'chgrp', 'touch', 'chattr', 'setfacl']);

/** Scripts nested deeper than this (`bash -c` in `eval` in …) are not followed: taken as dynamic. */
const MAX_NESTING = 8;

function script(s: Script, scope: Scope, reach: CommandReach, depth: number): void {
  for (const node of s.commands) visit(node, scope, reach, depth);
}

function visit(node: Node, scope: Scope, reach: CommandReach, depth: number): void {
  switch (node.kind) {
    case 'pipeline':
      for (const c of node.commands) visit(c, scope, reach, depth);
      return;
    case 'and_or': {
      const cwd = scope.cwd;
      const also = scope.also;
      visit(node.left, scope, reach, depth);
      if (node.op !== '&&' || scope.cwd === cwd) {
        visit(node.right, scope, reach, depth);
        return;
      }
      // After `&&` the right side runs only if the left did, `cd` included: not where it was. What
      // follows the whole may run either way.
      const after = scope.also;
      scope.also = after.filter((folder) => folder !== cwd || also.includes(cwd));
      visit(node.right, scope, reach, depth);
      scope.also = [...new Set([...scope.also, ...after])].filter((folder) => folder !== scope.cwd);
      return;
    }
    case 'subshell':
      script(node.body, fork(scope), reach, depth);
      return;
    case 'group':
      script(node.body, scope, reach, depth);
      return;
    case 'command':
      simple(node, scope, reach, depth);
  }
}

function valueOf(word: Word, scope: Scope, reach: CommandReach, depth: number): Value {
  let text: string | undefined = '';
  let glob = false;
  let braces = false;
  for (const part of word.parts) {
    switch (part.kind) {
      case 'text':
        if (!part.quoted && /[*?[]/.test(part.value)) glob = true;
        if (!part.quoted && /\{.*\}/s.test(part.value)) braces = true;
        if (text !== undefined) text += part.value;
        break;
      case 'tilde':
        // `~` is $HOME, which the line may have set; `~+` the working folder.
        if (part.user === '' && text !== undefined) text += scope.vars.get('HOME') ?? scope.home;
        else if (part.user === '+' && text !== undefined) text += scope.cwd;
        else text = undefined;
        break;
      case 'param': {
        const known = scope.vars.get(part.name);
        // Unquoted, a value is split into words and globbed: one holding a space or a wildcard (or
        // any value, once the line sets IFS) is several words only the run knows.
        const splits =
          !part.quoted && (scope.vars.has('IFS') || (known !== undefined && /[\s*?[]/.test(known)));
        if (known !== undefined && text !== undefined && !splits) text += known;
        else text = undefined;
        break;
      }
      case 'sub': {
        // The substitution runs: what it touches counts, and its output is not known, unless it
        // only names a folder or file of a known path (`$(dirname "$0")`, `$(pwd)`).
        const known = knownOutput(part.script, scope, reach, depth);
        if (known.handled) {
          if (known.output !== undefined && text !== undefined) text += known.output;
          else text = undefined;
          break;
        }
        if (depth < MAX_NESTING) script(part.script, fork(scope), reach, depth + 1);
        else reach.dynamic.push('a command nested too deep to follow');
        text = undefined;
        break;
      }
      case 'unknown':
        text = undefined;
    }
  }
  return { text, glob, braces };
}

/**
 * The output of a substitution that only prints a path it is given, when that path is known:
 * `dirname`, `basename`, `realpath` and `readlink -f` of a known word, `pwd`, and `cd DIR && pwd`.
 * Scripts start with `cd "$(dirname "$0")"`; without this, every path after it would be
 * unknowable. `handled` when the substitution was one of these, its output known or not: its words
 * have been read, so it need not run again.
 */
function knownOutput(
  s: Script,
  scope: Scope,
  reach: CommandReach,
  depth: number,
): { handled: false } | { handled: true; output: string | undefined } {
  if (line.shadowed || depth >= MAX_NESTING || s.commands.length !== 1) return { handled: false };
  const only = s.commands[0]!;
  // `cd DIR && pwd`: the folder, when the `cd` went there.
  if (
    only.kind === 'and_or' &&
    only.op === '&&' &&
    only.left.kind === 'command' &&
    only.right.kind === 'command' &&
    literal(only.left.words[0]) === 'cd' &&
    literal(only.right.words[0]) === 'pwd' &&
    only.right.words.length === 1 &&
    only.left.words.length === 2 &&
    !only.left.redirects.length &&
    !only.right.redirects.length
  ) {
    const to = valueOf(only.left.words[1]!, scope, reach, depth + 1);
    const known =
      to.text !== undefined && !to.glob && !to.braces && (isAbsolute(to.text) || !scope.also.length);
    return { handled: true, output: known ? absolute(to.text!, scope) : undefined };
  }
  if (only.kind !== 'command' || only.redirects.length || only.assignments.length) return { handled: false };
  const name = literal(only.words[0]);
  if (name === 'pwd' && only.words.length === 1) {
    // Where a `cd` may have failed, the folder is one of several: not known.
    return { handled: true, output: scope.also.length ? undefined : scope.cwd };
  }
  if (name !== 'dirname' && name !== 'basename' && name !== 'realpath' && name !== 'readlink')
    return { handled: false };
  const words = only.words.slice(1).map((w) => valueOf(w, scope, reach, depth + 1));
  // `--` ends the options; `readlink` prints a path only with -f, -e or -m.
  const options = words.filter((w) => w.text?.startsWith('-') && w.text !== '--');
  const operands = words.filter((w) => !w.text?.startsWith('-'));
  const arg = operands.length === 1 ? operands[0]! : undefined;
  const resolving = name === 'realpath' || options.some((o) => /^-[a-z]*[fem]/.test(o.text ?? ''));
  const plain = name === 'dirname' || name === 'basename' ? options.length === 0 : resolving;
  if (
    !arg ||
    arg.text === undefined ||
    arg.glob ||
    arg.braces ||
    !plain ||
    (name === 'readlink' && options.length !== 1)
  )
    return { handled: true, output: undefined };
  const text = arg.text;
  if (name === 'dirname') return { handled: true, output: dirname(text) };
  // basename strips trailing slashes; of `/` it is `/`.
  if (name === 'basename') return { handled: true, output: /^\/+$/.test(text) ? '/' : basename(text) };
  // realpath and readlink -f follow symlinks: only a path that is there resolves for sure.
  if (!isAbsolute(text) && scope.also.length) return { handled: true, output: undefined };
  try {
    return { handled: true, output: realpathSync(absolute(text, scope)) };
  } catch {
    return { handled: true, output: undefined };
  }
}

/** A word that is plain unquoted-or-quoted text, as written; undefined for anything else. */
function literal(word: Word | undefined): string | undefined {
  if (!word || !word.parts.every((p) => p.kind === 'text')) return undefined;
  return word.parts.map((p) => (p as { value: string }).value).join('');
}

/** The scope a script starts with when a shell of its own runs it: `$0` is the script as named. */
function ownShell(scope: Scope, named: string | undefined): Scope {
  const own = fork(scope);
  for (const name of ['0', 'BASH_SOURCE', 'BASH_SOURCE[0]']) {
    if (named === undefined) own.vars.delete(name);
    else own.vars.set(name, named);
  }
  return own;
}

/**
 * A shell's script operand: the first word that is not an option, skipping the values of the
 * options that take one (`-o pipefail`, `+O extglob`, `--rcfile FILE`).
 */
function shellScriptOf(args: Value[]): Value | undefined {
  for (let i = 0; i < args.length; i++) {
    const text = args[i]!.text;
    if (text === undefined) return args[i];
    if (text === '--') return args[i + 1];
    if (/^[-+][oO]$|^--(rcfile|init-file)$/.test(text)) i++;
    else if (text === '-' || !/^[-+]/.test(text)) return args[i];
  }
  return undefined;
}

/**
 * The files a shell reads before its commands: `BASH_ENV` (bash) and `ENV` (sh) name a script it
 * runs first, in its own shell.
 */
function startupFiles(scope: Scope, reach: CommandReach, depth: number): void {
  if (line.unknownStartup) reach.dynamic.push('a shell startup file (BASH_ENV) known only when it runs');
  for (const name of ['BASH_ENV', 'ENV']) {
    const file = scope.vars.get(name);
    if (file === undefined || file === '') continue;
    for (const path of pathsOf({ text: file, glob: false }, scope, reach)) {
      reach.touches.push({ action: 'read', path, via: name });
      followScript(path, fork(scope), reach, depth);
    }
  }
}

/** Shell builtins: never looked up in PATH. */
const BUILTINS = new Set(
  `cd pushd popd dirs echo printf export declare typeset local readonly set unset source . eval exec
  test [ [[ true false read alias unalias command builtin type shift return exit wait jobs kill pwd
  umask trap let getopts hash ulimit times shopt bind enable help logout mapfile readarray suspend
  disown fg bg caller compgen complete history : break continue`.split(/\s+/),
);

/** A script larger than this is not read through: what it does is taken as known only when it runs. */
const MAX_SCRIPT_BYTES = 64 * 1024;
/** Scripts one line may make svc read through, however they call each other. */
const MAX_SCRIPTS = 32;

/** What a file a line runs holds. */
type RunFile =
  | { kind: 'text'; text: string; whole: boolean }
  /** Nothing a shell runs as commands: a program (ELF), a folder. */
  | { kind: 'none' }
  | { kind: 'unknowable'; why: string };

function readRunFile(path: string): RunFile {
  let fd: number | undefined;
  try {
    // Without blocking: a named pipe opens at once rather than waiting for a writer.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const stat = fstatSync(fd);
    if (stat.isDirectory()) return { kind: 'none' };
    // A pipe, a terminal, /dev/stdin: what it holds is what comes when the line runs.
    if (!stat.isFile()) return { kind: 'unknowable', why: 'a script read from something other than a file' };
    const bytes = Buffer.alloc(Math.min(stat.size, MAX_SCRIPT_BYTES));
    const head = bytes.subarray(0, readSync(fd, bytes, 0, bytes.length, 0));
    if (head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x46) return { kind: 'none' };
    // Shells run a file with a NUL byte past its first line: svc cannot read it as one.
    if (head.includes(0)) return { kind: 'unknowable', why: 'a script svc cannot read as text' };
    return { kind: 'text', text: head.toString('utf8'), whole: stat.size <= MAX_SCRIPT_BYTES };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR'
      ? { kind: 'unknowable', why: 'a script that is not there before the line runs' }
      : { kind: 'unknowable', why: 'a script read from something other than a file' };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * A file the line runs as a shell script (`bash x.sh`, `source x.sh`, or `./x.sh` with no `#!`
 * line): what its commands reach, read from the file as it is now, in `scope` (a copy of the
 * caller's for a script that runs in a shell of its own). A script that is not a plain file,
 * larger than MAX_SCRIPT_BYTES, that svc cannot parse, or past MAX_SCRIPTS or MAX_NESTING reaches
 * what only its run knows; one the line changes is found so after the whole line is read
 * (`scriptsWritten`).
 */
function followScript(path: string, scope: Scope, reach: CommandReach, depth: number): void {
  const unknowable = (why: string) => void reach.dynamic.push(`${why} (${path})`);
  if (depth >= MAX_NESTING || line.followed >= MAX_SCRIPTS) {
    unknowable('scripts nested too deep, or too many, to follow');
    return;
  }
  line.followed++;
  const file = readRunFile(path);
  if (file.kind === 'none') return;
  if (file.kind === 'unknowable') return unknowable(file.why);
  if (!file.whole) return unknowable('a script too long to read through');
  line.scripts.set(realPath(path), path);
  if (PATH_PRINTERS.test(file.text)) line.shadowed = true;
  let parsed: Script;
  try {
    parsed = parse(file.text);
  } catch (error) {
    // A script nested past what the parser's stack holds is as unreadable as a syntax error.
    if (!(error instanceof ShellSyntaxError) && !(error instanceof RangeError)) throw error;
    return unknowable('a script svc cannot read through');
  }
  script(parsed, scope, reach, depth + 1);
}

/**
 * A file run by its path (`./x.sh`, as `named`): the system runs what its `#!` line names with the
 * rest of that line as one argument and the file after it, so that command is read as the line's
 * own: `#!/usr/bin/python3` is `python3 ./x.sh`, decided as a read of it, and `#!/bin/cat .env` a
 * read of `.env`. A shell's script (`#!/bin/sh`, `#!/usr/bin/env bash`, `#!/bin/bash -eu`, or no
 * `#!` line, which the calling shell runs) is read through with `$0` as named. A program runs as
 * itself.
 */
function runFile(path: string, named: string, scope: Scope, reach: CommandReach, depth: number): void {
  const file = readRunFile(path);
  if (file.kind === 'none') return;
  if (file.kind === 'unknowable') {
    reach.dynamic.push(`${file.why} (${path})`);
    return;
  }
  const shebang = /^#![ \t]*(\S+)(?:[ \t]+(.*?))?[ \t]*$/.exec(file.text.split('\n', 1)[0]!);
  let interpreter = shebang ? shebang[1]!.split('/').at(-1)! : 'sh';
  let argument = shebang?.[2] || undefined;
  if (interpreter === 'env' && argument && /^[^\s-]\S*$/.test(argument)) {
    interpreter = argument.split('/').at(-1)!;
    argument = undefined;
  }
  // Options that only change how a shell fails or traces (`-e`, `-eu`, `-x`): the script as it is.
  if (SHELLS.has(interpreter) && (argument === undefined || /^-[aefhkmnptuvxB]+$/.test(argument))) {
    followScript(path, ownShell(scope, named), reach, depth);
    return;
  }
  if (depth >= MAX_NESTING) {
    reach.dynamic.push(`scripts nested too deep, or too many, to follow (${path})`);
    return;
  }
  // The interpreter by its name: the program it is, not a file of the line's.
  const command = [shebang![1]!.split('/').at(-1)!, ...(shebang![2] ? [shebang![2]] : []), path];
  run(
    command.map((text) => ({ text, glob: false })),
    scope,
    reach,
    depth + 1,
  );
}

/** Folders of a pattern with a wildcard in them, beyond which it is not expanded (each may list many). */
const MAX_WILD_FOLDERS = 3;

/** Words a brace expression may make before the command is taken as reaching what only its run knows. */
const MAX_BRACE_WORDS = 256;

/** The paths a word names: its braces and glob expanded (as the shell would). */
function pathsOf(value: Value, scope: Scope, reach: CommandReach): string[] {
  if (value.text === undefined || value.text === '') return [];
  if (!value.braces) return globbed(value, scope, reach);
  const words = expand(value.text, { max: MAX_BRACE_WORDS + 1 });
  if (words.length > MAX_BRACE_WORDS) reach.dynamic.push(`braces making too many words (${value.text})`);
  // The text as written is checked too: quoted braces in the same word are not expanded.
  const texts = [...new Set([value.text, ...words.slice(0, MAX_BRACE_WORDS)])];
  return texts.flatMap((text) => globbed({ text, glob: value.glob }, scope, reach));
}

/** Matches one pattern may expand to before the command is taken as reaching what only its run knows. */
const MAX_GLOB_MATCHES = 1000;

/** The paths one word names, in every folder the line may be working in. */
function globbed(value: Value, scope: Scope, reach: CommandReach): string[] {
  if (value.text === undefined || value.text === '') return [];
  const folders = isAbsolute(value.text) ? [scope.cwd] : [scope.cwd, ...scope.also];
  return [...new Set(folders.flatMap((cwd) => globbedIn(value, cwd, reach)))];
}

/** The paths one word names from `cwd`: its glob expanded against the file system. */
function globbedIn(value: Value, cwd: string, reach: CommandReach): string[] {
  if (value.text === undefined || value.text === '') return [];
  if (value.glob) {
    // Without bash's `globstar` (off unless a script turns it on) `**` is `*`: one folder deep, not
    // every folder below, which a pattern such as `/**/x` would make a walk of the whole disk.
    const pattern = value.text.replace(/\*{2,}/g, '*');
    if (pattern.split('/').filter((part) => /[*?[]/.test(part)).length > MAX_WILD_FOLDERS) {
      reach.dynamic.push(`a pattern too wide to expand before it runs (${value.text})`);
    } else {
      let found: string[];
      try {
        found = globSync(pattern, { cwd });
      } catch {
        found = [];
      }
      // A listing of folders costs more than a command read: ten units, and one per match.
      spend(10 + found.length);
      if (found.length > MAX_GLOB_MATCHES) {
        reach.dynamic.push(`a pattern matching more than ${MAX_GLOB_MATCHES} paths (${value.text})`);
        found = [];
      }
      // No match: the shell passes the pattern on as it is.
      if (found.length) return found.map((f) => named(f, cwd));
    }
  }
  return [named(value.text, cwd)];
}

/**
 * The substitutions a here-document's lines run. With an unquoted delimiter the shell expands `$…`
 * and backquotes in them as it does inside double quotes: they are read as one double-quoted word.
 */
function heredocText(r: { target: Word; body?: string }, scope: Scope, reach: CommandReach, depth: number) {
  if (r.target.parts.some((p) => p.kind !== 'text' || p.quoted) || !r.body) return;
  if (!/[$`]/.test(r.body)) return;
  let word: Word | undefined;
  try {
    // A `"` is plain text in the lines but would end the word: read as `'`, which is plain text in
    // double quotes and quotes the same inside a substitution.
    const parsed = parse(`: "${r.body.replace(/"/g, "'")}"`).commands[0];
    word = parsed?.kind === 'command' ? parsed.words[1] : undefined;
  } catch (error) {
    if (!(error instanceof ShellSyntaxError)) throw error;
  }
  if (word) valueOf(word, scope, reach, depth);
  else reach.dynamic.push('a here-document whose text svc cannot read');
}

/**
 * `cd`, `pushd` and `popd`: where the commands after them run. A folder known only when the
 * command runs leaves every relative path after it unknowable.
 */
function changeFolder(program: string, given: Value[], scope: Scope, reach: CommandReach): void {
  // `cd`'s options: `-P` follows links first, then `..` from where they lead (as git's -C does);
  // `-L` (the default) takes `..` as written.
  let args = given;
  let linksFirst = false;
  while (args[0]?.text !== undefined && /^-[A-Za-z@]+$|^--$/.test(args[0].text)) {
    if (args[0].text.includes('P')) linksFirst = true;
    const done = args[0].text === '--';
    args = args.slice(1);
    if (done) break;
  }
  const arg = args[0];
  let target: string | undefined;
  if (program === 'popd') target = scope.dirs.pop();
  else if (!arg) {
    // `cd` alone goes home; `pushd` alone swaps the working folder with the last one pushed.
    if (program === 'cd') target = scope.vars.get('HOME') ?? scope.home;
    else {
      target = scope.dirs.pop();
      if (target !== undefined) scope.dirs.push(scope.cwd);
    }
  } else if (arg.text === '-') target = scope.vars.get('OLDPWD');
  else if (arg.text !== undefined && !arg.glob && !/^[+-]\d+$/.test(arg.text) && !scope.vars.has('CDPATH')) {
    if (program === 'pushd') scope.dirs.push(scope.cwd);
    target = linksFirst
      ? physical(isAbsolute(arg.text) ? arg.text : `${scope.cwd}/${arg.text}`)
      : absolute(arg.text, scope);
    // From any other folder the line may be in, the same relative `cd` leads elsewhere.
    if (!isAbsolute(arg.text)) scope.also.push(...scope.also.map((folder) => resolve(folder, arg.text!)));
  }
  if (target === undefined) {
    reach.dynamic.push(`${program} to a folder known only when it runs`);
    return;
  }
  // The `cd` may not happen: where the line was stays a place it may be.
  scope.also = [...new Set([...scope.also, scope.cwd])].filter((folder) => folder !== target);
  if (scope.also.length > MAX_FOLDERS) reach.dynamic.push(`${program} too many times to follow`);
  scope.vars.set('OLDPWD', scope.cwd);
  scope.vars.set('PWD', target);
  scope.cwd = target;
}

/** Whether inline code holds only INERT_CODE_WORDS, its plain string literals and perl's `s///` aside. */
function inertCode(code: string): boolean {
  // Letters past ASCII may be another spelling of a word (Python reads `ｏｐｅｎ` as `open`).
  if (/[^ -~\t\n\r]/.test(code)) return false;
  const bare = code
    // One-line literals with no interpolation in them (`{`, `$`, `@`, backquotes can run code
    // inside; a literal across lines may be a comment's quote pairing with code's).
    .replace(/(["'])(?:(?!\1)[^\\{}$@`\n]|\\[^{}$@`\n])*\1/g, ' ')
    // perl's substitutions and transliterations with any delimiter: `s/a/b/g`, `tr{a}{b}`; not
    // with `e`, which runs the replacement as code.
    .replace(/\b(?:s|y|tr)([^\w\s])(?:(?!\1)[^\\]|\\.)*\1(?:(?!\1)[^\\]|\\.)*\1(?![a-z]*e)[a-z]*/g, ' ');
  if (/`/.test(bare)) return false;
  return (bare.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).every((word) => INERT_CODE_WORDS.has(word));
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A folder `cd` goes to: bash's `cd` takes `..` as text (its default, `-L`), whatever the symlinks. */
const absolute = (path: string, scope: Scope) =>
  isAbsolute(path) ? resolve(path) : resolve(scope.cwd, path);

/**
 * A path a program is given, absolute but `..` left as written: the system follows a symlink
 * before it goes up from it, so the gate resolves it (resolve.ts) as the system will.
 */
function named(path: string, cwd: string): string {
  const full = isAbsolute(path) ? path : `${cwd}/${path}`;
  return full.split('/').includes('..') ? full : resolve(full);
}

function simple(
  node: Extract<Node, { kind: 'command' }>,
  scope: Scope,
  reach: CommandReach,
  depth: number,
): void {
  for (const r of node.redirects) {
    // Here-documents and here-strings carry text, not a path: only what runs to make that text counts.
    if (r.op === '<<<') {
      valueOf(r.target, scope, reach, depth);
      continue;
    }
    if (r.op === '<<' || r.op === '<<-') {
      heredocText(r, scope, reach, depth);
      continue;
    }
    const value = valueOf(r.target, scope, reach, depth);
    // `2>&1`, `<&0`, `>&-`: another file descriptor, not a file.
    if ((r.op === '<&' || r.op === '>&') && /^(\d+-?|-)$/.test(value.text ?? '')) continue;
    const actions: Touch['action'][] =
      r.op === '<' || r.op === '<&' ? ['read'] : r.op === '<>' ? ['read', 'write'] : ['write'];
    if (value.text === undefined)
      reach.dynamic.push(`a ${r.op} redirection to a path known only when it runs`);
    for (const path of pathsOf(value, scope, reach)) {
      for (const action of actions) reach.touches.push({ action, path, via: `${r.op} redirection` });
    }
  }
  spend(1);
  const assignmentValues = node.assignments.map((a) => ({
    name: a.name,
    value: valueOf(a.value, scope, reach, depth),
  }));
  for (const { name, value } of assignmentValues) {
    if (name === 'PATH') line.pathSet = true;
    if ((name === 'BASH_ENV' || name === 'ENV') && value.text === undefined) line.unknownStartup = true;
  }
  // `export BASH_ENV=$(…)`: a startup file only the run knows.
  if (/^(export|declare|typeset|local|readonly)$/.test(literal(node.words[0]) ?? '')) {
    for (const word of node.words.slice(1)) {
      if (/^(BASH_ENV|ENV)=/.test(word.raw) && valueOf(word, scope, reach, depth).text === undefined)
        line.unknownStartup = true;
      if (/^PATH=/.test(word.raw)) line.pathSet = true;
    }
  }
  const words = node.words.map((w) => ({ word: w, value: valueOf(w, scope, reach, depth) }));
  // Strip reserved words, and `for NAME in …` (its list is only values).
  while (words.length && words[0]!.value.text !== undefined && RESERVED.has(words[0]!.value.text!))
    words.shift();
  if (words.length === 0) {
    // `X=value` alone sets a variable for the commands after it.
    for (const { name, value } of assignmentValues) {
      if (value.text !== undefined) scope.vars.set(name, value.text);
      else scope.vars.delete(name);
    }
    return;
  }
  // Braces make words before anything else: `{cat,.env}` is `cat .env`.
  const values = words[0]!.value.braces
    ? words.flatMap(({ value }) =>
        value.braces && value.text !== undefined
          ? expand(value.text, { max: MAX_BRACE_WORDS }).map((text) => ({ text, glob: value.glob }))
          : [value],
      )
    : words.map((w) => w.value);
  // Variables set before a command are its own: a shell's startup file among them is read first
  // (the shell's branch reads it from its scope). A shell runs in a process of its own, so giving
  // it a copy of the scope changes nothing after it.
  // git's own variables set before it move its repository or work tree: the git branch reads them.
  // So do ripgrep's: a configuration file may turn its ignore files off.
  const gitVars = assignmentValues.filter((a) => isProgramVar(a.name));
  if (gitVars.length && ['git', 'rg'].includes(values[0]?.text?.split('/').at(-1) ?? '')) {
    const own = fork(scope);
    for (const { name, value } of gitVars) own.vars.set(name, value.text ?? '');
    run(values, own, reach, depth);
    return;
  }
  const startup = assignmentValues.filter((a) => a.name === 'BASH_ENV' || a.name === 'ENV');
  if (startup.length && SHELLS.has(values[0]?.text?.split('/').at(-1) ?? '')) {
    const own = fork(scope);
    for (const { name, value } of startup) if (value.text !== undefined) own.vars.set(name, value.text);
    run(values, own, reach, depth);
    return;
  }
  run(values, scope, reach, depth);
}

/** A command's words (after reserved words), run. */
function run(words: Value[], scope: Scope, reach: CommandReach, depth: number): void {
  const name = words[0]!.text;
  if (name === undefined) {
    reach.dynamic.push('a command whose name is known only when it runs');
    return;
  }
  const program = name.split('/').at(-1)!;
  const args = words.slice(1);
  // A program named by its path is a file the command runs: a script is read through, in every
  // folder the line may be in.
  if (name.includes('/')) {
    for (const path of pathsOf({ text: name, glob: false }, scope, reach)) {
      reach.touches.push({ action: 'run', path, via: name });
      runFile(path, name, scope, reach, depth);
    }
  } else if (line.pathSet && !BUILTINS.has(program)) {
    reach.dynamic.push(`${program} found through a PATH the line sets`);
  }
  const read = (value: Value, via = program, action: Touch['action'] = 'read', filter?: SearchFilter) => {
    if (value.text === undefined) {
      reach.dynamic.push(`${via} on a path known only when it runs`);
      return;
    }
    for (const path of pathsOf(value, scope, reach)) {
      // Reading a folder (a copy, an archive, a sync) reads everything in it.
      const touched = action === 'read' && isFolder(path) ? 'search' : action;
      reach.touches.push({
        action: touched,
        path,
        via,
        ...(touched === 'search' && filter ? { filter } : {}),
      });
    }
  };
  // After `--` every word is an operand, `-key.pem` too.
  const operands = (list: Value[]) => {
    const end = list.findIndex((v) => v.text === '--');
    const before = end === -1 ? list : list.slice(0, end);
    return [
      ...before.filter((v) => !(v.text ?? '').startsWith('-') || v.text === '-'),
      ...(end === -1 ? [] : list.slice(end + 1)),
    ];
  };
  if (program === 'for' || program === 'case' || program === 'esac' || program === 'select') return;
  // `--from-file=.env`, `--files0-from=list`: a path given as an option's value may be read.
  for (const [i, a] of args.entries()) {
    if (!HARMLESS.has(program)) {
      const m = a.text && /^--?[\w-]+=(.*[./].*)$/s.exec(a.text);
      if (m && !/^[a-z][a-z0-9+.-]*:\/\//i.test(m[1]!)) read({ text: m[1]!, glob: false }, program);
    }
    // An option that names a file of secrets, its value the next word, of any program, those that
    // read nothing else too (`docker run --env-file .env`).
    if (SECRET_FILE_OPTIONS.has(args[i - 1]?.text ?? '')) read(a, program);
  }
  if (program === 'alias' && args.length) {
    reach.dynamic.push('an alias, whose commands run when it is used');
    return;
  }
  // svc's own commands that give out what the rules keep from agents decide as the person at a
  // terminal, whose yes a program can type (`script`): in an agent's line, the client asks instead.
  const svcWords =
    program === 'svc'
      ? args
      : /^(node|nodejs|bun)$/.test(program) && /(?:^|\/)svc(?:\.js)?$/.test(args[0]?.text ?? '')
        ? args.slice(1)
        : undefined;
  if (svcWords) {
    const said = svcWords.map((a) => a.text ?? '').join(' ');
    if (/^(?:open|decrypt)\b|^(?:redact reverse|wrap restore|inbox open)\b/.test(said)) {
      const command = said
        .split(' ')
        .slice(0, /^(?:open|decrypt)\b/.test(said) ? 1 : 2)
        .join(' ');
      reach.dynamic.push(`svc ${command} giving out what the rules keep from agents`);
    }
    // `node …/bin/svc.js redact FILE` is `svc redact FILE`: the files it names are decided alike.
    if (program !== 'svc') {
      run([{ text: 'svc', glob: false }, ...svcWords], scope, reach, depth);
      return;
    }
  }
  if (program === 'cd' || program === 'pushd' || program === 'popd') {
    changeFolder(program, args, scope, reach);
    return;
  }
  if (program === 'command') {
    // `command -v NAME` and `-V` only say what NAME is; otherwise the rest runs as it would alone.
    if (args.some((a) => /^-[a-zA-Z]*[vV]/.test(a.text ?? ''))) return;
    const at = args.findIndex((a) => !(a.text ?? '').startsWith('-'));
    if (at >= 0) run(args.slice(at), scope, reach, depth);
    return;
  }
  if (program === 'export' || program === 'declare' || program === 'local') {
    for (const arg of args) {
      const m = arg.text && /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(arg.text);
      if (m) scope.vars.set(m[1]!, m[2]!);
    }
    return;
  }
  if (WRAPPERS.has(program) || program === 'timeout') {
    // Options may take values (`nice -n 5`, `timeout -s KILL 5`): the command starts at the first
    // word naming a program svc knows, else after the options.
    const known = args.findIndex(
      (a) => a.text !== undefined && (LAUNCHED(a.text.split('/').at(-1)!) || a.text.includes('/')),
    );
    const at =
      known >= 0
        ? known
        : args.findIndex((a, i) => !(a.text ?? '').startsWith('-') && (program !== 'timeout' || i > 0));
    if (at >= 0) run(args.slice(at), scope, reach, depth);
    return;
  }
  if (program === 'env') {
    // `env -S 'cmd args'` splits its value into the command.
    const split = args.findIndex(
      (a) => a.text === '-S' || a.text === '--split-string' || /^(-S|--split-string=)./.test(a.text ?? ''),
    );
    if (split >= 0) {
      const a = args[split]!.text!;
      const text =
        a === '-S' || a === '--split-string' ? args[split + 1]?.text : a.replace(/^(-S|--split-string=)/, '');
      if (text === undefined || depth >= MAX_NESTING)
        reach.dynamic.push('env -S running code known only when it runs');
      else script(parse(text), fork(scope), reach, depth + 1);
      return;
    }
    // `-C DIR` runs the command in another folder; `-u NAME` takes a value.
    if (args.some((a) => /^(-[a-zA-Z]*C|--chdir)/.test(a.text ?? ''))) {
      reach.dynamic.push('env running a command in a folder of its own');
      return;
    }
    const own = fork(scope);
    for (const a of args) {
      const m = a.text && /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(a.text);
      if (m?.[1] === 'PATH') line.pathSet = true;
      // git's and ripgrep's own variables, given through env as before a command: their branches read them.
      if (m && isProgramVar(m[1]!)) own.vars.set(m[1]!, m[2]!);
    }
    scope = own;
    const at = args.findIndex(
      (a, i) =>
        a.text === undefined ||
        (!/^-|^[A-Za-z_][A-Za-z0-9_]*=/.test(a.text) && !/^(-u|--unset)$/.test(args[i - 1]?.text ?? '')),
    );
    if (at >= 0) run(args.slice(at), scope, reach, depth);
    return;
  }
  const shellCode =
    SHELLS.has(program) || CODE_RUNNERS.has(program)
      ? args.findIndex((a) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a.text ?? '') || a.text === '--command')
      : -1;
  if (program === 'eval' || shellCode >= 0) {
    const codeAt = args.findIndex((a, i) => i > shellCode && !/^-/.test(a.text ?? ''));
    const code = program === 'eval' ? args : [codeAt >= 0 ? args[codeAt] : undefined];
    const text = code.every((c) => c?.text !== undefined) ? code.map((c) => c!.text).join(' ') : undefined;
    if (text === undefined || depth >= MAX_NESTING) {
      reach.dynamic.push(`${program} running code known only when it runs`);
      return;
    }
    if (program === 'eval') {
      script(parse(text), fork(scope), reach, depth + 1);
      return;
    }
    // `sh -c CODE NAME ARGS`: NAME is the code's `$0` (else the shell's own name).
    const zero = codeAt >= 0 && args[codeAt + 1] ? args[codeAt + 1]!.text : program;
    const own = ownShell(scope, zero);
    if (SHELLS.has(program)) startupFiles(own, reach, depth);
    script(parse(text), own, reach, depth + 1);
    return;
  }
  if (SHELLS.has(program)) {
    // Without a script file (or with `-s`, or `-` for one) a shell runs what comes on its input.
    const scriptFile = shellScriptOf(args);
    if (!scriptFile || scriptFile.text === '-' || args.some((a) => /^-[a-zA-Z]*s/.test(a.text ?? ''))) {
      reach.dynamic.push(`${program} running commands it reads from its input`);
      return;
    }
    read(scriptFile, program);
    const own = ownShell(scope, scriptFile.text);
    startupFiles(own, reach, depth);
    for (const path of pathsOf(scriptFile, scope, reach)) followScript(path, fork(own), reach, depth);
    return;
  }
  if (program === 'source' || program === '.') {
    // Run in this shell: its `cd` and variables hold for the rest of the line. A name without a
    // `/` is looked for in PATH first, as bash does.
    const [file, ...rest] = operands(args);
    if (!file) return;
    read(file, program);
    const inPath =
      file.text !== undefined && !file.text.includes('/')
        ? (scope.vars.get('PATH') ?? process.env.PATH ?? '')
            .split(':')
            .filter((folder) => isAbsolute(folder))
            .map((folder) => join(folder, file.text!))
            .filter(existsPath)
        : [];
    // Inside it, BASH_SOURCE names it; after it, the caller again.
    const caller = ['BASH_SOURCE', 'BASH_SOURCE[0]'].map((name) => [name, scope.vars.get(name)] as const);
    for (const path of [...new Set([...inPath, ...pathsOf(file, scope, reach)])]) {
      if (inPath.includes(path)) reach.touches.push({ action: 'read', path, via: program });
      if (file.text !== undefined) for (const [name] of caller) scope.vars.set(name, file.text);
      followScript(path, scope, reach, depth);
    }
    for (const [name, value] of caller) {
      if (value === undefined) scope.vars.delete(name);
      else scope.vars.set(name, value);
    }
    for (const f of rest) read(f, program);
    return;
  }
  if (CODE_RUNNERS.has(program)) {
    // `flock FILE COMMAND…` runs COMMAND; the others without `-c` start a shell of their own.
    if (program === 'flock' && operands(args).length > 1) run(operands(args).slice(1), scope, reach, depth);
    else reach.dynamic.push(`${program} running commands known only when it runs`);
    return;
  }
  if (program === 'watch') {
    // watch hands its words, joined, to `sh -c`.
    const rest = args.filter(
      (a, i) => !/^-/.test(a.text ?? '') && !/^(-n|--interval)$/.test(args[i - 1]?.text ?? ''),
    );
    const text = rest.every((a) => a.text !== undefined) ? rest.map((a) => a.text).join(' ') : undefined;
    if (text === undefined || depth >= MAX_NESTING)
      reach.dynamic.push('watch running code known only when it runs');
    else script(parse(text), fork(scope), reach, depth + 1);
    return;
  }
  if (WRITERS.has(program)) {
    for (const f of operands(args)) read(f, program, 'write');
    return;
  }
  if (program === 'xargs') {
    const at = args.findIndex((a) => !(a.text ?? '').startsWith('-'));
    if (at >= 0) run(args.slice(at), scope, reach, depth);
    reach.dynamic.push('xargs feeding items known only when it runs to a command');
    return;
  }
  if (program === 'find') {
    // Options before the folders: how links are followed (`-L`, `-H`, `-P`), `-D what`, `-O3`.
    let first = 0;
    while (/^-(?:[LHP]|D|O\d*)$/.test(args[first]?.text ?? '')) first += args[first]!.text === '-D' ? 2 : 1;
    if (args[first]?.text === '--') first++;
    const rest = args.slice(first);
    // `-files0-from FILE`: the folders are the ones the file names.
    const listed = rest.findIndex((a) => a.text === '-files0-from');
    if (listed >= 0) {
      if (rest[listed + 1]) read(rest[listed + 1]!, 'find');
      reach.dynamic.push('find on folders a file lists');
      return;
    }
    const firstExpression = rest.findIndex((a) => /^[-(!]/.test(a.text ?? '-'));
    const roots = firstExpression === -1 ? rest : rest.slice(0, firstExpression);
    const filter = firstExpression === -1 ? undefined : findFilter(rest.slice(firstExpression));
    for (const root of roots.length ? roots : [{ text: '.', glob: false }])
      read(root, 'find', 'search', filter);
    const exec = args.findIndex((a) => /^-(?:exec|execdir|ok|okdir)$/.test(a.text ?? ''));
    // `-delete` removes what it finds, and a command run on each may change it: writes of the roots.
    if (exec >= 0 || args.some((a) => a.text === '-delete')) {
      for (const root of roots.length ? roots : [{ text: '.', glob: false }]) read(root, 'find', 'write');
    }
    // `-fprint FILE`, `-fls FILE`: the list goes into a file.
    for (const [i, a] of args.entries())
      if (/^-f(print0?|printf|ls)$/.test(args[i - 1]?.text ?? '')) read(a, 'find', 'write');
    if (exec >= 0) {
      const end = args.findIndex((a, i) => i > exec && (a.text === ';' || a.text === '+'));
      const inner = args.slice(exec + 1, end === -1 ? undefined : end).filter((a) => a.text !== '{}');
      // `-execdir` runs in each found file's folder: a word naming anything there is known only then.
      if (/dir$/.test(args[exec]!.text!) && inner.slice(1).some((a) => !(a.text ?? '-').startsWith('-'))) {
        reach.dynamic.push("find -execdir on paths from each found file's folder");
        return;
      }
      if (inner.length) {
        const innerReach: CommandReach = { touches: [], dynamic: [] };
        run(inner, scope, innerReach, depth);
        reach.touches.push(...innerReach.touches);
        reach.dynamic.push(...innerReach.dynamic);
        // What the inner command does to each found file is a read of the folders searched.
        for (const root of roots.length ? roots : [{ text: '.', glob: false }])
          read(root, `find -exec ${inner[0]!.text}`, 'search', filter);
      }
    }
    return;
  }
  if (SEARCHERS.has(program)) {
    // ripgrep's preprocessor runs a command of the line's choosing on every file.
    if (program === 'rg' && args.some((a) => /^--pre(?:=|$)/.test(a.text ?? ''))) {
      reach.dynamic.push('rg running a preprocessor on the files it reads');
      return;
    }
    const endOfOptions = args.findIndex((a) => a.text === '--');
    const options = (endOfOptions === -1 ? args : args.slice(0, endOfOptions)).filter((a) =>
      (a.text ?? '').startsWith('-'),
    );
    // rg's `--files` lists the files it would search: it takes no pattern, only folders.
    // A pattern given by an option (`-e`, `-f`, also joined: `-eTOKEN`, `-rfpats`) leaves every
    // other word a file or folder.
    const patternFromOption = options.some(
      (o) =>
        ['--file', '--files'].includes(o.text!) ||
        // `--regexp` as GNU's options may be shortened (`--regex=TOKEN`).
        /^--reg[a-z]*(?:=|$)|^--file=/.test(o.text!) ||
        /^-[a-zA-Z]*[ef]/.test(o.text!),
    );
    const takesValue = (option: string) =>
      (program === 'rg' ? RIPGREP_VALUE_OPTIONS : GREP_VALUE_OPTIONS).has(option);
    const rest = operands(args.filter((a, i) => !takesValue(args[i - 1]?.text ?? '')));
    const targets = patternFromOption ? rest : rest.slice(1);
    for (const [i, a] of args.entries()) {
      if (/^(-[a-zA-Z]*f|--file)$/.test(args[i - 1]?.text ?? '')) read(a, program);
      const joined = /^(?:-[a-zA-Z]*f|--file=)(.+)$/s.exec(a.text ?? '');
      if (joined) read({ text: joined[1]!, glob: false }, program);
    }
    const recursive =
      program !== 'grep' && program !== 'egrep' && program !== 'fgrep'
        ? true
        : // `--recursive` and `--dereference-recursive` as far as they may be shortened.
          options.some((o) => /^-[a-zA-Z]*[rR]|^--(?:rec|der)/.test(o.text!)) ||
          // `-d recurse`, `--directories=recurse`, shortened too (`-d rec`, `--dir=rec`): as `-r`.
          args.some(
            (a, i) =>
              /^(?:--di[a-z]*=|-d)rec/.test(a.text ?? '') ||
              (/^rec/.test(a.text ?? '') && /^(?:-d|--di[a-z]*)$/.test(args[i - 1]?.text ?? '')),
          );
    const filter =
      program === 'rg'
        ? ripgrepFilter(args, scope)
        : recursive && program !== 'ag' && program !== 'ack'
          ? grepFilter(args)
          : undefined;
    // A word only the run knows may be an option, so the word after it the pattern, and no folder
    // named at all: the working folder is searched too.
    const unknown = args.some((a) => a.text === undefined);
    if ((targets.length === 0 || unknown) && recursive)
      read({ text: '.', glob: false }, program, 'search', unknown ? undefined : filter);
    for (const t of targets) read(t, program, recursive ? 'search' : 'read', filter);
    return;
  }
  if (SCRIPTED_READERS.has(program)) {
    const scriptFile = args.findIndex((a) => a.text === '-f');
    if (scriptFile >= 0 && args[scriptFile + 1]) read(args[scriptFile + 1]!, program);
    // `-e`, bundled (`-nep`) or as `--expression=…`: the program text comes with an option.
    const explicitProgram = args.some(
      (a) => /^-[a-zA-Z]*[ef]/.test(a.text ?? '') || /^--(expression|file)(=|$)/.test(a.text ?? ''),
    );
    // Program texts that open files or run commands by names of their own (awk's getline, system
    // and pipes; sed's r, w and e) reach what only the run knows.
    const texts = args.filter((a) => !(a.text ?? '').startsWith('-') || /^-[a-zA-Z]*e./.test(a.text ?? ''));
    const opens =
      program === 'sed'
        ? /(^|[;{}\n\s\d$/])[rRwWe](\s|$)|\/[gpIiMm\d]*[ew]/
        : /getline|system|close|fflush|[|>]|"\s*<|\bprint[^;]*>/;
    if (
      program !== 'jq' &&
      program !== 'yq' &&
      texts.some((a) => a.text === undefined || opens.test(a.text))
    ) {
      reach.dynamic.push(`${program} with a program that may open files or run commands`);
    }
    const rest = operands(
      args.filter(
        (_, i) =>
          !['-e', '-f', '--expression', '-F', '-v', '--arg', '--argjson'].includes(args[i - 1]?.text ?? ''),
      ),
    );
    const files = explicitProgram ? rest : rest.slice(1);
    for (const f of files) read(f, program);
    const inPlace = program === 'sed' && args.some((a) => /^-[a-zA-Z]*i|^--in-place/.test(a.text ?? ''));
    if (inPlace) for (const f of files) read(f, program, 'write');
    return;
  }
  if (program === 'sort' || program === 'xxd') {
    // `sort -o FILE` writes FILE; `xxd -r IN OUT` writes OUT.
    for (const [i, a] of args.entries()) {
      if (program === 'sort' && (args[i - 1]?.text === '-o' || args[i - 1]?.text === '--output'))
        read(a, program, 'write');
      const joined = program === 'sort' && /^--output=(.+)$/.exec(a.text ?? '');
      if (joined) read({ text: joined[1]!, glob: false }, program, 'write');
    }
    const files = operands(args.filter((_, i) => !/^(-o|--output)$/.test(args[i - 1]?.text ?? '')));
    const reverse = program === 'xxd' && args.some((a) => /^-[a-zA-Z]*r/.test(a.text ?? ''));
    for (const [i, f] of files.entries()) {
      if (f.text === '-') continue;
      read(f, program, reverse && i === 1 ? 'write' : 'read');
    }
    return;
  }
  if (program === 'patch') {
    // The files a patch changes are named inside it.
    line.mayChange.push(scope.cwd, ...scope.also);
    for (const [i, a] of args.entries()) if (/^(-i|--input)$/.test(args[i - 1]?.text ?? '')) read(a, program);
    return;
  }
  if (READERS.has(program)) {
    // An editor's `+cmd`, `-c cmd` or script runs editor commands, which read and write files.
    if (
      ['vi', 'vim', 'view', 'nano', 'emacs'].includes(program) &&
      args.some((a) => /^\+.|^-[cSs]$|^--cmd$|^--eval|^-l$|^--load/.test(a.text ?? ''))
    ) {
      reach.dynamic.push(`${program} running editor commands`);
    }
    for (const f of operands(args)) if (f.text !== '-') read(f, program);
    return;
  }
  if (['npm', 'npx', 'pnpm', 'yarn'].includes(program)) {
    // `npx -c 'cmd'`, `npm exec -c 'cmd'` run a command line.
    const call = args.findIndex((a) => a.text === '-c' || a.text === '--call');
    if (call >= 0) {
      const text = args[call + 1]?.text;
      if (text === undefined || depth >= MAX_NESTING)
        reach.dynamic.push(`${program} running code known only when it runs`);
      else script(parse(text), fork(scope), reach, depth + 1);
      return;
    }
    // `npx PKG ARGS`, `npm exec PKG`, `pnpm dlx PKG`, `yarn dlx PKG`: the package's program runs
    // with the arguments, which are decided as its own (`npx dotenv -e .env -- node x.js`).
    const runner = program === 'npx' ? 0 : ['exec', 'dlx'].includes(args[0]?.text ?? '') ? 1 : -1;
    if (runner >= 0) {
      const rest = args.slice(runner);
      const at = rest.findIndex(
        (a, i) =>
          a.text === undefined ||
          (!a.text.startsWith('-') && !['-p', '--package'].includes(rest[i - 1]?.text ?? '')),
      );
      if (at >= 0) {
        if (rest[at]!.text === undefined)
          reach.dynamic.push(`${program} running a package named only when it runs`);
        else run(rest.slice(at + (rest[at + 1]?.text === '--' ? 1 : 0)), scope, reach, depth);
      }
    }
    return;
  }
  if (program === 'make') {
    // A makefile runs its recipes; one given by name is read, one given as text is unknowable.
    if (args.some((a) => /^--eval/.test(a.text ?? '')))
      reach.dynamic.push('make running recipes given as text');
    for (const [i, a] of args.entries()) {
      if (['-f', '--file', '--makefile'].includes(args[i - 1]?.text ?? '')) read(a, program);
    }
    return;
  }
  if (COPIERS.has(program)) {
    // A link is a lasting second name for its source: made, it reads the same content by another
    // path, so making one is a read of the source. A move also takes the source away: a write.
    const targetAt = args.findIndex((a) => a.text === '-t' || a.text === '--target-directory');
    const target =
      targetAt >= 0 ? args[targetAt + 1] : args.find((a) => /^--target-directory=/.test(a.text ?? ''));
    const files = operands(args.filter((a) => a !== target));
    const sources = target ? files : files.slice(0, -1);
    for (const f of sources) {
      if (/^[^/]*:/.test(f.text ?? '')) continue;
      read(f, program);
      if (program === 'mv') read(f, program, 'write');
    }
    if (target) read({ ...target, text: target.text?.replace(/^--target-directory=/, '') }, program, 'write');
    else if (files.length > 1) read(files.at(-1)!, program, 'write');
    // `ln FILE` alone names FILE again in the working folder.
    if (!target && files.length === 1 && (program === 'ln' || program === 'link')) read(files[0]!, program);
    return;
  }
  if (program === 'tee') {
    for (const f of operands(args)) read(f, program, 'write');
    return;
  }
  if (program === 'tar') {
    // The mode may be in any bundle of letters (`tar -h -cf`), the first word's without a dash.
    const bundles = args.filter(
      (a, i) => /^-[a-zA-Z]+$/.test(a.text ?? '') || (i === 0 && /^[a-zA-Z]+$/.test(a.text ?? '')),
    );
    const modes = bundles.map((a) => a.text!.replace(/^-/, '').replace(/f.*$/, '')).join('');
    const has = (mode: string, long: string) => modes.includes(mode) || args.some((a) => a.text === long);
    if (has('x', '--extract') || has('x', '--get')) {
      // What an archive holds is known only when it runs; where it goes (-C) is written.
      reach.dynamic.push('tar extracting files an archive names');
      const dir = args.findIndex((a) => a.text === '-C' || a.text === '--directory');
      read(dir >= 0 && args[dir + 1] ? args[dir + 1]! : { text: '.', glob: false }, 'tar', 'write');
    }
    const creating =
      /[cru]/.test(modes) || ['--create', '--append', '--update'].some((l) => args.some((a) => a.text === l));
    if (!creating) return;
    const fileFlag = args.findIndex((a) => /^-?[a-zA-Z]*f$/.test(a.text ?? '') || a.text === '--file');
    for (const [i, f] of args.entries()) {
      if (bundles.includes(f) || i === fileFlag + 1 || (f.text ?? '').startsWith('-')) continue;
      read(f, 'tar');
    }
    return;
  }
  if (program === 'dd') {
    for (const a of args) {
      const m = a.text && /^(if|of)=(.*)$/s.exec(a.text);
      if (m) read({ text: m[2]!, glob: false }, 'dd', m[1] === 'if' ? 'read' : 'write');
    }
    return;
  }
  if (program === 'curl' || program === 'wget' || program === 'http') {
    for (const [i, a] of args.entries()) {
      const text = a.text ?? '';
      const prev = args[i - 1]?.text ?? '';
      // A file:// URL is a read of that file.
      const local = /^file:\/\/(?:localhost)?(\/.*)$/i.exec(text);
      if (local) read({ text: decodeURIComponent(local[1]!), glob: false }, program);
      const at = /@([^;]+)/.exec(text);
      if (
        at &&
        [
          '-F',
          '--form',
          '-d',
          '--data',
          '--data-binary',
          '--data-raw',
          '--data-urlencode',
          '--json',
        ].includes(prev)
      ) {
        read({ text: at[1]!, glob: false }, program);
      }
      if (['-T', '--upload-file', '-K', '--config', '-i', '--input-file'].includes(prev)) read(a, program);
      const post = /^--(post-file|body-file)=(.*)$/.exec(text);
      if (post) read({ text: post[2]!, glob: false }, program);
      // The file a download is written to: curl's `-o FILE` (bundled too: `-fsSLo FILE`), wget's
      // `-O FILE`; `--output=FILE`, `--output-document=FILE`.
      const output =
        program === 'wget'
          ? prev === '-O' || prev === '--output-document'
          : /^-[a-zA-Z]*o$/.test(prev) || prev === '--output';
      if (output) read(a, program, 'write');
      const joined = /^--(output|output-document)=(.+)$/.exec(text);
      if (joined) read({ text: joined[2]!, glob: false }, program, 'write');
    }
    // Without a file named, curl -O and wget write into the working folder, under the name the
    // address ends with.
    const named = args.some((a) =>
      program === 'wget'
        ? /^(-[a-zA-Z]*O|--output-document)/.test(a.text ?? '')
        : /^-[a-zA-Z]*o$|^--output/.test(a.text ?? ''),
    );
    const remoteName =
      program === 'wget' ? !named : args.some((a) => /^-[a-zA-Z]*O$|^--remote-name/.test(a.text ?? ''));
    if (remoteName) {
      for (const a of args) {
        const url = /^https?:\/\/[^/]+\/(?:.*\/)?([^/?#]+)(?:[?#].*)?$/i.exec(a.text ?? '');
        if (url) read({ text: decodeURIComponent(url[1]!), glob: false }, program, 'write');
      }
    }
    return;
  }
  if (program === 'git') {
    // A repository or work tree set elsewhere (`GIT_DIR`, `GIT_WORK_TREE`, `--git-dir` alone,
    // `core.worktree`): which files a command shows is known only when it runs.
    if ([...scope.vars.keys()].some((name) => GIT_PLACES.test(name))) {
      reach.dynamic.push('git on a repository or work tree its variables set');
      return;
    }
    // A command git runs for its variables (`GIT_EXTERNAL_DIFF`, `GIT_EDITOR`, `GIT_PAGER`, …).
    if ([...scope.vars.keys()].some((name) => GIT_COMMANDS.test(name))) {
      reach.dynamic.push('git running a command its variables name');
      return;
    }
    // Global options before the subcommand, with their values: `-C path`, `-c name=value`,
    // `--work-tree=path` (or with the value as the next word).
    let at = 0;
    /** Where git works when an option moves it (`-C`, `--work-tree`), in order. */
    const moves: Value[] = [];
    while (at < args.length && (args[at]!.text ?? '').startsWith('-')) {
      const word = args[at]!.text!;
      const equals = word.startsWith('--') ? word.indexOf('=') : -1;
      const option = equals > 0 ? word.slice(0, equals) : word;
      const value =
        equals > 0
          ? { text: word.slice(equals + 1), glob: false }
          : ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path'].includes(option)
            ? args[++at]
            : undefined;
      // An alias that starts with `!` runs a shell command.
      if (option === '-c' && (value?.text === undefined || /^alias\..*=\s*!/i.test(value.text)))
        reach.dynamic.push('git running a command an alias gives');
      if (option === '-c' && /^core\.worktree=/i.test(value?.text ?? '')) {
        reach.dynamic.push('git on a work tree its options set');
        return;
      }
      // A setting that names a command git runs (`core.fsmonitor`, `core.pager`, `diff.external`,
      // `protocol.ext.allow`, …), or programs from another folder (`--exec-path=`).
      if (
        (option === '-c' && (value?.text === undefined || GIT_COMMAND_SETTINGS.test(value.text))) ||
        (option === '--exec-path' && value !== undefined)
      ) {
        reach.dynamic.push('git running a command its options name');
        return;
      }
      if (option === '-C') moves.push(value ?? { text: undefined, glob: false });
      // Another repository, or another work tree for this one (history from here, files from
      // there): which files a command shows is known only when it runs.
      if (option === '--git-dir' || option === '--work-tree') {
        reach.dynamic.push('git on a repository or work tree its options set');
        return;
      }
      at++;
    }
    // git working elsewhere reads the paths it is given from there: decided as run in that folder,
    // reached as git reaches it (a link followed, then `..` from where it leads).
    if (moves.length > 0) {
      if (moves.some((m) => m.text === undefined)) {
        reach.dynamic.push('git working in a folder known only when it runs');
        return;
      }
      const folders = [scope.cwd, ...scope.also].map((cwd) =>
        moves.reduce(
          (from, move) => physical(isAbsolute(move.text!) ? move.text! : `${from}/${move.text!}`),
          cwd,
        ),
      );
      for (const cwd of new Set(folders)) {
        run([words[0]!, ...args.slice(at)], { ...fork(scope), cwd, also: [] }, reach, depth);
      }
      return;
    }
    const sub = args[at]?.text;
    // `git --version`, `git --help`: no subcommand, nothing read.
    if (sub === undefined) return;
    // In a repository's own `.git` folder git shows the repository's content, not the files there.
    if (/(?:^|\/)\.git(?:\/|$)/.test(scope.cwd)) {
      reach.dynamic.push('git run inside a repository\u2019s .git folder');
      return;
    }
    // `git config core.fsmonitor …`: a command the next git runs.
    if (
      sub === 'config' &&
      args.slice(at + 1).some((a) => a.text === undefined || GIT_COMMAND_KEYS.test(a.text))
    ) {
      reach.dynamic.push('git config naming a command a later git runs');
      return;
    }
    if (!GIT_KNOWN.has(sub)) {
      // An alias (`git config alias.z '!cat .env'`, then `git z`) or a command svc does not know.
      reach.dynamic.push(`git ${sub} (a subcommand svc does not know, or an alias)`);
      return;
    }
    if (GIT_RUNS.has(sub) || (sub === 'rebase' && args.some((a) => /^(-x|--exec)/.test(a.text ?? '')))) {
      reach.dynamic.push(`git ${sub} running commands it is given`);
      return;
    }
    if (GIT_SHOWS_HISTORY.has(sub)) {
      // Plumbing that prints what is committed: the whole folder's history.
      read({ text: '.', glob: false }, `git ${sub}`, 'search');
      return;
    }
    if (sub === 'merge-file' || sub === 'hash-object') {
      for (const f of operands(args.slice(at + 1))) read(f, `git ${sub}`);
      return;
    }
    if (sub === 'add') {
      // What is added is read into the repository (and from there, shown by any git command).
      for (const f of operands(args.slice(at + 1))) read(f, 'git add');
    }
    // These change the working tree's files without naming them: a script there may not be what
    // it holds now.
    if (
      [
        'switch',
        'pull',
        'merge',
        'rebase',
        'apply',
        'am',
        'cherry-pick',
        'revert',
        'checkout',
        'reset',
        'restore',
      ].includes(sub ?? '') ||
      (sub === 'stash' && args.some((a) => a.text === 'pop' || a.text === 'apply'))
    ) {
      line.mayChange.push(scope.cwd, ...scope.also);
    }
    if (sub === 'clean' || sub === 'checkout' || sub === 'restore' || sub === 'reset') {
      // These remove or overwrite files of the working tree: the paths given, or all of it.
      const paths = operands(args.slice(at + 1)).filter((a) => a.text !== '--');
      if (paths.length) for (const p of paths) read(p, `git ${sub}`, 'write');
      else if (sub === 'clean' || args.some((a) => a.text === '--hard' || a.text === '-f' || a.text === '.'))
        reach.dynamic.push(`git ${sub} changing files of the working tree`);
    }
    const revisionPaths = args.filter((a) => a.text && /^[^:\s-][^:\s]*:(.+)$/.test(a.text));
    if (sub === 'cat-file' || (sub === 'show' && revisionPaths.length)) {
      // `REV:path` names a path from the repository's root (`./path` and `../path` from here).
      const top = repositoryRoot(scope.cwd);
      for (const a of revisionPaths) {
        const path = /:(.+)$/.exec(a.text!)![1]!;
        const named = /^\.\.?\//.test(path) || isAbsolute(path) ? path : join(top, path);
        read({ text: named, glob: false }, `git ${sub}`);
      }
      if (sub === 'cat-file') reach.dynamic.push('git cat-file reading an object by id');
    } else if (['diff', 'log', 'grep', 'blame', 'archive', 'stash', 'show'].includes(sub ?? '')) {
      // The paths named (after `--`, or words after the subcommand that are there; the others are
      // revisions). Without any: a log without patches shows no content; what shows only the
      // working tree (diff and grep without revisions, stash) shows the files git tracks, never an
      // untracked .env beside them; what shows history (show, archive, log -p, revisions) may show
      // any file ever committed, so it is a search of the whole folder.
      const after = args.findIndex((a) => a.text === '--');
      const given = operands(args.slice(at + 1, after >= 0 ? after : undefined));
      // git grep's first word is its pattern, unless an option gives it.
      const patternGiven = args.some((a) => /^(-e|-f|--regexp|--file)$/.test(a.text ?? ''));
      const words = sub === 'grep' && !patternGiven ? given.slice(1) : given;
      const there = words.filter((a) => globbed(a, scope, reach).some(existsPath));
      // A pathspec's magic (`:(top)`, `:!src`) or pattern (`'sec*'`) is matched by git, not the
      // shell: the folder is searched.
      const named = after >= 0 ? args.slice(after + 1) : there;
      const pathspecs = named.some((a) => a.text === undefined || /^:|[*?[]/.test(a.text));
      const paths = pathspecs ? [{ text: '.', glob: false }] : named;
      const revisions = words.length > there.length && sub !== 'stash';
      // Names and counts only (`--stat`, `--name-only`, `-s`, `stash list`): no content shows.
      // (`-s` is no patch to diff, show and log; to grep it is quiet errors, so grep is not here.)
      const namesOnly =
        (sub === 'stash' && args.slice(at + 1).some((a) => a.text === 'list')) ||
        (['diff', 'show', 'log', 'stash'].includes(sub) &&
          args.some((a) =>
            /^(--stat|--name-only|--name-status|--numstat|--shortstat|--summary|--no-patch|-s|--dirstat(=.*)?|--compact-summary)$/.test(
              a.text ?? '',
            ),
          ));
      const patches = args.some((a) =>
        /^(-p|-u|--patch|--patch-with-stat|--patch-with-raw|-U\d*|--unified(=\d+)?|--cc|-c|-m|-W|--function-context|--full-diff|-L.*|--follow)$/.test(
          a.text ?? '',
        ),
      );
      if (sub === 'log' && !patches) return;
      if (namesOnly && !patches) return;
      const history = sub === 'show' || sub === 'archive' || sub === 'log' || revisions;
      const untracked = args.some((a) =>
        /^(-u|-a|--all|--include-untracked|--untracked|--no-index)$/.test(a.text ?? ''),
      );
      const tracked = paths.length || history || untracked ? null : trackedOnce(scope.cwd);
      if (paths.length) for (const p of paths) read(p, `git ${sub}`, sub === 'blame' ? 'read' : 'search');
      else if (tracked)
        for (const path of tracked) reach.touches.push({ action: 'read', path, via: `git ${sub}` });
      else read({ text: '.', glob: false }, `git ${sub}`, 'search');
    }
    return;
  }
  const flags = INTERPRETERS[program] ?? (/^python3?(\.\d+)?$/.test(program) ? ['-c'] : undefined);
  if (flags) {
    // Flags may come bundled (`perl -ne`): the code flag is then the bundle's last letter.
    const bundled = (text: string) =>
      flags.some((f) => /^-[a-zA-Z]$/.test(f) && new RegExp(`^-[a-zA-Z]+${f[1]}$`).test(text));
    const at = args.findIndex((a) => flags.includes(a.text ?? '') || bundled(a.text ?? ''));
    // `--eval=code`, `--print=code`: the code is the option's value.
    const joined = args.find((a) => /^--(eval|print)=/.test(a.text ?? ''));
    if (at >= 0 || joined) {
      const code = joined ? joined.text!.replace(/^--(eval|print)=/, '') : args[at + 1]?.text;
      if (code === undefined) {
        reach.dynamic.push(`${program} running code known only when it runs`);
        return;
      }
      // Inline code: every string literal in it that names a path is taken as read.
      for (const literal of code.matchAll(/(["'`])((?:(?!\1)[^\\\n]|\\.){1,1024})\1/g)) {
        // Open modes in front of a path (`"<.env"` in perl) are not part of it.
        const text = literal[2]!.replace(/^(\+?[<>]{1,2}|\|)\s*/, '');
        if (/^[\w.~/-][\w.~/@+-]*$/.test(text) && /[./]/.test(text)) {
          read(
            { text: text.startsWith('~/') ? join(scope.home, text.slice(2)) : text, glob: false },
            `${program} inline code`,
          );
        }
      }
      // Code that does more than print and compute may open a file by a name it builds (`'.e' + 'nv'`)
      // or run a program: what it reaches is known only when it runs.
      if (!inertCode(code)) reach.dynamic.push(`${program} inline code that may open files or run programs`);
      // perl and ruby read their remaining arguments as input files (`perl -ne print .env`).
      if ((program === 'perl' || program === 'ruby') && at >= 0) {
        // `-i` (bundled too: `-pi`, `-i.bak`) edits them in place.
        const inPlace = args.some((a) => /^-[a-zA-Z]*i/.test(a.text ?? ''));
        for (const f of operands(args.slice(at + 2))) {
          read(f, program);
          if (inPlace) read(f, program, 'write');
        }
      }
      return;
    }
    // `python -m module args`: a module of its own, given files as its arguments.
    const module = args.findIndex((a) => a.text === '-m');
    if (module >= 0) {
      for (const f of operands(args.slice(module + 2))) read(f, program);
      return;
    }
    // `python script.py args`: the script is run (read), its arguments are its own business.
    // Without one (or with `-`) it runs what comes on its input.
    const file = operands(args)[0];
    if (!file || file.text === '-') reach.dynamic.push(`${program} running code it reads from its input`);
    else read(file, program);
    return;
  }
  if (HARMLESS.has(program)) return;
  // A program svc knows nothing of: a file given to it may be read (a name that looks like a path,
  // a pattern, or one that is there), and a program it names may be run with the words after it.
  const launched = args.findIndex((a) => a.text !== undefined && LAUNCHED(a.text.split('/').at(-1)!));
  if (launched >= 0) run(args.slice(launched), scope, reach, depth);
  for (const f of operands(launched >= 0 ? args.slice(0, launched) : args)) {
    const text = f.text?.replace(/^file:\/\//, '');
    if (text === undefined) continue;
    if (/[./]/.test(text) || f.glob || globbed(f, scope, reach).some(existsPath))
      read({ ...f, text }, program);
  }
}

/** `trackedFiles`, asked once per folder in a line (a script may run git many times). */
function trackedOnce(cwd: string): string[] | null {
  if (!line.tracked.has(cwd)) line.tracked.set(cwd, trackedFiles(cwd));
  return line.tracked.get(cwd)!;
}

/** Files a repository tracks, at most this many: beyond, a git command is decided as a search. */
const MAX_TRACKED = 20_000;

/**
 * The files the repository around `cwd` tracks, by absolute path; null outside one, over
 * MAX_TRACKED, or when git cannot say. git runs with no monitor of its own (core.fsmonitor names a
 * program a repository's config could set to anything).
 */
function trackedFiles(cwd: string): string[] | null {
  const spawnSync = process.getBuiltinModule('node:child_process').spawnSync;
  // `:/` is the whole repository, wherever in it `cwd` is; its files come relative to `cwd`.
  const listed = spawnSync('git', ['-c', 'core.fsmonitor=false', 'ls-files', '-z', ':/'], {
    cwd,
    encoding: 'utf8',
    timeout: 2000,
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  if (listed.status !== 0) return null;
  const files = listed.stdout.split('\0').filter(Boolean);
  return files.length > MAX_TRACKED ? null : files.map((file) => resolve(cwd, file));
}

function existsPath(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
