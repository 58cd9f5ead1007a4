// svc_wrap through a real MCP client on an in-process server: archiving what the agent may read
// (a file the gate protects skipped and receipted), listing, restoring to a new file or back where
// it came from (never over an existing file), and the gate's refusals, with no content in any answer.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveOn } from '../../src/backend/archive.ts';
import { computer } from './computer.ts';

const here = computer('svc-wrap-tool-');
const { project } = here;
const secretLine = 'STRIPE_SECRET=made-up-but-secret-value-123';
const client = (withArchive = true) =>
  here.client((svc) =>
    withArchive ? { archive: archiveOn(() => svc.ctx) } : { gate: undefined, archive: undefined },
  );

beforeAll(() => {
  mkdirSync(join(project, 'config'), { recursive: true });
  here.rules([
    { effect: 'deny', paths: ['private/'], actions: ['read'] },
    { effect: 'deny', paths: ['locked/'], actions: ['write'] },
  ]);
  writeFileSync(join(project, 'config', 'prod.env'), `${secretLine}\n`);
  mkdirSync(join(project, 'private'));
  writeFileSync(join(project, 'private', 'diary.txt'), 'not yours to read\n');
  mkdirSync(join(project, 'locked'));
});
afterAll(() => here.close());

describe('svc_wrap', () => {
  let id = '';

  it('wraps what the agent may read, skips what it may not, and keeps the originals', async () => {
    const call = await client();
    const result = await call('svc_wrap', { action: 'wrap', paths: ['config', 'private'], cwd: project });
    expect(result.error, result.text).toBe(false);
    expect(result.data).toMatchObject({
      action: 'wrap',
      wrapped: [{ path: join(project, 'config', 'prod.env'), deduplicated: false }],
      skipped: [{ path: join(project, 'private', 'diary.txt'), reason: 'protected' }],
      failed: [],
    });
    id = result.data.wrapped[0].object_id as string;
    expect(readFileSync(join(project, 'config', 'prod.env'), 'utf8')).toBe(`${secretLine}\n`);
    expect(result.all).not.toContain('made-up-but-secret');
    const listed = await call('svc_wrap', { action: 'list' });
    expect(listed.data.entries).toEqual([
      expect.objectContaining({ object_id: id, path: join(project, 'config', 'prod.env') }),
    ]);
  });

  it('restores to a new file; never over an existing one; not where the gate forbids writing', async () => {
    const call = await client();
    const back = await call('svc_wrap', { action: 'restore', id, cwd: project });
    expect(back.error).toBe(true);
    expect(back.text).toContain('already exists');
    const out = await call('svc_wrap', { action: 'restore', id, out: 'copy.env', cwd: project });
    expect(out.error, out.text).toBe(false);
    expect(out.data.restored).toMatchObject({ object_id: id, out_path: join(project, 'copy.env') });
    expect(readFileSync(join(project, 'copy.env'), 'utf8')).toBe(`${secretLine}\n`);
    expect(out.all).not.toContain('made-up-but-secret');
    const locked = await call('svc_wrap', { action: 'restore', id, out: 'locked/copy.env', cwd: project });
    expect(locked.error).toBe(true);
    expect(existsSync(join(project, 'locked', 'copy.env'))).toBe(false);
    rmSync(join(project, 'config', 'prod.env'));
    const original = await call('svc_wrap', { action: 'restore', id, cwd: project });
    expect(original.error, original.text).toBe(false);
    expect(readFileSync(join(project, 'config', 'prod.env'), 'utf8')).toBe(`${secretLine}\n`);
  });

  it('a path that is not there fails alone, and the others are wrapped', async () => {
    const call = await client();
    const result = await call('svc_wrap', { action: 'wrap', paths: ['nope.env', 'config'], cwd: project });
    expect(result.error, result.text).toBe(false);
    expect(result.data).toMatchObject({
      wrapped: [{ path: join(project, 'config', 'prod.env') }],
      failed: [{ path: join(project, 'nope.env'), message: expect.stringContaining('nothing is there') }],
    });
    expect(result.text).not.toContain('protect');
  });

  it('bad combinations and a server without an archive are tool errors', async () => {
    const call = await client();
    const noId = await call('svc_wrap', { action: 'restore' });
    expect(noId.error).toBe(true);
    expect(noId.text).toContain('restore needs `id`');
    expect((await call('svc_wrap', { action: 'restore', paths: ['x'] })).error).toBe(true);
    expect((await call('svc_wrap', { action: 'wrap', id })).error).toBe(true);
    const none = await client(false);
    const refused = await none('svc_wrap', { action: 'list' });
    expect(refused.error).toBe(true);
    expect(refused.text).toContain('svc mcp');
  });
});
