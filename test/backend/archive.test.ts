// The archive: wrapping folders into content-addressed objects (equal files stored once, names that
// say nothing without the vault), the index, restoring through the gate to a file or a stream, never
// over an existing file unless forced, every wrap and restore receipted, and tampering refused.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Service } from '../../src/backend/service.ts';
import { ServiceError } from '../../src/backend/errors.ts';
import { archiveDir, listArchive, restoreArchived, wrapPaths } from '../../src/backend/archive.ts';
import { HEADER_BYTES, SEALED_MAGIC } from '../../src/vault/sealed-file.ts';
import { admitEverything, admitNothing, tempDir } from '../helpers.ts';

const home = tempDir('svc-archive-');
let service: Service;
const allow = admitEverything;
const deny = admitNothing;
const by = 'user:test';
const big = randomBytes(3 * 64 * 1024 + 7);

beforeAll(() => {
  service = new Service({ dataDir: join(home.dir, 'svc') });
});
afterAll(() => {
  service.close();
  home.cleanup();
});

const objects = () => readdirSync(join(archiveDir(service.ctx), 'objects'));
const receipts = (kind: string) =>
  (
    service.ctx.store.readDb
      .prepare('SELECT payload FROM service_chain WHERE kind = ? ORDER BY chain_index')
      .all(kind) as { payload: string }[]
  ).map((r) => JSON.parse(r.payload) as Record<string, unknown>);

async function restoreToBuffer(objectId: string): Promise<Buffer> {
  const pieces: Buffer[] = [];
  await restoreArchived(service.ctx, objectId, {
    out: { kind: 'stdout', write: async (bytes) => void pieces.push(Buffer.from(bytes)) },
    by,
    admit: allow,
  });
  return Buffer.concat(pieces);
}

describe('the archive', () => {
  const dir = join(home.dir, 'docs');
  let ids: Record<string, string> = {};

  it('wraps a folder recursively; equal files are stored once; the originals stay', async () => {
    mkdirSync(join(dir, 'sub'), { recursive: true });
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, 'a.txt'), 'the plan\n');
    writeFileSync(join(dir, 'sub', 'copy-of-a.txt'), 'the plan\n');
    writeFileSync(join(dir, 'big.bin'), big);
    writeFileSync(join(dir, 'empty'), '');
    const result = await wrapPaths(service.ctx, [dir], { by });
    expect(result.failed).toEqual([]);
    expect(result.skipped).toEqual([{ path: join(dir, '.git'), reason: 'version_control' }]);
    ids = Object.fromEntries(result.wrapped.map((w) => [w.path.slice(dir.length + 1), w.object_id]));
    expect(Object.keys(ids).sort()).toEqual(['a.txt', 'big.bin', 'empty', 'sub/copy-of-a.txt']);
    expect(ids['a.txt']).toBe(ids['sub/copy-of-a.txt']);
    expect(result.wrapped.find((w) => w.path.endsWith('copy-of-a.txt'))!.deduplicated).toBe(true);
    expect(objects()).toHaveLength(3);
    for (const id of new Set(Object.values(ids))) {
      const file = join(archiveDir(service.ctx), 'objects', id.slice(4));
      expect(readFileSync(file).subarray(0, 8).equals(SEALED_MAGIC)).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      // The name is keyed: it is not the plain SHA-256 of the content.
      expect(readFileSync(file).includes(Buffer.from('the plan'))).toBe(false);
    }
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('the plan\n');
    expect(receipts('wrap')).toHaveLength(4);
    const listed = await listArchive(service.ctx);
    expect(listed.map((e) => e.path).sort()).toEqual(result.wrapped.map((w) => w.path).sort());
    expect(listed.every((e) => e.original_removed_at === null)).toBe(true);
  });

  it('wrapping the same content again stores nothing new', async () => {
    const again = await wrapPaths(service.ctx, [join(dir, 'big.bin')], { by });
    expect(again.wrapped[0]).toMatchObject({ object_id: ids['big.bin'], deduplicated: true });
    expect(objects()).toHaveLength(3);
  });

  it('restores to a stream and to a new file, and never over an existing one unless forced', async () => {
    expect((await restoreToBuffer(ids['big.bin']!)).equals(big)).toBe(true);
    expect((await restoreToBuffer(ids['empty']!)).length).toBe(0);
    const out = join(home.dir, 'restored.bin');
    const restored = await restoreArchived(service.ctx, ids['big.bin']!, {
      out: { kind: 'file', path: out, force: false },
      by,
      admit: allow,
    });
    expect(restored).toMatchObject({
      released_to: 'file',
      out_path: out,
      bytes: big.length,
      path: join(dir, 'big.bin'),
    });
    expect(readFileSync(out).equals(big)).toBe(true);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const twice = restoreArchived(service.ctx, ids['a.txt']!, {
      out: { kind: 'file', path: out, force: false },
      by,
      admit: allow,
    });
    await expect(twice).rejects.toMatchObject({
      code: 'conflict',
      details: { receipt_id: expect.stringMatching(/^rcpt_/) },
    });
    expect(readFileSync(out).equals(big)).toBe(true);
    await restoreArchived(service.ctx, ids['a.txt']!, {
      out: { kind: 'file', path: out, force: true },
      by,
      admit: allow,
    });
    expect(readFileSync(out, 'utf8')).toBe('the plan\n');
    // Back where it was wrapped from: the original is still there, so only with force.
    await expect(
      restoreArchived(service.ctx, ids['a.txt']!, {
        out: { kind: 'original', force: false },
        by,
        admit: allow,
      }),
    ).rejects.toMatchObject({ code: 'conflict' });
    expect(readdirSync(home.dir).filter((n) => n.startsWith('.svc-'))).toEqual([]);
  });

  it('the gate refuses: nothing released, a receipt of the refusal; a refused wrap is receipted too', async () => {
    const out = join(home.dir, 'denied.txt');
    let asked: [readonly string[], string | null] | undefined;
    const refused = await restoreArchived(service.ctx, ids['a.txt']!, {
      out: { kind: 'file', path: out, force: false },
      by,
      admit: async (from, to) => {
        asked = [from, to];
        return deny();
      },
    }).catch((e: unknown) => e as ServiceError);
    expect(refused).toMatchObject({
      code: 'forbidden',
      details: { receipt_id: expect.stringMatching(/^rcpt_/) },
    });
    expect(asked![0].slice().sort()).toEqual([join(dir, 'a.txt'), join(dir, 'sub', 'copy-of-a.txt')]);
    expect(asked![1]).toBe(out);
    expect(existsSync(out)).toBe(false);
    expect(receipts('wrap.restore.deny').at(-1)).toMatchObject({ reason: 'gate', object_id: ids['a.txt'] });

    const wrapped = await wrapPaths(service.ctx, [join(dir, 'a.txt')], { by, admit: deny });
    expect(wrapped.skipped).toEqual([{ path: join(dir, 'a.txt'), reason: 'protected' }]);
    expect(receipts('wrap.deny').at(-1)).toMatchObject({ reason: 'gate', path: join(dir, 'a.txt') });
  });

  it('bad ids, unknown objects, and altered or swapped objects are refused with nothing released', async () => {
    await expect(restoreToBuffer('arc_nope')).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(restoreToBuffer(`arc_${'0'.repeat(32)}`)).rejects.toMatchObject({ code: 'not_found' });
    const objectsPath = join(archiveDir(service.ctx), 'objects');
    const bigFile = join(objectsPath, ids['big.bin']!.slice(4));
    const kept = readFileSync(bigFile);
    try {
      const altered = Buffer.from(kept);
      altered[HEADER_BYTES + 70_000]! ^= 1;
      writeFileSync(bigFile, altered);
      const pieces: Buffer[] = [];
      await expect(
        restoreArchived(service.ctx, ids['big.bin']!, {
          out: { kind: 'stdout', write: async (b) => void pieces.push(b) },
          by,
          admit: allow,
        }),
      ).rejects.toMatchObject({ code: 'sealed_corrupt' });
      expect(pieces).toEqual([]);
      // Another object under this name opens, but its content is not what the name says.
      writeFileSync(bigFile, readFileSync(join(objectsPath, ids['a.txt']!.slice(4))));
      await expect(restoreToBuffer(ids['big.bin']!)).rejects.toMatchObject({
        code: 'sealed_corrupt',
        message: expect.stringContaining('does not hold the file its name says'),
      });
    } finally {
      writeFileSync(bigFile, kept);
    }
  });

  it('--remove removes the original only once it is archived', async () => {
    const file = join(home.dir, 'to-remove.txt');
    writeFileSync(file, 'remove me\n');
    const result = await wrapPaths(service.ctx, [file], { by, remove: true });
    expect(result.wrapped[0]).toMatchObject({ original_removed: true });
    expect(existsSync(file)).toBe(false);
    await restoreArchived(service.ctx, result.wrapped[0]!.object_id, {
      out: { kind: 'original', force: false },
      by,
      admit: allow,
    });
    expect(readFileSync(file, 'utf8')).toBe('remove me\n');
    expect((await listArchive(service.ctx)).find((e) => e.path === file)!.original_removed_at).not.toBeNull();
  });

  it("never wraps (or removes) the operating system's files", async () => {
    // A path that is not there: if the rule failed, nothing of this computer would be touched.
    const result = await wrapPaths(service.ctx, ['/etc/svc-test-not-there'], { by, remove: true });
    expect(result.skipped).toEqual([{ path: '/etc/svc-test-not-there', reason: 'system_folder' }]);
    expect(result.wrapped).toEqual([]);
  });

  it('a path that is not there is a failure of its own, receipted; the others are wrapped and removed, and said so', async () => {
    const first = join(home.dir, 'first-to-remove.txt');
    const last = join(home.dir, 'last-to-remove.txt');
    const missing = join(home.dir, 'never-there.txt');
    writeFileSync(first, 'first\n');
    writeFileSync(last, 'last\n');
    const result = await wrapPaths(service.ctx, [first, missing, last], { by, remove: true });
    expect(result.wrapped.map((w) => [w.path, w.original_removed])).toEqual([
      [first, true],
      [last, true],
    ]);
    expect(result.failed).toEqual([
      { path: missing, message: expect.stringContaining('nothing is there'), receipt_id: expect.any(String) },
    ]);
    expect(result.failed[0]!.message).not.toContain('protect');
    expect((await service.ctx.chains.receipt(result.failed[0]!.receipt_id!))!.payload).toMatchObject({
      kind: 'wrap.deny',
      path: missing,
      reason: 'failed',
    });
    expect(existsSync(first) || existsSync(last)).toBe(false);
  });
});
