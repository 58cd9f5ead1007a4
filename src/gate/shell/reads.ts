// What a parsed command line touches: the files it reads, the folders it searches, the files it
// writes, from what common programs are known to do with their arguments and redirections. A path
// that only exists when the command runs (a variable set elsewhere, a command's output, items fed
// to xargs) cannot be known: it is reported as `dynamic`, for the policy of docs/HOOKS.md.
import { globSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parse, type Node, type Script, type Word } from './parse.ts';

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
}

/** A word's value, when it is known before the command runs. */
interface Value {
  text: string | undefined;
  /** Unquoted `*`, `?` or `[`: the shell expands it against the file system. */
  glob: boolean;
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
  'command',
  'export',
  'set',
  'unset',
  'exit',
  'return',
  'shift',
  'sleep',
  'date',
  'whoami',
  'id',
  'uname',
  'hostname',
  'mkdir',
  'rmdir',
  'touch',
  'rm',
  'chmod',
  'chown',
  'ln',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'stat',
  'du',
  'df',
  'ps',
  'kill',
  'wait',
  'jobs',
  'read',
  'local',
  'declare',
  'alias',
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
  'history',
  'clear',
]);
/** Prefixes that run the rest of the line as a command. */
const WRAPPERS = new Set(['sudo', 'nice', 'nohup', 'exec', 'builtin', 'stdbuf', 'doas']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh']);
const INTERPRETERS: Record<string, string[]> = {
  python: ['-c'],
  python3: ['-c'],
  node: ['-e', '-p', '--eval', '--print'],
  perl: ['-e', '-E'],
  ruby: ['-e'],
  php: ['-r'],
  deno: ['eval'],
  bun: ['-e', '--eval'],
};

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
    case 'and_or':
      visit(node.left, scope, reach, depth);
      visit(node.right, scope, reach, depth);
      return;
    case 'subshell':
      // A subshell's `cd` and variables stay inside it.
      script(node.body, { ...scope, vars: new Map(scope.vars) }, reach, depth);
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
  for (const part of word.parts) {
    switch (part.kind) {
      case 'text':
        if (!part.quoted && /[*?[]/.test(part.value)) glob = true;
        if (text !== undefined) text += part.value;
        break;
      case 'tilde':
        if (part.user === '' && text !== undefined) text += scope.home;
        else text = undefined;
        break;
      case 'param': {
        const known = scope.vars.get(part.name);
        if (known !== undefined && text !== undefined) text += known;
        else text = undefined;
        break;
      }
      case 'sub':
        // The substitution runs: what it touches counts, and its output is not known.
        if (depth < MAX_NESTING)
          script(part.script, { ...scope, vars: new Map(scope.vars) }, reach, depth + 1);
        else reach.dynamic.push('a command nested too deep to follow');
        text = undefined;
        break;
      case 'unknown':
        text = undefined;
    }
  }
  return { text, glob };
}

/** The paths a word names: its glob expanded against the file system (as the shell would). */
function pathsOf(value: Value, scope: Scope): string[] {
  if (value.text === undefined || value.text === '') return [];
  if (value.glob) {
    let found: string[];
    try {
      found = globSync(value.text, { cwd: scope.cwd });
    } catch {
      found = [];
    }
    // No match: the shell passes the pattern on as it is.
    if (found.length) return found.map((f) => absolute(f, scope));
  }
  return [absolute(value.text, scope)];
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

const absolute = (path: string, scope: Scope) =>
  isAbsolute(path) ? resolve(path) : resolve(scope.cwd, path);

function simple(
  node: Extract<Node, { kind: 'command' }>,
  scope: Scope,
  reach: CommandReach,
  depth: number,
): void {
  for (const r of node.redirects) {
    // Here-documents and here-strings carry text, not a path.
    if (r.op === '<<' || r.op === '<<-' || r.op === '<<<') continue;
    const value = valueOf(r.target, scope, reach, depth);
    // `2>&1`, `<&0`, `>&-`: another file descriptor, not a file.
    if ((r.op === '<&' || r.op === '>&') && /^(\d+-?|-)$/.test(value.text ?? '')) continue;
    const actions: Touch['action'][] =
      r.op === '<' || r.op === '<&' ? ['read'] : r.op === '<>' ? ['read', 'write'] : ['write'];
    if (value.text === undefined)
      reach.dynamic.push(`a ${r.op} redirection to a path known only when it runs`);
    for (const path of pathsOf(value, scope)) {
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
  run(
    words.map((w) => w.value),
    scope,
    reach,
    depth,
  );
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
  // A program named by its path is a file the command runs.
  if (name.includes('/')) reach.touches.push({ action: 'run', path: absolute(name, scope), via: name });
  const read = (value: Value, via = program, action: Touch['action'] = 'read') => {
    if (value.text === undefined) {
      reach.dynamic.push(`${via} on a path known only when it runs`);
      return;
    }
    for (const path of pathsOf(value, scope)) {
      // Reading a folder (a copy, an archive, a sync) reads everything in it.
      reach.touches.push({ action: action === 'read' && isFolder(path) ? 'search' : action, path, via });
    }
  };
  const operands = (list: Value[]) => list.filter((v) => !(v.text ?? '').startsWith('-') || v.text === '-');
  if (program === 'for' || program === 'case' || program === 'esac' || program === 'select') return;
  if (program === 'cd') {
    const target = args[0]?.text;
    if (target !== undefined) scope.cwd = absolute(target, scope);
    return;
  }
  if (program === 'export' || program === 'declare' || program === 'local') {
    for (const arg of args) {
      const m = arg.text && /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(arg.text);
      if (m) scope.vars.set(m[1]!, m[2]!);
    }
    return;
  }
  if (WRAPPERS.has(program)) {
    const rest = args.filter((a, i) => !(a.text ?? '').startsWith('-') || i > 0);
    if (rest.length) run(rest, scope, reach, depth);
    return;
  }
  if (program === 'env') {
    const at = args.findIndex((a) => a.text === undefined || !/^-|^[A-Za-z_][A-Za-z0-9_]*=/.test(a.text));
    if (at >= 0) run(args.slice(at), scope, reach, depth);
    return;
  }
  if (program === 'timeout') {
    const at = args.findIndex((a, i) => i > 0 && !(a.text ?? '-').startsWith('-'));
    if (at > 0) run(args.slice(at), scope, reach, depth);
    return;
  }
  const shellCode = SHELLS.has(program)
    ? args.findIndex((a) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a.text ?? ''))
    : -1;
  if (program === 'eval' || shellCode >= 0) {
    const code = program === 'eval' ? args : [args[shellCode + 1]];
    const text = code.every((c) => c?.text !== undefined) ? code.map((c) => c!.text).join(' ') : undefined;
    if (text === undefined || depth >= MAX_NESTING) {
      reach.dynamic.push(`${program} running code known only when it runs`);
      return;
    }
    script(parse(text), { ...scope, vars: new Map(scope.vars) }, reach, depth + 1);
    return;
  }
  if (SHELLS.has(program)) {
    for (const a of operands(args).slice(0, 1)) read(a, program);
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
    const explicitProgram = args.some((a) => a.text === '-e' || a.text === '--expression' || a.text === '-f');
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
    for (const f of operands(args)) if (f.text !== '-') read(f, program);
    return;
  }
  if (
    program === 'cp' ||
    program === 'mv' ||
    program === 'rsync' ||
    program === 'scp' ||
    program === 'install'
  ) {
    const files = operands(args);
    for (const f of files.slice(0, -1)) if (!/^[^/]*:/.test(f.text ?? '')) read(f, program);
    if (files.length > 1) read(files.at(-1)!, program, 'write');
    return;
  }
  if (program === 'tee') {
    for (const f of operands(args)) read(f, program, 'write');
    return;
  }
  if (program === 'tar') {
    const mode = args[0]?.text ?? '';
    const creating =
      /c|r|u/.test(mode.replace(/^-/, '').replace(/f.*$/, '')) || args.some((a) => a.text === '--create');
    if (!creating) return;
    const fileFlag = args.findIndex((a) => /^-?[a-zA-Z]*f$/.test(a.text ?? '') || a.text === '--file');
    for (const [i, f] of args.entries()) {
      if (i === 0 || i === fileFlag + 1 || (f.text ?? '').startsWith('-')) continue;
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
    const sub = args.find((a) => !(a.text ?? '').startsWith('-'))?.text;
    if (sub === 'show' || sub === 'cat-file') {
      for (const a of args) {
        const m = a.text && /^[^:\s]*:(.+)$/.exec(a.text);
        if (m) read({ text: m[1]!, glob: false }, `git ${sub}`);
      }
      if (sub === 'cat-file') reach.dynamic.push('git cat-file reading an object by id');
    } else if (
      sub === 'diff' ||
      sub === 'log' ||
      sub === 'grep' ||
      sub === 'blame' ||
      sub === 'archive' ||
      sub === 'stash'
    ) {
      const after = args.findIndex((a) => a.text === '--');
      const paths = after >= 0 ? args.slice(after + 1) : [];
      if (paths.length) for (const p of paths) read(p, `git ${sub}`, sub === 'blame' ? 'read' : 'search');
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
    if (at >= 0) {
      const code = args[at + 1]?.text;
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
      // perl and ruby read their remaining arguments as input files (`perl -ne print .env`).
      if (program === 'perl' || program === 'ruby')
        for (const f of operands(args.slice(at + 2))) read(f, program);
      return;
    }
    // `python script.py args`: the script is run (read), its arguments are its own business.
    const file = operands(args)[0];
    if (file) read(file, program);
    return;
  }
  if (HARMLESS.has(program)) return;
  // A program svc knows nothing of: a file given to it may be read.
  for (const f of operands(args)) {
    if (f.text !== undefined && /[./]/.test(f.text)) read(f, program);
  }
}
