// A shell command line as a tree, so the gate decides on what a command really runs and reads, not
// on how its text looks. POSIX sh with the bash forms agents write: lists (`;`, `&`, newlines),
// `&&` and `||`, pipelines (`|`, `|&`), subshells and groups, quotes (single, double, `$'…'`),
// backslash escapes and line continuations, parameters (`$X`, `${X}`, `${X:-…}`), command
// substitution (`$(…)` and backquotes), process substitution (`<(…)`, `>(…)`), arithmetic,
// redirections with their file descriptors, here-documents and here-strings, comments.
// Reserved words (`if`, `then`, `for`, `do`, …) stay words: the analysis skips them.
// Pure: no I/O. Why our own parser and not one from npm: docs/HOOKS.md.

/** A piece of a word: text (quoted or not), a parameter, a substitution, or something only known when it runs. */
export type WordPart =
  | { kind: 'text'; value: string; quoted: boolean }
  | { kind: 'param'; name: string; quoted: boolean }
  | { kind: 'sub'; script: Script; quoted: boolean }
  | { kind: 'tilde'; user: string }
  | { kind: 'unknown'; quoted: boolean };

export interface Word {
  parts: WordPart[];
  /** The word as written. */
  raw: string;
}

export interface Redirect {
  /** `<`, `>`, `>>`, `<>`, `>|`, `<&`, `>&`, `&>`, `&>>`, `<<`, `<<-`, `<<<`. */
  op: string;
  fd: number | null;
  target: Word;
  /**
   * A here-document's lines (`<<`, `<<-`), filled in once the lexer reaches them; absent for
   * every other redirection. With an unquoted delimiter the shell expands `$…` and backquotes in them.
   */
  body?: string;
}

export type Node =
  | { kind: 'command'; assignments: { name: string; value: Word }[]; words: Word[]; redirects: Redirect[] }
  | { kind: 'pipeline'; commands: Node[] }
  | { kind: 'and_or'; op: '&&' | '||'; left: Node; right: Node }
  | { kind: 'subshell'; body: Script }
  | { kind: 'group'; body: Script };

/** A list of commands, run one after another (or in the background). */
export interface Script {
  commands: Node[];
}

export class ShellSyntaxError extends Error {}

const OPERATORS = ['&&', '||', ';;', '|&', '&>>', '&>', ';', '&', '|', '(', ')'];
const REDIRECTS = ['<<<', '<<-', '<<', '>>', '<>', '>|', '<&', '>&', '<', '>'];
const METACHARS = new Set([' ', '\t', '\n', '|', '&', ';', '<', '>', '(', ')']);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

type Token =
  | { kind: 'word'; word: Word }
  | { kind: 'op'; op: string }
  | { kind: 'redirect'; op: string; fd: number | null }
  | { kind: 'newline' };

class Lexer {
  private at = 0;
  /** Subshell parentheses open in this lexer: a `)` closes one of them before it closes the lexer. */
  private depth = 0;
  private readonly pendingHeredocs: { delimiter: string; strip: boolean; redirect: Redirect }[] = [];

  private readonly text: string;
  /** Where an enclosing `$(` or `(` ends: a `)` at depth 0 stops this lexer. */
  private readonly nested: boolean;

  constructor(text: string, nested: boolean) {
    this.text = text;
    this.nested = nested;
  }

  get position(): number {
    return this.at;
  }

  private peek(offset = 0): string {
    return this.text[this.at + offset] ?? '';
  }

  private startsWith(s: string): boolean {
    return this.text.startsWith(s, this.at);
  }

  /** The next token, or undefined at the end (or at the `)` that closes a nested lexer). */
  next(): Token | undefined {
    for (;;) {
      const c = this.peek();
      if (c === ' ' || c === '\t') this.at++;
      else if (c === '\\' && this.peek(1) === '\n') this.at += 2;
      else if (c === '#') {
        while (this.at < this.text.length && this.peek() !== '\n') this.at++;
      } else break;
    }
    if (this.at >= this.text.length) return undefined;
    const c = this.peek();
    if (c === '\n') {
      this.at++;
      this.readHeredocBodies();
      return { kind: 'newline' };
    }
    // A file descriptor number right before a redirection: `2>`, `0<`.
    const fd = /^(\d+)(?=[<>])/.exec(this.text.slice(this.at, this.at + 4));
    const afterFd = fd ? this.at + fd[1]!.length : this.at;
    for (const op of REDIRECTS) {
      if (this.text.startsWith(op, afterFd)) {
        // `<(` and `>(` are process substitutions: words, not redirections.
        if ((op === '<' || op === '>') && this.text[afterFd + 1] === '(') break;
        this.at = afterFd + op.length;
        return { kind: 'redirect', op, fd: fd ? Number(fd[1]) : null };
      }
    }
    for (const op of OPERATORS) {
      if (this.startsWith(op)) {
        if (op === ')') {
          if (this.depth === 0 && this.nested) return undefined;
          this.depth = Math.max(0, this.depth - 1);
        }
        if (op === '(') this.depth++;
        this.at += op.length;
        if (op === '&>' || op === '&>>') return { kind: 'redirect', op, fd: null };
        return { kind: 'op', op };
      }
    }
    return { kind: 'word', word: this.word() };
  }

  /** After `<<`: the delimiter is the next word; the body follows the next newline, and goes on `redirect`. */
  heredoc(redirect: Redirect, strip: boolean): void {
    const text = redirect.target.parts.map((p) => (p.kind === 'text' ? p.value : '')).join('');
    this.pendingHeredocs.push({ delimiter: text, strip, redirect });
  }

  private readHeredocBodies(): void {
    for (const { delimiter, strip, redirect } of this.pendingHeredocs.splice(0)) {
      const lines: string[] = [];
      for (;;) {
        if (this.at >= this.text.length)
          throw new ShellSyntaxError(`here-document without its end line ${delimiter}`);
        const end = this.text.indexOf('\n', this.at);
        const line = this.text.slice(this.at, end === -1 ? undefined : end);
        this.at = end === -1 ? this.text.length : end + 1;
        const stripped = strip ? line.replace(/^\t+/, '') : line;
        if (stripped === delimiter) break;
        lines.push(stripped);
      }
      redirect.body = lines.join('\n');
    }
  }

  private word(): Word {
    const start = this.at;
    const parts: WordPart[] = [];
    const text = (value: string, quoted: boolean) => {
      const last = parts.at(-1);
      if (last?.kind === 'text' && last.quoted === quoted) last.value += value;
      else parts.push({ kind: 'text', value, quoted });
    };
    if (this.peek() === '~') {
      // `~+` and `~-` are bash's working folder and the one before it (a user's name otherwise).
      const user = /^~([A-Za-z0-9._-]*|[+-])(?=\/|$|[\s|&;<>()])/.exec(this.text.slice(this.at));
      if (user) {
        parts.push({ kind: 'tilde', user: user[1]! });
        this.at += user[0].length;
      }
    }
    while (this.at < this.text.length) {
      const c = this.peek();
      if (METACHARS.has(c)) {
        // `<(…)` and `>(…)` inside or at the start of a word.
        if ((c === '<' || c === '>') && this.peek(1) === '(') {
          this.at += 2;
          parts.push({ kind: 'sub', script: this.nestedScript(), quoted: false });
          continue;
        }
        break;
      }
      if (c === '\\') {
        if (this.peek(1) === '\n') this.at += 2;
        else {
          if (this.at + 1 >= this.text.length)
            throw new ShellSyntaxError('a backslash at the end of the command');
          text(this.peek(1), true);
          this.at += 2;
        }
      } else if (c === "'") {
        const end = this.text.indexOf("'", this.at + 1);
        if (end === -1) throw new ShellSyntaxError('a single quote without its end');
        text(this.text.slice(this.at + 1, end), true);
        this.at = end + 1;
      } else if (c === '$' && this.peek(1) === "'") {
        this.at += 2;
        text(this.ansiC(), true);
      } else if (c === '"') {
        this.at++;
        this.doubleQuoted(parts, text);
      } else if (c === '$') {
        this.dollar(parts, false, text);
      } else if (c === '`') {
        parts.push({ kind: 'sub', script: this.backquoted(), quoted: false });
      } else {
        text(c, false);
        this.at++;
      }
    }
    return { parts, raw: this.text.slice(start, this.at) };
  }

  private doubleQuoted(parts: WordPart[], text: (value: string, quoted: boolean) => void): void {
    for (;;) {
      if (this.at >= this.text.length) throw new ShellSyntaxError('a double quote without its end');
      const c = this.peek();
      if (c === '"') {
        this.at++;
        // An empty "" still makes a word.
        if (parts.length === 0) text('', true);
        return;
      }
      if (c === '\\' && '$`"\\\n'.includes(this.peek(1))) {
        if (this.peek(1) !== '\n') text(this.peek(1), true);
        this.at += 2;
      } else if (c === '$') this.dollar(parts, true, text);
      else if (c === '`') parts.push({ kind: 'sub', script: this.backquoted(), quoted: true });
      else {
        text(c, true);
        this.at++;
      }
    }
  }

  private dollar(parts: WordPart[], quoted: boolean, text: (value: string, quoted: boolean) => void): void {
    const rest = this.text.slice(this.at + 1);
    if (rest.startsWith('((')) {
      this.at += 3;
      this.skipBalanced('(', ')', 2);
      parts.push({ kind: 'unknown', quoted });
    } else if (rest.startsWith('(')) {
      this.at += 2;
      parts.push({ kind: 'sub', script: this.nestedScript(), quoted });
    } else if (rest.startsWith('{')) {
      // `${NAME}`, and `${NAME[0]}` (a script's `${BASH_SOURCE[0]}`), named as written.
      const simple = /^\{([A-Za-z_][A-Za-z0-9_]*(?:\[0\])?)\}/.exec(rest);
      if (simple) {
        parts.push({ kind: 'param', name: simple[1]!, quoted });
        this.at += 1 + simple[0].length;
      } else {
        this.at += 2;
        this.skipBalanced('{', '}', 1);
        parts.push({ kind: 'unknown', quoted });
      }
    } else {
      const name = NAME.exec(rest) ?? /^[0-9@*#?$!-]/.exec(rest);
      if (name) {
        parts.push({ kind: 'param', name: name[0], quoted });
        this.at += 1 + name[0].length;
      } else {
        text('$', quoted);
        this.at++;
      }
    }
  }

  /** Skips to the `close` that balances `depth` opens already read. */
  private skipBalanced(open: string, close: string, depth: number): void {
    while (depth > 0) {
      if (this.at >= this.text.length) throw new ShellSyntaxError(`a ${open} without its ${close}`);
      const c = this.peek();
      if (c === open) depth++;
      else if (c === close) depth--;
      else if (c === "'") {
        const end = this.text.indexOf("'", this.at + 1);
        if (end === -1) throw new ShellSyntaxError('a single quote without its end');
        this.at = end;
      }
      this.at++;
    }
  }

  /** `$'…'`: the escapes bash reads inside it. */
  private ansiC(): string {
    let out = '';
    for (;;) {
      if (this.at >= this.text.length) throw new ShellSyntaxError("a $' quote without its end");
      const c = this.peek();
      this.at++;
      if (c === "'") return out;
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = this.peek();
      this.at++;
      const simple: Record<string, string> = {
        n: '\n',
        t: '\t',
        r: '\r',
        a: '\x07',
        b: '\b',
        e: '\x1b',
        f: '\f',
        v: '\v',
        '\\': '\\',
        "'": "'",
        '"': '"',
        '?': '?',
      };
      if (e in simple) out += simple[e];
      else if (e === 'x') {
        const hex = /^[0-9a-fA-F]{1,2}/.exec(this.text.slice(this.at))?.[0] ?? '';
        out += String.fromCharCode(parseInt(hex || '0', 16));
        this.at += hex.length;
      } else if (/[0-7]/.test(e)) {
        const oct = /^[0-7]{0,2}/.exec(this.text.slice(this.at))![0];
        out += String.fromCharCode(parseInt(e + oct, 8));
        this.at += oct.length;
      } else out += `\\${e}`;
    }
  }

  /** The script inside `$(…)`, `<(…)` or `>(…)`, up to its `)`. */
  private nestedScript(): Script {
    const inner = new Lexer(this.text, true);
    inner.at = this.at;
    const script = parseList(inner);
    if (inner.text[inner.at] !== ')') throw new ShellSyntaxError('a $( or ( without its )');
    this.at = inner.at + 1;
    return script;
  }

  /** The script inside backquotes (its own `\`` and `\\` escapes removed). */
  private backquoted(): Script {
    let body = '';
    this.at++;
    for (;;) {
      if (this.at >= this.text.length) throw new ShellSyntaxError('a backquote without its end');
      const c = this.peek();
      if (c === '`') {
        this.at++;
        return parse(body);
      }
      if (c === '\\' && '`\\$'.includes(this.peek(1))) {
        body += this.peek(1);
        this.at += 2;
      } else {
        body += c;
        this.at++;
      }
    }
  }
}

/** A lexer with one token of lookahead. */
class Tokens {
  private ahead: Token | undefined | null = null;
  readonly lexer: Lexer;
  constructor(lexer: Lexer) {
    this.lexer = lexer;
  }
  peek(): Token | undefined {
    if (this.ahead === null) this.ahead = this.lexer.next();
    return this.ahead;
  }
  take(): Token | undefined {
    const token = this.peek();
    this.ahead = null;
    return token;
  }
}

function parseList(lexer: Lexer): Script {
  const tokens = new Tokens(lexer);
  const script = listOf(tokens, (t) => t === undefined);
  return script;
}

const isOp = (t: Token | undefined, ...ops: string[]) => t?.kind === 'op' && ops.includes(t.op);
const isWord = (t: Token | undefined, text: string) => t?.kind === 'word' && t.word.raw === text;

/** Commands separated by `;`, `&` and newlines, until `done(token)`. */
function listOf(tokens: Tokens, done: (t: Token | undefined) => boolean): Script {
  const commands: Node[] = [];
  for (;;) {
    while (tokens.peek()?.kind === 'newline' || isOp(tokens.peek(), ';', '&', ';;')) tokens.take();
    if (done(tokens.peek())) return { commands };
    if (tokens.peek() === undefined) throw new ShellSyntaxError('the command ends too soon');
    commands.push(andOr(tokens));
  }
}

function andOr(tokens: Tokens): Node {
  let left = pipeline(tokens);
  while (isOp(tokens.peek(), '&&', '||')) {
    const op = (tokens.take() as { op: '&&' | '||' }).op;
    while (tokens.peek()?.kind === 'newline') tokens.take();
    left = { kind: 'and_or', op, left, right: pipeline(tokens) };
  }
  return left;
}

function pipeline(tokens: Tokens): Node {
  if (isWord(tokens.peek(), '!')) tokens.take();
  const commands = [command(tokens)];
  while (isOp(tokens.peek(), '|', '|&')) {
    tokens.take();
    while (tokens.peek()?.kind === 'newline') tokens.take();
    commands.push(command(tokens));
  }
  return commands.length === 1 ? commands[0]! : { kind: 'pipeline', commands };
}

function command(tokens: Tokens): Node {
  const first = tokens.peek();
  if (isOp(first, '(')) {
    tokens.take();
    const body = listOf(tokens, (t) => isOp(t, ')'));
    tokens.take();
    return withRedirects(tokens, { kind: 'subshell', body });
  }
  if (isWord(first, '{')) {
    tokens.take();
    const body = listOf(tokens, (t) => isWord(t, '}'));
    tokens.take();
    return withRedirects(tokens, { kind: 'group', body });
  }
  const node: Extract<Node, { kind: 'command' }> = {
    kind: 'command',
    assignments: [],
    words: [],
    redirects: [],
  };
  for (;;) {
    const token = tokens.peek();
    if (token?.kind === 'redirect') {
      tokens.take();
      node.redirects.push(redirect(tokens, token));
    } else if (token?.kind === 'word') {
      tokens.take();
      const assignment = node.words.length === 0 ? assignmentOf(token.word) : undefined;
      if (assignment) node.assignments.push(assignment);
      else node.words.push(token.word);
    } else break;
  }
  if (node.words.length === 0 && node.assignments.length === 0 && node.redirects.length === 0) {
    const what = tokens.peek();
    throw new ShellSyntaxError(`a command was expected${what?.kind === 'op' ? ` before ${what.op}` : ''}`);
  }
  return node;
}

function withRedirects(tokens: Tokens, node: Node): Node {
  // Redirections after `( … )` or `{ … }` apply to the whole: keep them on a command of their own.
  const redirects: Redirect[] = [];
  while (tokens.peek()?.kind === 'redirect')
    redirects.push(redirect(tokens, tokens.take() as Extract<Token, { kind: 'redirect' }>));
  return redirects.length
    ? { kind: 'pipeline', commands: [node, { kind: 'command', assignments: [], words: [], redirects }] }
    : node;
}

function redirect(tokens: Tokens, token: Extract<Token, { kind: 'redirect' }>): Redirect {
  const target = tokens.take();
  if (target?.kind !== 'word') throw new ShellSyntaxError(`${token.op} needs a word after it`);
  const redirect: Redirect = { op: token.op, fd: token.fd, target: target.word };
  if (token.op === '<<' || token.op === '<<-') tokens.lexer.heredoc(redirect, token.op === '<<-');
  return redirect;
}

/** `NAME=value` before the command's name. */
function assignmentOf(word: Word): { name: string; value: Word } | undefined {
  const first = word.parts[0];
  if (first?.kind !== 'text' || first.quoted) return undefined;
  const match = /^([A-Za-z_][A-Za-z0-9_]*)\+?=/.exec(first.value);
  if (!match) return undefined;
  const rest = first.value.slice(match[0].length);
  const parts: WordPart[] = [...(rest ? [{ ...first, value: rest }] : []), ...word.parts.slice(1)];
  return { name: match[1]!, value: { parts, raw: word.raw.slice(match[0].length) } };
}

/** Parses a command line; a ShellSyntaxError says what is wrong with it. */
export function parse(text: string): Script {
  const lexer = new Lexer(text, false);
  const script = parseList(lexer);
  if (lexer.position < text.length) throw new ShellSyntaxError(`unexpected ${text[lexer.position]}`);
  return script;
}
