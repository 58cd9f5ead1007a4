// What a parsed command line touches: the files it reads, the folders it searches, the files it
// writes, from what common programs are known to do with their arguments and redirections. A path
// that only exists when the command runs (a variable set elsewhere, a command's output, items fed
// to xargs) cannot be known: it is reported as `dynamic`, for the policy of docs/HOOKS.md.
import { closeSync, fstatSync, globSync, openSync, readSync, statSync } from 'node:fs';
import { expand } from 'brace-expansion';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { ShellSyntaxError, parse, type Node, type Script, type Word } from './parse.ts';

export interface Touch {
  action: 'read' | 'search' | 'write' | 'run';
  path: string;
  /** The program (or redirection) that touches it. */
  via: string;
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
const SEARCHERS = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'git-grep']);
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
/** Programs that run the shell code given after `-c` (bundled too: `-qc`), or `--command`. */
const CODE_RUNNERS = new Set(['script', 'su', 'runuser', 'flock']);
/** Programs that read their sources and write their last argument (a copy, a move, a link). */
const COPIERS = new Set(['cp', 'mv', 'rsync', 'scp', 'install', 'ln', 'link']);
/** Prefixes that run the rest of the line as a command. */
const WRAPPERS = new Set(['sudo', 'nice', 'nohup', 'exec', 'builtin', 'stdbuf', 'doas']);
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
  version versions platform arch sys uc lc ucfirst lcfirst chomp chop reverse sprintf scalar
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
  script(parse(text), scope, reach, 0);
  return reach;
}

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
        // `~` is $HOME, which the line may have set.
        if (part.user === '' && text !== undefined) text += scope.vars.get('HOME') ?? scope.home;
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
        const output = knownOutput(part.script, scope, reach, depth);
        if (output !== undefined && text !== undefined) {
          text += output;
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
 * `dirname`, `basename` and `realpath` of a known word, and `pwd`. Scripts start with
 * `cd "$(dirname "$0")"`; without this, every path after it would be unknowable.
 */
function knownOutput(s: Script, scope: Scope, reach: CommandReach, depth: number): string | undefined {
  const only = s.commands.length === 1 ? s.commands[0] : undefined;
  if (only?.kind !== 'command' || only.redirects.length || only.assignments.length) return undefined;
  const [name, ...rest] = only.words.map((w) => valueOf(w, scope, reach, depth));
  if (name?.text === 'pwd' && rest.length === 0) return scope.cwd;
  const arg = rest.length === 1 ? rest[0]! : undefined;
  if (!arg || arg.text === undefined || arg.glob || arg.braces || arg.text.startsWith('-')) return undefined;
  if (name?.text === 'dirname') return dirname(arg.text);
  if (name?.text === 'basename') return basename(arg.text);
  if (name?.text === 'realpath') return named(arg.text, scope.cwd);
  return undefined;
}

/** The scope a script starts with when a shell of its own runs it: `$0` is its path. */
function ownShell(scope: Scope, path: string): Scope {
  const own = fork(scope);
  own.vars.set('0', path);
  return own;
}

/** A script larger than this is not read through: what it does is taken as known only when it runs. */
const MAX_SCRIPT_BYTES = 64 * 1024;
/** Scripts one line may make svc read through, however they call each other. */
const MAX_SCRIPTS = 32;
const scriptsFollowed = new WeakMap<CommandReach, number>();

/**
 * A shell script the line runs (`bash x.sh`, `source x.sh`, `./x.sh`): what its commands reach,
 * read from the file as it is now, in `scope` (a copy of the caller's for a script that runs in a
 * shell of its own). A script that is not there yet, that the line itself writes, that is larger
 * than MAX_SCRIPT_BYTES or that svc cannot parse reaches what only its run knows. `shebang`: run
 * by its path, so the file is a shell script only when its first line says so or it has none
 * (the calling shell then runs it).
 */
function followScript(
  path: string,
  scope: Scope,
  reach: CommandReach,
  depth: number,
  options: { shebang: boolean },
): void {
  const unknowable = (why: string) => reach.dynamic.push(`${why} (${path})`);
  if (reach.touches.some((t) => t.action === 'write' && t.path === path)) {
    unknowable('a script this line writes before it runs it');
    return;
  }
  const followed = scriptsFollowed.get(reach) ?? 0;
  if (depth >= MAX_NESTING || followed >= MAX_SCRIPTS) {
    unknowable('scripts nested too deep, or too many, to follow');
    return;
  }
  scriptsFollowed.set(reach, followed + 1);
  let text: string;
  let whole: boolean;
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const stat = fstatSync(fd);
    if (!stat.isFile()) return;
    const bytes = Buffer.alloc(Math.min(stat.size, MAX_SCRIPT_BYTES));
    const got = readSync(fd, bytes, 0, bytes.length, 0);
    // A NUL byte: a program (an executable, an archive), not a script.
    if (bytes.subarray(0, got).includes(0)) return;
    text = bytes.subarray(0, got).toString('utf8');
    whole = stat.size <= MAX_SCRIPT_BYTES;
  } catch {
    unknowable('a script that is not there before the line runs');
    return;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (options.shebang && text.startsWith('#!')) {
    const interpreter = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(text);
    const program = interpreter?.[1]?.split('/').at(-1);
    const named = program === 'env' ? interpreter?.[2]?.split('/').at(-1) : program;
    // Another language's script: what it does is its code's business, as `python x.py` is.
    if (!named || !SHELLS.has(named)) return;
  }
  if (!whole) {
    unknowable('a script too long to read through');
    return;
  }
  let parsed: Script;
  try {
    parsed = parse(text);
  } catch (error) {
    if (!(error instanceof ShellSyntaxError)) throw error;
    unknowable('a script svc cannot read through');
    return;
  }
  script(parsed, scope, reach, depth + 1);
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
function changeFolder(program: string, args: Value[], scope: Scope, reach: CommandReach): void {
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
    target = absolute(arg.text, scope);
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
  const assignmentValues = node.assignments.map((a) => ({
    name: a.name,
    value: valueOf(a.value, scope, reach, depth),
  }));
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
  // A program named by its path is a file the command runs: a shell script is read through.
  if (name.includes('/')) {
    const path = named(name, scope.cwd);
    reach.touches.push({ action: 'run', path, via: name });
    followScript(path, ownShell(scope, path), reach, depth, { shebang: true });
  }
  const read = (value: Value, via = program, action: Touch['action'] = 'read') => {
    if (value.text === undefined) {
      reach.dynamic.push(`${via} on a path known only when it runs`);
      return;
    }
    for (const path of pathsOf(value, scope, reach)) {
      // Reading a folder (a copy, an archive, a sync) reads everything in it.
      reach.touches.push({ action: action === 'read' && isFolder(path) ? 'search' : action, path, via });
    }
  };
  const operands = (list: Value[]) => list.filter((v) => !(v.text ?? '').startsWith('-') || v.text === '-');
  if (program === 'for' || program === 'case' || program === 'esac' || program === 'select') return;
  // `--from-file=.env`, `--files0-from=list`: a path given as an option's value may be read.
  if (!HARMLESS.has(program)) {
    for (const a of args) {
      const m = a.text && /^--?[\w-]+=(.*[./].*)$/s.exec(a.text);
      if (m && !/^[a-z][a-z0-9+.-]*:\/\//i.test(m[1]!)) read({ text: m[1]!, glob: false }, program);
    }
  }
  if (program === 'alias' && args.length) {
    reach.dynamic.push('an alias, whose commands run when it is used');
    return;
  }
  if (program === 'cd' || program === 'pushd' || program === 'popd') {
    changeFolder(program, operands(args), scope, reach);
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
    const known = args.findIndex((a) => a.text !== undefined && LAUNCHED(a.text.split('/').at(-1)!));
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
    const at = args.findIndex((a) => a.text === undefined || !/^-|^[A-Za-z_][A-Za-z0-9_]*=/.test(a.text));
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
    script(parse(text), fork(scope), reach, depth + 1);
    return;
  }
  if (SHELLS.has(program)) {
    // Without a script file (or with `-s`, or `-` for one) a shell runs what comes on its input.
    const scriptFile = operands(args)[0];
    if (!scriptFile || scriptFile.text === '-' || args.some((a) => /^-[a-zA-Z]*s/.test(a.text ?? ''))) {
      reach.dynamic.push(`${program} running commands it reads from its input`);
      return;
    }
    read(scriptFile, program);
    for (const path of pathsOf(scriptFile, scope, reach))
      followScript(path, ownShell(scope, path), reach, depth, { shebang: false });
    return;
  }
  if (program === 'source' || program === '.') {
    // Run in this shell: its `cd` and variables hold for the rest of the line.
    const [file, ...rest] = operands(args);
    if (!file) return;
    read(file, program);
    for (const path of pathsOf(file, scope, reach))
      followScript(path, scope, reach, depth, { shebang: false });
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
    const firstExpression = args.findIndex((a) => /^[-(!]/.test(a.text ?? '-'));
    const roots = firstExpression === -1 ? args : args.slice(0, firstExpression);
    for (const root of roots.length ? roots : [{ text: '.', glob: false }]) read(root, 'find', 'search');
    const exec = args.findIndex((a) => a.text === '-exec' || a.text === '-execdir' || a.text === '-ok');
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
      if (inner.length) {
        const innerReach: CommandReach = { touches: [], dynamic: [] };
        run(inner, scope, innerReach, depth);
        reach.touches.push(...innerReach.touches);
        // What the inner command does to each found file is a read of the folders searched.
        for (const root of roots.length ? roots : [{ text: '.', glob: false }])
          read(root, `find -exec ${inner[0]!.text}`, 'search');
      }
    }
    return;
  }
  if (SEARCHERS.has(program)) {
    const options = args.filter((a) => (a.text ?? '').startsWith('-'));
    const patternFromOption = options.some(
      (o) => ['-e', '-f', '--regexp', '--file'].includes(o.text!) || /^--(regexp|file)=/.test(o.text!),
    );
    const rest = operands(
      args.filter(
        (a, i) =>
          ![
            '-e',
            '-f',
            '--regexp',
            '--file',
            '-g',
            '--glob',
            '-t',
            '--type',
            '-m',
            '-A',
            '-B',
            '-C',
          ].includes(args[i - 1]?.text ?? ''),
      ),
    );
    const targets = patternFromOption ? rest : rest.slice(1);
    for (const f of args.filter((a, i) => args[i - 1]?.text === '-f' || args[i - 1]?.text === '--file'))
      read(f, program);
    const recursive =
      program !== 'grep' && program !== 'egrep' && program !== 'fgrep'
        ? true
        : options.some((o) => /^-[a-zA-Z]*[rR]|^--(recursive|dereference-recursive)$/.test(o.text!));
    if (targets.length === 0 && recursive) read({ text: '.', glob: false }, program, 'search');
    for (const t of targets) read(t, program, recursive ? 'search' : 'read');
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
    const inPlace = program === 'sed' && args.some((a) => /^-i|^--in-place/.test(a.text ?? ''));
    if (inPlace) for (const f of files) read(f, program, 'write');
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
      if (['-o', '--output', '-O', '--output-document'].includes(prev) && prev !== '-O')
        read(a, program, 'write');
    }
    return;
  }
  if (program === 'git') {
    // Global options before the subcommand, with their values: `-C path`, `-c name=value`.
    let at = 0;
    while (at < args.length && (args[at]!.text ?? '').startsWith('-')) {
      const option = args[at]!.text!;
      const value = ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path'].includes(option)
        ? args[++at]
        : undefined;
      // An alias that starts with `!` runs a shell command.
      if (option === '-c' && (value?.text === undefined || /^alias\..*=\s*!/i.test(value.text)))
        reach.dynamic.push('git running a command an alias gives');
      at++;
    }
    const sub = args[at]?.text;
    if (sub === 'add') {
      // What is added is read into the repository (and from there, shown by any git command).
      for (const f of operands(args.slice(at + 1))) read(f, 'git add');
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
      for (const a of revisionPaths) read({ text: /:(.+)$/.exec(a.text!)![1]!, glob: false }, `git ${sub}`);
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
      const paths = after >= 0 ? args.slice(after + 1) : there;
      const revisions = words.length > there.length && sub !== 'stash';
      const patches = args.some((a) => /^(-p|-u|--patch|--full-diff|-L.*|--follow)$/.test(a.text ?? ''));
      if (sub === 'log' && !patches) return;
      const history = sub === 'show' || sub === 'archive' || sub === 'log' || revisions;
      const untracked = args.some((a) =>
        /^(-u|-a|--all|--include-untracked|--untracked|--no-index)$/.test(a.text ?? ''),
      );
      const tracked = paths.length || history || untracked ? null : trackedFiles(scope.cwd);
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
      if ((program === 'perl' || program === 'ruby') && at >= 0)
        for (const f of operands(args.slice(at + 2))) read(f, program);
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
