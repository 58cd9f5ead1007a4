// Reading a secret's value for `svc secret set`: from standard input when it is piped, else from a
// prompt on the terminal that echoes nothing. Never from the command line: arguments are visible to
// every user of the computer (ps, /proc) and kept in shell history.

/** At most this much is read from a pipe; the core refuses more anyway (SECRET_MAX_BYTES). */
const PIPE_LIMIT_BYTES = 1024 * 1024;

/**
 * One trailing line end is dropped: `echo "$TOKEN" | svc secret set NAME` and a file ending with a
 * newline mean the value without it. Anything else (inner newlines, spaces) is kept as given.
 */
export function withoutFinalNewline(text: string): string {
  return text.replace(/\r?\n$/, '');
}

async function readPipe(input: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer);
    size += bytes.length;
    if (size > PIPE_LIMIT_BYTES) throw new Error(`standard input is longer than ${PIPE_LIMIT_BYTES} bytes`);
    chunks.push(bytes);
  }
  const all = Buffer.concat(chunks);
  const text = all.toString('utf8');
  all.fill(0);
  return withoutFinalNewline(text);
}

/** Reads one line from the terminal in raw mode, echoing nothing; Ctrl-C or Ctrl-D abandons. */
function readHidden(input: NodeJS.ReadStream, output: NodeJS.WriteStream, prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // Echo goes off before the prompt shows: keys typed (or pasted) the moment it appears are
    // never echoed by the terminal.
    input.setRawMode(true);
    output.write(prompt);
    let value = '';
    const done = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      output.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (data: Buffer | string) => {
      for (const ch of data.toString()) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003' || ch === '\u0004') return done(new Error('no value was entered'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    input.resume();
    input.on('data', onData);
  });
}

/** The value for `name`: piped in, or typed at a hidden prompt. */
export async function readSecretValue(name: string): Promise<string> {
  const stdin = process.stdin;
  if (stdin.isTTY) return readHidden(stdin, process.stderr, `value of ${name} (not shown): `);
  return readPipe(stdin);
}

/** A line typed at a hidden prompt on the terminal (written to stderr, so stdout stays the data's). */
export function readHiddenLine(prompt: string): Promise<string> {
  return readHidden(process.stdin, process.stderr, prompt);
}

/** A value piped on standard input, its one final line ending dropped. */
export function readPipedValue(): Promise<string> {
  return readPipe(process.stdin);
}
