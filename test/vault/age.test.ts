// age files: svc's encrypt and decrypt against the real `age` binary (Debian package age), both ways,
// binary and armored, recipients and passphrases; and every way a decryption is refused.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateIdentity, identityToRecipient } from 'age-encryption';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgeError, ageFormOf, decryptAge, encryptAge, parseIdentityFile } from '../../src/vault/age.ts';
import { childEnv, REPO_ROOT, SVC_BIN } from '../e2e/procs.ts';
import { tempDir } from '../helpers.ts';

const AGE = '/usr/bin/age';
const AGE_KEYGEN = '/usr/bin/age-keygen';
// `age` reads passphrases from the terminal only: `script` (util-linux) gives it one, a pty whose
// input is what the test writes.
const SCRIPT = '/usr/bin/script';

interface Ran {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

function exec(command: string, args: string[], input?: Uint8Array | string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: childEnv({}), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr }));
    // A command that ends before reading its input (a refusal) closes the pipe under the write:
    // what it answered is in its exit code and stderr, which the test checks.
    child.stdin.on('error', () => {});
    child.stdin.end(input ?? '');
  });
}

const svc = (args: string[], input?: Uint8Array | string) =>
  exec(process.execPath, [join(REPO_ROOT, SVC_BIN), ...args], input);

/** Runs `age` with a terminal whose input is `typed`: its passphrase prompts read from there. */
const ageOnTerminal = (args: string[], typed: string) =>
  exec(SCRIPT, ['-qec', [AGE, ...args].map((arg) => `'${arg}'`).join(' '), '/dev/null'], typed);

let dir: string;
let cleanup: () => void;
let identityFile: string;
let recipient: string;
const plaintext = Buffer.concat([Buffer.from('the plans\n'), randomBytes(100_000)]);
let plainFile: string;

beforeAll(async () => {
  ({ dir, cleanup } = tempDir('svc-age-'));
  identityFile = join(dir, 'key.txt');
  const made = await exec(AGE_KEYGEN, ['-o', identityFile]);
  expect(made.code).toBe(0);
  recipient = (await exec(AGE_KEYGEN, ['-y', identityFile])).stdout.toString().trim();
  plainFile = join(dir, 'plain.bin');
  writeFileSync(plainFile, plaintext);
});
afterAll(() => cleanup());

describe('interoperates with the age command', () => {
  it.each([false, true])('svc encrypts to a recipient (armor %s), age decrypts', async (armor) => {
    const out = join(dir, `to-age-${armor}.age`);
    const made = await svc(['encrypt', plainFile, '-r', recipient, '-o', out, ...(armor ? ['-a'] : [])]);
    expect(made.code, made.stderr).toBe(0);
    expect(ageFormOf(readFileSync(out))).toBe(armor ? 'armored' : 'binary');
    const opened = await exec(AGE, ['-d', '-i', identityFile, out]);
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout.equals(plaintext)).toBe(true);
  });

  it.each([false, true])('age encrypts to a recipient (armor %s), svc decrypts', async (armor) => {
    const sealed = await exec(AGE, ['-r', recipient, ...(armor ? ['-a'] : []), plainFile]);
    expect(sealed.code, sealed.stderr).toBe(0);
    const opened = await svc(['decrypt', '-i', identityFile], sealed.stdout);
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout.equals(plaintext)).toBe(true);
  });

  it('svc encrypts with a passphrase, age decrypts it typed at its prompt', async () => {
    const passFile = join(dir, 'pass-out');
    writeFileSync(passFile, 'correct horse battery staple\n');
    const sealed = join(dir, 'by-pass.age');
    const made = await svc(['encrypt', plainFile, '--passphrase-file', passFile, '-o', sealed]);
    expect(made.code, made.stderr).toBe(0);
    const out = join(dir, 'by-pass.out');
    const opened = await ageOnTerminal(['-d', '-o', out, sealed], 'correct horse battery staple\n');
    expect(opened.code, opened.stdout.toString()).toBe(0);
    expect(readFileSync(out).equals(plaintext)).toBe(true);
  });

  it('age encrypts with a passphrase typed at its prompt, svc decrypts it piped', async () => {
    const sealed = join(dir, 'from-age-pass.age');
    const made = await ageOnTerminal(['-p', '-a', '-o', sealed, plainFile], 'open sesame\nopen sesame\n');
    expect(made.code, made.stdout.toString()).toBe(0);
    const opened = await svc(['decrypt', '-p', sealed], 'open sesame\n');
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout.equals(plaintext)).toBe(true);
    const wrong = await svc(['decrypt', '-p', sealed], 'open barley\n');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('the passphrase is wrong');
    expect(wrong.stdout.length).toBe(0);
  });
});

describe('svc decrypt', () => {
  it('writes the plaintext private to its owner, whole, and never over a file', async () => {
    const sealed = (await exec(AGE, ['-r', recipient, plainFile])).stdout;
    const sealedFile = join(dir, 'private.age');
    writeFileSync(sealedFile, sealed);
    const out = join(dir, 'private.out');
    const opened = await svc(['decrypt', '-i', identityFile, sealedFile, '-o', out]);
    expect(opened.code, opened.stderr).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(readFileSync(out).equals(plaintext)).toBe(true);
    const again = await svc(['decrypt', '-i', identityFile, sealedFile, '-o', out]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
  });

  it('takes no passphrase or identity from the command line, and echoes no secret', async () => {
    const secret = readFileSync(identityFile, 'utf8').match(/AGE-SECRET-KEY-1\w+/)![0];
    const asRecipient = await svc(['encrypt', plainFile, '-r', secret]);
    expect(asRecipient.code).toBe(1);
    expect(asRecipient.stderr).not.toContain(secret.slice(0, 20));
    const both = await svc(['decrypt', '-p', '-i', identityFile, plainFile]);
    expect(both.code).toBe(2);
    const noPass = await svc(['decrypt', '-p'], 'x');
    expect(noPass.code).toBe(2);
    expect(noPass.stderr).toContain('--passphrase-file');
  });
});

describe('decryptAge refuses, with its reason', () => {
  const text = new TextEncoder().encode('a secret');
  let identity: string;
  let byRecipient: Uint8Array;
  let byPassphrase: Uint8Array;

  beforeAll(async () => {
    identity = await generateIdentity();
    byRecipient = await encryptAge(text, { recipients: [await identityToRecipient(identity)] });
    // A lower work factor than age's default keeps the test fast; age accepts any up to 20.
    byPassphrase = await encryptAge(text, { passphrase: 'pw' }, { scryptLogN: 10 });
  });

  const flip = (bytes: Uint8Array, at: number) => {
    const copy = bytes.slice();
    copy[at < 0 ? copy.length + at : at]! ^= 1;
    return copy;
  };

  // The header's MAC follows `---` (C2SP age, "Header"): altering it leaves every stanza intact.
  const macAt = (bytes: Uint8Array) => Buffer.from(bytes).indexOf('\n--- ') + 6;

  const cases: [string, () => Promise<Uint8Array>, string][] = [
    ['a wrong passphrase', () => decryptAge(byPassphrase, { passphrase: 'no' }), 'wrong_passphrase'],
    [
      'an identity on a passphrase file',
      () => decryptAge(byPassphrase, { identities: [identity] }),
      'needs_passphrase',
    ],
    [
      'a passphrase on a recipient file',
      () => decryptAge(byRecipient, { passphrase: 'pw' }),
      'needs_identity',
    ],
    [
      'an identity that is not a recipient',
      async () => decryptAge(byRecipient, { identities: [await generateIdentity()] }),
      'no_identity_matches',
    ],
    ['not an age file', () => decryptAge(text, { passphrase: 'pw' }), 'not_age'],
    ['the smallest input', () => decryptAge(new Uint8Array(0), { passphrase: 'pw' }), 'not_age'],
    [
      'a cut file',
      () => decryptAge(byRecipient.subarray(0, byRecipient.length - 1), { identities: [identity] }),
      'corrupt',
    ],
    ['an altered payload', () => decryptAge(flip(byRecipient, -2), { identities: [identity] }), 'corrupt'],
    [
      'an altered header MAC',
      () => decryptAge(flip(byRecipient, macAt(byRecipient)), { identities: [identity] }),
      'corrupt',
    ],
    [
      'a broken armor',
      () =>
        decryptAge(new TextEncoder().encode('-----BEGIN AGE ENCRYPTED FILE-----\n!!\n'), {
          passphrase: 'pw',
        }),
      'corrupt',
    ],
    ['an empty passphrase', () => decryptAge(byPassphrase, { passphrase: '' }), 'empty_passphrase'],
    ['not a recipient', () => encryptAge(text, { recipients: ['ssh-ed25519 AAAA'] }), 'bad_recipient'],
    [
      'a recipient with a bad checksum',
      () => encryptAge(text, { recipients: [`age1${'q'.repeat(58)}`] }),
      'bad_recipient',
    ],
  ];

  it.each(cases)('%s', async (_name, attempt, code) => {
    const error = await attempt().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(AgeError);
    expect((error as AgeError).code).toBe(code);
  });

  it('reads identity files as age-keygen writes them, and names only the bad line', () => {
    expect(parseIdentityFile(readFileSync(identityFile, 'utf8'))).toHaveLength(1);
    expect(() => parseIdentityFile('# only a comment\n')).toThrow(/holds no identity/);
    expect(() => parseIdentityFile('# c\nAGE-SECRET-KEY-1nope\n')).toThrow(/^line 2 of the identity file/);
  });
});
