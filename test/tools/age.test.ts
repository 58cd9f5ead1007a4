// svc_encrypt and svc_decrypt through a real MCP client on an in-process server: a round trip
// through a file and through armored text, the read gate's refusals (the file, the identity file),
// no passphrase argument, and no key or plaintext in an answer the agent did not ask for.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateIdentity, identityToRecipient } from 'age-encryption';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computer } from './computer.ts';

const here = computer('svc-age-tool-', [{ effect: 'deny', paths: ['keys/'], actions: ['read'] }]);
const { project } = here;
const keys = join(project, 'keys');
let identity: string;
let recipient: string;

/** A client of a server with this computer's gate, or with none. */
const client = (withGate = true) => here.client(() => (withGate ? {} : { gate: undefined }));

beforeAll(async () => {
  mkdirSync(keys);
  identity = await generateIdentity();
  recipient = await identityToRecipient(identity);
  writeFileSync(join(keys, 'me.txt'), `# created: in a test\n# public key: ${recipient}\n${identity}\n`);
  writeFileSync(join(project, 'keys-copy.txt'), `${identity}\n`);
  writeFileSync(join(project, 'notes.txt'), 'the launch is on Tuesday\n');
});
afterAll(() => here.close());

describe('svc_encrypt and svc_decrypt', () => {
  it('round-trips a file: encrypted to a new file, decrypted to a private one', async () => {
    const call = await client();
    const sealed = await call('svc_encrypt', {
      path: 'notes.txt',
      recipients: [recipient],
      out: 'notes.txt.age',
      cwd: project,
    });
    expect(sealed.error, sealed.text).toBe(false);
    expect(sealed.data).toMatchObject({
      bytes_in: 25,
      out_path: join(project, 'notes.txt.age'),
      armored: null,
    });
    expect(readFileSync(join(project, 'notes.txt.age')).subarray(0, 21).toString()).toBe(
      'age-encryption.org/v1',
    );

    const opened = await call('svc_decrypt', {
      path: 'notes.txt.age',
      identity_file: 'keys-copy.txt',
      out: 'notes.out',
      cwd: project,
    });
    expect(opened.error, opened.text).toBe(false);
    expect(opened.data).toMatchObject({ bytes_out: 25, text: null });
    expect(opened.all).not.toContain('Tuesday');
    expect(opened.all).not.toContain(identity);
    expect(statSync(join(project, 'notes.out')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(project, 'notes.out'), 'utf8')).toBe('the launch is on Tuesday\n');
  });

  it('answers armored text when no file is named, and its plaintext only when asked', async () => {
    const call = await client();
    const sealed = await call('svc_encrypt', { text: 'meet at noon', recipients: [recipient], cwd: project });
    expect(sealed.error, sealed.text).toBe(false);
    const armored = sealed.data.armored as string;
    expect(armored).toMatch(/^-----BEGIN AGE ENCRYPTED FILE-----\n/);
    expect(sealed.all).not.toContain('meet at noon');

    const opened = await call('svc_decrypt', {
      armored,
      identity_file: 'keys-copy.txt',
      as_text: true,
      cwd: project,
    });
    expect(opened.error, opened.text).toBe(false);
    expect(opened.data.text).toBe('meet at noon');
  });

  it('refuses what the gate does not let it read, before reading anything', async () => {
    const call = await client();
    const armored = (await call('svc_encrypt', { text: 'x', recipients: [recipient], cwd: project })).data
      .armored as string;
    const refused = await call('svc_decrypt', {
      armored,
      identity_file: 'keys/me.txt',
      as_text: true,
      cwd: project,
    });
    expect(refused.error).toBe(true);
    expect(refused.all).not.toContain(identity);
  });

  it.each([
    ['a passphrase argument', 'svc_encrypt', { text: 'x', passphrase: 'pw', recipients: [] }],
    ['a secret key as a recipient', 'svc_encrypt', { text: 'x', recipients: ['AGE-SECRET-KEY-1QQQQ'] }],
    ['both text and path', 'svc_encrypt', { text: 'x', path: 'notes.txt', recipients: ['age1x'] }],
    ['no destination', 'svc_decrypt', { path: 'notes.txt.age', identity_file: 'keys-copy.txt' }],
  ])('refuses %s', async (_name, tool, args) => {
    const call = await client();
    const refused = await call(tool, { ...args, cwd: project });
    expect(refused.error).toBe(true);
    expect(refused.all).not.toContain('AGE-SECRET-KEY-1QQQQ');
  });

  it('says why a file does not open: another recipient, not an age file', async () => {
    const call = await client();
    const other = await identityToRecipient(await generateIdentity());
    await call('svc_encrypt', { text: 'x', recipients: [other], out: 'other.age', cwd: project });
    const wrong = await call('svc_decrypt', {
      path: 'other.age',
      identity_file: 'keys-copy.txt',
      as_text: true,
      cwd: project,
    });
    expect(wrong.error).toBe(true);
    expect(wrong.text).toContain('none of the identities');
    const notAge = await call('svc_decrypt', {
      path: 'notes.txt',
      identity_file: 'keys-copy.txt',
      out: 'never.out',
      cwd: project,
    });
    expect(notAge.text).toContain('not an age file');
    expect(existsSync(join(project, 'never.out'))).toBe(false);
  });

  it('touches no file on a server without a read gate', async () => {
    const call = await client(false);
    const refused = await call('svc_encrypt', { path: 'notes.txt', recipients: [recipient], cwd: project });
    expect(refused.error).toBe(true);
    expect(refused.text).toContain('no read gate');
  });
});
