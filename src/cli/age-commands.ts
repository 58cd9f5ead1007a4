// `svc encrypt` and `svc decrypt`: age files that the `age` command reads and writes (docs/VAULT.md).
// Passphrases and identities never come from the command line, where every user of the computer
// sees them (ps, /proc) and the shell keeps them: a passphrase is typed at a hidden prompt, piped
// on standard input, or read from a file; identities are read from an identity file.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import type { AgeInput } from '../backend/age-files.ts';
import { readHiddenLine, readPipedValue } from './secret-input.ts';

const USAGE_EXIT = 2;

interface Common {
  out?: string;
  force?: boolean;
  passphrase?: boolean;
  passphraseFile?: string;
  json?: boolean;
}

const usage = (message: string) => new CommanderError(USAGE_EXIT, 'svc.usage', message);

/** Standard input as the data, or a file: `-` or nothing means standard input. */
async function inputOf(file: string | undefined): Promise<AgeInput> {
  if (file !== undefined && file !== '-') return { path: file };
  if (process.stdin.isTTY) throw usage('give a FILE, or pipe the input on standard input');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return { bytes: Buffer.concat(chunks) };
}

/**
 * The passphrase: from --passphrase-file, else typed twice (encrypting) or once at a hidden prompt,
 * else piped on standard input when the data comes from a file.
 */
async function passphraseOf(options: Common, dataOnStdin: boolean, confirm: boolean): Promise<string> {
  if (options.passphraseFile !== undefined) {
    const text = readFileSync(options.passphraseFile, 'utf8').replace(/\r?\n$/, '');
    if (text === '') throw usage('the passphrase file is empty');
    return text;
  }
  if (process.stdin.isTTY) {
    const first = await readHiddenLine('passphrase (not shown): ');
    if (confirm && (await readHiddenLine('the same passphrase again: ')) !== first) {
      throw usage('the two passphrases differ; nothing was encrypted');
    }
    return first;
  }
  if (dataOnStdin) {
    throw usage(
      'standard input carries the data, so it cannot carry the passphrase too: use --passphrase-file',
    );
  }
  return readPipedValue();
}

function writeStdout(bytes: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) =>
    process.stdout.write(bytes, (error) => (error ? reject(error) : resolve())),
  );
}

export function addAgeCommands(program: Command): void {
  program
    .command('encrypt')
    .description('encrypt a file (or standard input) as an age file, to recipients or with a passphrase')
    .argument('[file]', 'the file to encrypt; - or nothing: standard input')
    .option('-r, --recipient <age1…>', 'an age recipient (public key); repeat for several', collect, [])
    .option('-p, --passphrase', 'encrypt with a passphrase (prompted, piped, or --passphrase-file)')
    .option('--passphrase-file <file>', 'read the passphrase from this file (its first line ending dropped)')
    .option('-a, --armor', 'write ASCII armor (-----BEGIN AGE ENCRYPTED FILE-----) instead of binary')
    .option('-o, --out <file>', 'write the age file here (written whole or not at all); default: stdout')
    .option('--force', 'replace --out if it exists')
    .action(async (file: string | undefined, options: Common & { recipient: string[]; armor?: boolean }) => {
      const byPassphrase = options.passphrase === true || options.passphraseFile !== undefined;
      if (byPassphrase && options.recipient.length > 0) {
        throw usage('encrypt either to --recipient age1… (one or more) or with --passphrase, not both');
      }
      if (!byPassphrase && options.recipient.length === 0) {
        throw usage('encrypt needs --recipient age1… (one or more) or --passphrase: give one of them');
      }
      const dataOnStdin = file === undefined || file === '-';
      const to = byPassphrase
        ? { passphrase: await passphraseOf(options, dataOnStdin, true) }
        : { recipients: options.recipient };
      const input = await inputOf(file);
      const { encryptLocal } = await import('../backend/age-files.ts');
      const done = await encryptLocal({
        input,
        to,
        armor: options.armor === true,
        out: options.out,
        overwrite: options.force === true,
      });
      if (done.output) await writeStdout(done.output);
      else process.stderr.write(`svc: encrypted ${done.bytes_in} bytes to ${done.out_path}\n`);
    });

  program
    .command('decrypt')
    .description('decrypt an age file (binary or armored) with an identity file or a passphrase')
    .argument('[file]', 'the age file; - or nothing: standard input')
    .option('-i, --identity <file>', 'an identity file (AGE-SECRET-KEY-1… lines, as age-keygen writes)')
    .option('-p, --passphrase', 'decrypt with a passphrase (prompted, piped, or --passphrase-file)')
    .option('--passphrase-file <file>', 'read the passphrase from this file (its first line ending dropped)')
    .option(
      '-o, --out <file>',
      'write the plaintext to this file, private to you (mode 0600); default: stdout',
    )
    .option('--force', 'replace --out if it exists')
    .action(async (file: string | undefined, options: Common & { identity?: string }) => {
      const byPassphrase = options.passphrase === true || options.passphraseFile !== undefined;
      if (byPassphrase === (options.identity !== undefined)) {
        throw usage('decrypt either with --identity FILE or with --passphrase, not both');
      }
      const dataOnStdin = file === undefined || file === '-';
      const key = byPassphrase
        ? { passphrase: await passphraseOf(options, dataOnStdin, false) }
        : { identityFile: options.identity! };
      const input = await inputOf(file);
      const { decryptLocal } = await import('../backend/age-files.ts');
      const done = await decryptLocal({ input, key, out: options.out, overwrite: options.force === true });
      if (done.output) {
        await writeStdout(done.output);
        done.output.fill(0);
      } else process.stderr.write(`svc: decrypted ${done.bytes_out} bytes to ${done.out_path}\n`);
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
