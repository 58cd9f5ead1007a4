// svc_redact through a real MCP client: a clean copy of a folder whose files the read gate
// treats three ways (allowed, clean copy only, denied): the first two are copied with tokens, the
// denied one is neither read nor copied and is named as protected; the copy's own place is decided
// as a write; no value is ever in the answer.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finderOf } from '../../src/backend/scan.ts';
import { parseCsv } from '../../src/backend/csv.ts';
import { computer } from './computer.ts';
import { svcCommand } from '../../src/config/command.ts';

const here = computer('svc-redact-tool-', [
  { effect: 'deny', paths: ['.env'] },
  { effect: 'redact', paths: ['exports/'], reason: 'customer data' },
  { effect: 'deny', paths: ['locked/'], actions: ['write'] },
]);
const { project, service } = here;
const pick = (alphabet: string, n: number) =>
  Array.from({ length: n }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');
// Built at test time: the repository holds no credential-looking literal.
const awsKey = `AKIA${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`;
const inDotEnv = `AKIA${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`;
const email = `${pick('abcdefghij', 6)}.${pick('klmnopqrst', 7)}@${pick('uvwxyzabc', 6)}-mail.io`;
let redact: (
  args: Record<string, unknown>,
  onprogress?: (p: { progress: number }) => void,
) => ReturnType<Awaited<ReturnType<typeof here.client>>>;

beforeAll(async () => {
  mkdirSync(join(project, 'exports'), { recursive: true });
  writeFileSync(join(project, '.env'), `AWS_ACCESS_KEY_ID=${inDotEnv}\n`);
  writeFileSync(join(project, 'exports', 'customers.csv'), `id,email,note\n1,${email},"key ${awsKey}"\n`);
  writeFileSync(join(project, 'app.json'), JSON.stringify({ owner: email }));
  const call = await here.client((svc) => ({ find: async () => finderOf(svc.ctx) }));
  redact = (args, onprogress) => call('svc_redact', { cwd: project, ...args }, onprogress);
});
afterAll(() => here.close());

describe('svc_redact', () => {
  it('copies what the agent may read or may read only clean, never the denied file, and says no value', async () => {
    const progress: number[] = [];
    const result = await redact({ path: '.', out: '../shop-clean' }, (p) => progress.push(p.progress));
    expect(result.error, result.text).toBe(false);
    const out = join(here.home, 'shop-clean');
    expect(result.data).toEqual({
      out,
      kind: 'folder',
      files_redacted: 2,
      // The project's .svc folder is not copied: its rules are the source's.
      files_copied: 0,
      values_replaced: 3,
      // The clean-only file's email has a token of its own: equal to none of app.json's.
      tokens_by_type: { AWS_ACCESS_KEY: 1, EMAIL: 2 },
      redacted_files: ['app.json', 'exports/customers.csv'],
      skipped: { protected: 1 },
      protected_files: ['.env'],
      copy_id: null,
      next: expect.stringContaining(`read the copy in ${out}`),
    });
    expect(progress.at(-1)).toBe(2);
    expect(existsSync(join(out, '.env'))).toBe(false);
    expect(existsSync(join(out, '.svc'))).toBe(false);
    expect(parseCsv(readFileSync(join(out, 'exports', 'customers.csv'), 'utf8'))).toEqual([
      { id: 1, email: '[EMAIL_2]', note: 'key [AWS_ACCESS_KEY_1]' },
    ]);
    expect(JSON.parse(readFileSync(join(out, 'app.json'), 'utf8'))).toEqual({ owner: '[EMAIL_1]' });
    for (const value of [awsKey, inDotEnv, email]) expect(result.all).not.toContain(value);
    // Made again in the same place: the earlier copy is replaced whole, and the answer says so.
    const again = await redact({ path: '.', out: '../shop-clean' });
    expect(again.error, again.text).toBe(false);
    expect(again.data.next).toContain('it replaced the earlier clean copy there, whole');
    expect(result.data.next).not.toContain('replaced');
  });

  it('copies a file that only a clean copy of may be read', async () => {
    const result = await redact({ path: 'exports/customers.csv', out: '../single' });
    expect(result.error, result.text).toBe(false);
    expect(result.data).toMatchObject({
      out: join(here.home, 'single', 'customers.csv'),
      kind: 'file',
      values_replaced: 2,
    });
    // Beside it, under the same rule: the copy is clean, so the rule lets it be written there.
    const beside = await redact({ path: 'exports/customers.csv' });
    expect(beside.error, beside.text).toBe(false);
    expect(beside.data.out).toBe(join(project, 'exports', 'customers.clean.csv'));
    expect(readFileSync(beside.data.out, 'utf8')).not.toContain(email);
  });

  it('keeps the mapping sealed only when the person says so, and the answer names it without a value', async () => {
    // This client shows no form: without the person's yes (confirmed), nothing is copied.
    const unasked = await redact({ path: 'app.json', out: '../kept', keep_mapping: true });
    expect(unasked.error).toBe(true);
    expect(unasked.text).toContain('confirmed: true');
    expect(existsSync(join(project, '..', 'kept'))).toBe(false);
    const declined = await (
      await here.client((svc) => ({ find: async () => finderOf(svc.ctx) }), 'decline')
    )('svc_redact', { cwd: project, path: 'app.json', out: '../kept', keep_mapping: true, confirmed: true });
    expect(declined.error).toBe(true);
    expect(declined.text).toContain('the person declined');
    const result = await redact({ path: 'app.json', out: '../kept', keep_mapping: true, confirmed: true });
    expect(result.error, result.text).toBe(false);
    const data = result.data as { copy_id: string; next: string };
    expect(data.copy_id).toMatch(/^copy_/);
    expect(data.next).toContain(`${svcCommand('redact', 'reverse', data.copy_id as string, 'FILE')}`);
    expect(result.all).not.toContain(email);
    const row = await service.ctx.store.get<{ sealed_mapping: string; tokens: number }>(
      'SELECT sealed_mapping, tokens FROM clean_copies WHERE copy_id = ?',
      data.copy_id,
    );
    expect(row?.tokens).toBe(1);
    expect(row?.sealed_mapping).not.toContain(email);
    expect(Buffer.from(row!.sealed_mapping, 'base64').toString('latin1')).not.toContain(email);
  });

  it('writes no copy where the gate denies writing', async () => {
    const result = await redact({ path: 'app.json', out: 'locked' });
    expect(result.error).toBe(true);
    expect(result.text).toMatch(/forbidden/);
    expect(existsSync(join(project, 'locked'))).toBe(false);
  });

  it('a protected file alone is refused by name: no copy, no folder, no mapping', async () => {
    const result = await redact({ path: '.env' });
    expect(result.error).toBe(true);
    expect(result.text).toContain(`nothing was copied: the read gate protects ${join(project, '.env')} from`);
    expect(result.text).toContain(`\`svc rules explain ${join(project, '.env')}\``);
    expect(existsSync(join(project, '.env.clean'))).toBe(false);
    expect(result.all).not.toContain(inDotEnv);
  });

  it('a place the copy cannot go is refused before the person is asked to keep the mapping', async () => {
    const accepting = await here.client((svc) => ({ find: async () => finderOf(svc.ctx) }), 'accept');
    const asked = here.asked.length;
    const result = await accepting('svc_redact', {
      path: '.',
      out: 'inner',
      keep_mapping: true,
      cwd: project,
    });
    expect(result.error).toBe(true);
    expect(result.text).toContain('cannot go inside it');
    expect(result.text).toContain('svc_redact: `out`');
    expect(here.asked.length).toBe(asked);
  });

  it('a path that is not there is a tool error that says what to do', async () => {
    const result = await redact({ path: 'nope' });
    expect(result.error).toBe(true);
    expect(result.text).toContain('nothing to copy at');
  });

  it('a named pipe is there but is no file to copy, and says so', async () => {
    execFileSync('mkfifo', [join(project, 'pipe')]);
    try {
      const result = await redact({ path: 'pipe', out: '../pipe-copy' });
      expect(result.error).toBe(true);
      expect(result.text).toContain('is neither a regular file nor a folder');
    } finally {
      rmSync(join(project, 'pipe'));
    }
  });
});
