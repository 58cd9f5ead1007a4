// svc_protect, svc_open and svc_seal_revoke through a real MCP client on an in-process server:
// sealing a project (a file the gate protects skipped), opening to a file, in place and as text,
// plaintext never in an answer the agent did not ask for, the gate's refusals receipted, and a
// revocation only with the person's confirmation through the client's form.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealFilesOn } from '../../src/backend/seal-files.ts';
import { SEALED_MAGIC } from '../../src/vault/sealed-file.ts';
import { svcCommand } from '../../src/config/command.ts';
import { computer, type Elicit } from './computer.ts';

const here = computer('svc-lock-tool-');
const { project, service, asked } = here;
const secretLine = 'STRIPE_SECRET=made-up-but-secret-value-123';

/** A client of a server with this computer's gate and seals, or with neither. */
const client = (elicit: Elicit, options: { withSeals?: boolean } = {}) =>
  here.client(
    (svc) =>
      options.withSeals === false
        ? { gate: undefined, seals: undefined }
        : { seals: sealFilesOn(() => svc.ctx) },
    elicit,
  );

const sealed = (name: string) => readFileSync(join(project, name)).subarray(0, 8).equals(SEALED_MAGIC);
const rules = here.rules;

beforeAll(() => {
  mkdirSync(join(project, 'config'), { recursive: true });
  rules([{ effect: 'deny', paths: ['locked/'], actions: ['write'] }]);
  writeFileSync(join(project, 'config', 'prod.env'), `${secretLine}\n`);
  writeFileSync(join(project, 'config', 'dev.env'), 'DEBUG=1\n');
  mkdirSync(join(project, 'locked'));
  writeFileSync(join(project, 'locked', 'keep.txt'), 'not yours to seal\n');
});
afterAll(() => here.close());

describe('svc_protect', () => {
  it('seals what the agent may write, skips what it may not, and reports progress', async () => {
    const call = await client('unsupported');
    const progress: number[] = [];
    const result = await call('svc_protect', { paths: ['config', 'locked'], cwd: project }, (p) =>
      progress.push(p.progress),
    );
    expect(result.error, result.text).toBe(false);
    expect(result.data).toMatchObject({
      files_sealed: 2,
      files_skipped: 1,
      files_failed: 0,
      skipped: [{ path: join(project, 'locked', 'keep.txt'), reason: 'protected' }],
    });
    expect(result.data.sealed.map((s: { path: string }) => s.path).sort()).toEqual([
      join(project, 'config', 'dev.env'),
      join(project, 'config', 'prod.env'),
    ]);
    expect(sealed('config/prod.env')).toBe(true);
    expect(sealed('locked/keep.txt')).toBe(false);
    expect(progress.at(-1)).toBe(3);
    expect(result.all).not.toContain('made-up-but-secret');
  });

  it("a path that is not there fails alone; the operating system's folders are never sealed", async () => {
    const call = await client('unsupported');
    writeFileSync(join(project, 'later.txt'), 'sealed all the same\n');
    // Not there: were the rule on system folders broken, nothing of this computer would be sealed.
    const result = await call('svc_protect', {
      paths: ['/etc/svc-test-not-there', 'nope.txt', 'later.txt'],
      cwd: project,
    });
    expect(result.error, result.text).toBe(false);
    expect(result.data).toMatchObject({
      sealed: [{ path: join(project, 'later.txt') }],
      skipped: [{ path: '/etc/svc-test-not-there', reason: 'system_folder' }],
      failed: [{ path: join(project, 'nope.txt'), message: expect.stringContaining('nothing is there') }],
    });
    expect(sealed('later.txt')).toBe(true);
  });
});

describe('svc_open', () => {
  it('needs exactly one destination', async () => {
    const call = await client('unsupported');
    for (const args of [{}, { in_place: true, as_text: true }, { out: 'x', as_text: true }]) {
      const result = await call('svc_open', { path: 'config/prod.env', cwd: project, ...args });
      expect(result.error).toBe(true);
      expect(result.text).toContain('exactly one of');
    }
  });

  it('as text: the plaintext, only because it was asked for, with a receipt', async () => {
    const call = await client('unsupported');
    const result = await call('svc_open', { path: 'config/prod.env', cwd: project, as_text: true });
    expect(result.error, result.text).toBe(false);
    expect(result.data).toMatchObject({ released_to: 'text', out_path: null, text: `${secretLine}\n` });
    expect((await service.ctx.chains.receipt(result.data.receipt_id))!.payload).toMatchObject({
      kind: 'seal.open',
      by: 'agent:mcp',
      released_to: 'text',
    });
    expect(sealed('config/prod.env')).toBe(true);
  });

  it('to a new file: the answer says where, never what', async () => {
    const call = await client('unsupported');
    const result = await call('svc_open', { path: 'config/prod.env', cwd: project, out: 'prod.copy' });
    expect(result.error, result.text).toBe(false);
    expect(result.data).toMatchObject({
      released_to: 'file',
      out_path: join(project, 'prod.copy'),
      text: null,
    });
    expect(result.all).not.toContain('made-up-but-secret');
    expect(readFileSync(join(project, 'prod.copy'), 'utf8')).toBe(`${secretLine}\n`);
  });

  it('refused by a read rule: a tool error with the receipt, and nothing released', async () => {
    rules([{ effect: 'deny', paths: ['config/prod.env'], actions: ['read'], reason: 'live keys' }]);
    try {
      const call = await client('unsupported');
      const result = await call('svc_open', { path: 'config/prod.env', cwd: project, as_text: true });
      expect(result.error).toBe(true);
      expect(result.text).toMatch(/^forbidden: /);
      expect(result.text).toContain('live keys');
      expect(result.all).not.toContain('made-up-but-secret');
      const details = JSON.parse(result.text.slice(result.text.indexOf('\n') + 1)) as Record<string, string>;
      expect((await service.ctx.chains.receipt(details.receipt_id!))!.payload).toMatchObject({
        kind: 'seal.open.deny',
        reason: 'gate',
      });
    } finally {
      rules([{ effect: 'deny', paths: ['locked/'], actions: ['write'] }]);
    }
  });

  it('a copy of a sealed file opens only where the file it was sealed as may be read', async () => {
    writeFileSync(join(project, 'prod-copy.env'), readFileSync(join(project, 'config', 'prod.env')));
    rules([
      { effect: 'deny', paths: ['locked/'], actions: ['write'] },
      { effect: 'deny', paths: ['config/prod.env'], actions: ['read'], reason: 'live keys' },
    ]);
    try {
      const call = await client('unsupported');
      const result = await call('svc_open', { path: 'prod-copy.env', cwd: project, as_text: true });
      expect(result.error).toBe(true);
      expect(result.text).toContain(`was sealed as ${join(project, 'config', 'prod.env')}`);
      expect(result.text).toContain('live keys');
      expect(result.all).not.toContain('made-up-but-secret');
    } finally {
      rules([{ effect: 'deny', paths: ['locked/'], actions: ['write'] }]);
    }
    const call = await client('unsupported');
    const opened = await call('svc_open', { path: 'prod-copy.env', cwd: project, as_text: true });
    expect(opened.error, opened.text).toBe(false);
    expect(opened.data.text).toBe(`${secretLine}\n`);
  });

  it('a destination the agent may not write is refused', async () => {
    const call = await client('unsupported');
    const result = await call('svc_open', { path: 'config/dev.env', cwd: project, out: 'locked/dev.env' });
    expect(result.error).toBe(true);
    expect(existsSync(join(project, 'locked', 'dev.env'))).toBe(false);
  });

  it('an `ask` rule asks the person; declined, nothing is released', async () => {
    rules([{ effect: 'ask', paths: ['config/dev.env'], actions: ['read'] }]);
    try {
      const declined = await (
        await client('decline')
      )('svc_open', { path: 'config/dev.env', cwd: project, as_text: true });
      expect(declined.error).toBe(true);
      expect(declined.all).not.toContain('DEBUG=1');
      // A client that cannot ask: the person is given the command that asks them in a terminal.
      const unasked = await (
        await client('unsupported')
      )('svc_open', { path: 'config/dev.env', cwd: project, as_text: true });
      expect(unasked.error).toBe(true);
      expect(unasked.text).toContain(svcCommand('open', join(project, 'config', 'dev.env'), '--out', '-'));
      const accepted = await (
        await client('accept')
      )('svc_open', { path: 'config/dev.env', cwd: project, in_place: true });
      expect(accepted.error, accepted.text).toBe(false);
      expect(readFileSync(join(project, 'config', 'dev.env'), 'utf8')).toBe('DEBUG=1\n');
      expect(asked.some((m) => m.includes('dev.env'))).toBe(true);
    } finally {
      rules([{ effect: 'deny', paths: ['locked/'], actions: ['write'] }]);
    }
  });
});

describe('svc_seal_revoke', () => {
  it('only with the person: refused without a form, declined, then revoked when confirmed', async () => {
    const target = { target: 'config/prod.env', cwd: project, reason: 'rotated' };
    const without = await (await client('unsupported'))('svc_seal_revoke', target);
    expect(without.error).toBe(true);
    expect(without.text).toContain(
      svcCommand('seal', 'revoke', join(project, 'config', 'prod.env'), '--reason', 'rotated'),
    );
    const declined = await (await client('decline'))('svc_seal_revoke', target);
    expect(declined.error).toBe(true);
    expect(declined.text).toContain('the person declined');

    const confirmed = await (await client('accept'))('svc_seal_revoke', target);
    expect(confirmed.error, confirmed.text).toBe(false);
    expect(confirmed.data).toMatchObject({
      changed: true,
      revoke_reason: 'rotated',
      path: join(project, 'config', 'prod.env'),
    });
    expect(asked.at(-1)).toContain('nobody can open this file');

    const open = await (
      await client('unsupported')
    )('svc_open', { path: 'config/prod.env', cwd: project, as_text: true });
    expect(open.error).toBe(true);
    expect(open.text).toMatch(
      /^gone: seal seal_[0-9a-f]{32} was revoked at .* by agent:mcp, confirmed by the person \(rotated\)/,
    );
  });

  it('a locked file cannot be revoked by the agent', async () => {
    const sealedNow = await sealFilesOn(() => service.ctx).protect([join(project, 'locked', 'keep.txt')], {
      by: 'user:test',
    });
    expect(sealedNow.sealed).toHaveLength(1);
    const result = await (
      await client('accept')
    )('svc_seal_revoke', { target: 'locked/keep.txt', cwd: project });
    expect(result.error).toBe(true);
    expect(result.text).toMatch(/^forbidden: /);
  });

  it('a server without a gate and store of its own touches no file', async () => {
    const call = await client('accept', { withSeals: false });
    const result = await call('svc_protect', { paths: ['.'], cwd: project });
    expect(result.error).toBe(true);
    expect(result.text).toContain('svc mcp');
  });
});
