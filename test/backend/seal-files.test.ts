// Files sealed in place: protect (folders, what is skipped and why), open through the gate to a
// file, in place, to a stream and as text, each open and refusal receipted, every tampering refused
// with nothing left behind, and revocation destroying the key.
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  linkSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Service } from '../../src/backend/service.ts';
import { ServiceError } from '../../src/backend/errors.ts';
import {
  listSeals,
  openSealed,
  protectPaths,
  revokeSeal,
  type OpenTarget,
} from '../../src/backend/seal-files.ts';
import { systemPlaceOf } from '../../src/backend/system-folders.ts';
import { HEADER_BYTES, SEALED_MAGIC, TAG_BYTES } from '../../src/vault/sealed-file.ts';
import { admitEverything, admitNothing, tempDir } from '../helpers.ts';

const home = tempDir('svc-seal-files-');
let service: Service;
const allow = admitEverything;
const deny = admitNothing;
const by = 'user:test';
let folderNo = 0;

/** A fresh folder holding `files` (name to content). */
function folderWith(files: Record<string, Buffer | string>): string {
  const dir = join(home.dir, `work-${folderNo++}`);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

/** Every name under `dir`, relative, sorted: what is on disk after an operation. */
const namesIn = (dir: string) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => name.replaceAll('\\', '/'))
    .sort();

async function failure(attempt: Promise<unknown>): Promise<ServiceError> {
  const outcome = await attempt.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(ServiceError);
  return outcome as ServiceError;
}

async function receiptOf(id: unknown) {
  const receipt = await service.ctx.chains.receipt(String(id));
  expect(receipt, `receipt ${String(id)}`).toBeDefined();
  expect((await service.ctx.chains.check(String(id))).authentic).toBe(true);
  return receipt!;
}

const isSealed = (path: string) => readFileSync(path).subarray(0, 8).equals(SEALED_MAGIC);

beforeAll(() => {
  service = new Service({ dataDir: join(home.dir, 'svc') });
});
afterAll(() => {
  service.close();
  home.cleanup();
});

describe('protect', () => {
  it('seals every file of a folder in place, keeps names and modes, and receipts each', async () => {
    const chunk = 64 * 1024;
    const contents = {
      'empty.txt': Buffer.alloc(0),
      'one.txt': Buffer.from('x'),
      'chunk.bin': randomBytes(chunk),
      'nested/deeper/more.bin': randomBytes(chunk + 1),
      '.env': 'API_KEY=not-a-real-one\n',
    };
    const dir = folderWith(contents);
    chmodSync(join(dir, '.env'), 0o640);
    const progress: string[] = [];
    const result = await protectPaths(service.ctx, [dir], {
      by,
      onProgress: (p) => progress.push(`${p.step}:${p.files}`),
    });
    expect(result.failed).toEqual([]);
    expect(result.skipped).toEqual([]);
    expect(result.sealed.map((s) => s.path.slice(dir.length + 1)).sort()).toEqual(
      Object.keys(contents).sort(),
    );
    expect(namesIn(dir)).toEqual([
      '.env',
      'chunk.bin',
      'empty.txt',
      'nested',
      'nested/deeper',
      'nested/deeper/more.bin',
      'one.txt',
    ]);
    for (const [name, content] of Object.entries(contents)) {
      const sealed = readFileSync(join(dir, name));
      expect(sealed.subarray(0, 8)).toEqual(SEALED_MAGIC);
      // Long enough that it cannot turn up in ciphertext by chance.
      if (content.length >= 16) expect(sealed.includes(Buffer.from(content).subarray(0, 16))).toBe(false);
    }
    expect(statSync(join(dir, '.env')).mode & 0o777).toBe(0o640);
    expect(progress.filter((p) => p.startsWith('done:')).length).toBe(5);
    expect(progress.at(-1)).toBe('done:5');
    for (const sealed of result.sealed) {
      const receipt = await receiptOf(sealed.receipt_id);
      expect(receipt.payload).toMatchObject({
        kind: 'seal.protect',
        seal_id: sealed.seal_id,
        path: sealed.path,
        by,
      });
    }
    // The store keeps the data keys wrapped only: sealed values, never 32 loose bytes.
    const rows = await service.ctx.store.all<{ wrapped_key: string; sealed_at: string | null }>(
      'SELECT wrapped_key, sealed_at FROM seals WHERE seal_id IN (' +
        result.sealed.map(() => '?').join(',') +
        ')',
      ...result.sealed.map((s) => s.seal_id),
    );
    expect(rows.every((r) => /^[A-Za-z0-9+/]{80}$/.test(r.wrapped_key) && r.sealed_at)).toBe(true);
  });

  it('skips what is already sealed, links, hard-linked files, svc data and .git, and says so', async () => {
    const dir = folderWith({ 'a.txt': 'alpha', '.git/config': '[core]', 'b.txt': 'beta' });
    await protectPaths(service.ctx, [join(dir, 'a.txt')], { by });
    symlinkSync(join(dir, 'b.txt'), join(dir, 'link.txt'));
    writeFileSync(join(dir, 'c.txt'), 'gamma');
    linkSync(join(dir, 'c.txt'), join(dir, 'c-again.txt'));
    const result = await protectPaths(service.ctx, [dir, service.dataDir], { by });
    const reasons = Object.fromEntries(result.skipped.map((s) => [s.path.replace(dir, '.'), s.reason]));
    expect(reasons).toEqual({
      './.git': 'version_control',
      './a.txt': 'already_sealed',
      './c-again.txt': 'hard_linked',
      './c.txt': 'hard_linked',
      './link.txt': 'symlink',
      [service.dataDir]: 'svc_data',
    });
    expect(result.sealed.map((s) => s.path)).toEqual([join(dir, 'b.txt')]);
    expect(readFileSync(join(dir, 'c.txt'), 'utf8')).toBe('gamma');
    expect(readFileSync(join(dir, '.git/config'), 'utf8')).toBe('[core]');
  });

  it("skips svc's data dir reached through a link to it or to a folder above it", async () => {
    const dir = folderWith({ 'kept.txt': 'kept' });
    const toData = join(dir, 'to-data');
    symlinkSync(service.dataDir, toData);
    const toParent = join(dir, 'to-parent');
    symlinkSync(dirname(service.dataDir), toParent);
    const throughLink = join(toData, 'keys');
    const throughParent = join(toParent, basename(service.dataDir));
    const before = readdirSync(join(service.dataDir, 'keys')).map((name) =>
      readFileSync(join(service.dataDir, 'keys', name)),
    );
    const result = await protectPaths(service.ctx, [throughLink, throughParent], { by });
    expect(result.sealed).toEqual([]);
    expect(result.skipped).toEqual([
      { path: throughLink, reason: 'svc_data' },
      { path: throughParent, reason: 'svc_data' },
    ]);
    const after = readdirSync(join(service.dataDir, 'keys')).map((name) =>
      readFileSync(join(service.dataDir, 'keys', name)),
    );
    expect(after).toEqual(before);
  });

  it('skips what the gate does not let the caller change', async () => {
    const dir = folderWith({ 'kept.txt': 'kept' });
    const result = await protectPaths(service.ctx, [dir], { by, admit: deny });
    expect(result.skipped).toEqual([{ path: join(dir, 'kept.txt'), reason: 'protected' }]);
    expect(readFileSync(join(dir, 'kept.txt'), 'utf8')).toBe('kept');
  });

  it('a path that is not there is a failure of its own: the paths before and after it are sealed, and said so', async () => {
    const dir = folderWith({ 'a.txt': 'alpha', 'b.txt': 'beta' });
    const missing = join(dir, 'nope.txt');
    const result = await protectPaths(service.ctx, [join(dir, 'a.txt'), missing, join(dir, 'b.txt')], { by });
    expect(result.sealed.map((s) => s.path)).toEqual([join(dir, 'a.txt'), join(dir, 'b.txt')]);
    expect(result.failed).toEqual([{ path: missing, message: expect.stringContaining('nothing is there') }]);
    expect(isSealed(join(dir, 'a.txt')) && isSealed(join(dir, 'b.txt'))).toBe(true);
  });

  it("never seals the operating system's folders: a file there, or one reached through a link to them", async () => {
    const dir = folderWith({ 'mine.txt': 'mine' });
    symlinkSync('/etc', join(dir, 'etc-link'));
    // Paths that are not there: if the rule failed, nothing of this computer would be sealed.
    const inside = [
      '/etc/svc-test-not-there',
      '/usr/lib/svc-test-not-there',
      join(dir, 'etc-link', 'svc-test-not-there'),
    ];
    const result = await protectPaths(service.ctx, [...inside, join(dir, 'mine.txt')], { by });
    expect(result.skipped).toEqual(inside.map((path) => ({ path, reason: 'system_folder' })));
    expect(result.failed).toEqual([]);
    expect(result.sealed.map((s) => s.path)).toEqual([join(dir, 'mine.txt')]);
  });
});

describe('system folders', () => {
  it.each([
    ['/etc/hostname', 'system'],
    ['/etc', 'system'],
    ['/usr/local/bin/tool', 'system'],
    ['/lib64/ld.so', 'system'],
    ['/proc/1/environ', 'system'],
    ['/var/log/syslog', 'system'],
    ['/var', 'above_open'],
    ['/var/tmp/report.txt', null],
    ['/private/var/folders/xy/T/a.txt', null],
    ['/etcetera/notes.txt', null],
    ['/srv/data/a.csv', null],
    ['/opt/app/data.db', null],
    [join(homedir(), 'notes.txt'), null],
    [join(tmpdir(), 'a.txt'), null],
  ] as const)('%s: %s', (path, place) => {
    expect(systemPlaceOf(path)).toBe(place);
  });
});

describe('open', () => {
  const original = randomBytes(3 * 64 * 1024 + 123);
  let dir: string;
  let sealedPath: string;
  let sealId: string;

  beforeAll(async () => {
    dir = folderWith({ 'report.bin': original, 'note.txt': 'hello, sealed world' });
    const result = await protectPaths(service.ctx, [dir], { by });
    sealedPath = join(dir, 'report.bin');
    sealId = result.sealed.find((s) => s.path === sealedPath)!.seal_id;
  });

  it('to a new file: the plaintext, private to the owner, and a receipt', async () => {
    const out = join(dir, 'report.copy');
    const opened = await openSealed(service.ctx, sealedPath, {
      out: { kind: 'file', path: out },
      by,
      admit: allow,
    });
    expect(readFileSync(out).equals(original)).toBe(true);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(opened).toMatchObject({
      seal_id: sealId,
      released_to: 'file',
      out_path: out,
      bytes: original.length,
    });
    const receipt = await receiptOf(opened.receipt_id);
    expect(receipt.payload).toMatchObject({
      kind: 'seal.open',
      seal_id: sealId,
      released_to: 'file',
      out_path: out,
    });
    expect(isSealed(sealedPath)).toBe(true);
    const refused = await failure(
      openSealed(service.ctx, sealedPath, { out: { kind: 'file', path: out }, by, admit: allow }),
    );
    expect(refused.code).toBe('conflict');
    expect(refused.details.receipt_id).toBeDefined();
  });

  it('to a stream: every chunk checked first, then the plaintext', async () => {
    const written: Buffer[] = [];
    const steps: string[] = [];
    const out: OpenTarget = { kind: 'stdout', write: async (bytes) => void written.push(Buffer.from(bytes)) };
    const opened = await openSealed(service.ctx, sealedPath, {
      out,
      by,
      admit: allow,
      onProgress: (p) => {
        if (p.step !== 'chunk') steps.push(p.step);
        else if (steps.at(-1) !== 'chunk') steps.push('chunk');
        if (p.step === 'chunk') expect(written).toEqual([]);
      },
    });
    expect(Buffer.concat(written).equals(original)).toBe(true);
    expect(steps).toEqual(['admitted', 'chunk', 'verified', 'receipted', 'released']);
    expect(opened.released_to).toBe('stdout');
  });

  it('as text, UTF-8 and small only', async () => {
    const opened = await openSealed(service.ctx, join(dir, 'note.txt'), {
      out: { kind: 'text', maxBytes: 1024 },
      by,
      admit: allow,
    });
    expect(opened.text).toBe('hello, sealed world');
    const big = await failure(
      openSealed(service.ctx, sealedPath, { out: { kind: 'text', maxBytes: 1024 }, by, admit: allow }),
    );
    expect(big.code).toBe('payload_too_large');
    const binary = await failure(
      openSealed(service.ctx, sealedPath, { out: { kind: 'text', maxBytes: 1 << 20 }, by, admit: allow }),
    );
    expect(binary.message).toContain('not UTF-8 text');
  });

  it('refused by the gate: nothing read or written, and the refusal receipted', async () => {
    const before = namesIn(dir);
    const error = await failure(
      openSealed(service.ctx, sealedPath, { out: { kind: 'in_place' }, by, admit: deny }),
    );
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain('denies reading');
    expect(namesIn(dir)).toEqual(before);
    expect(isSealed(sealedPath)).toBe(true);
    const receipt = await receiptOf(error.details.receipt_id);
    expect(receipt.payload).toMatchObject({
      kind: 'seal.open.deny',
      reason: 'gate',
      gate: { outcome: 'denied', rule_id: 'computer:1', audit_id: 'aud_1_x' },
    });
  });

  it('back in place: the original bytes and mode, then it can be sealed again', async () => {
    const one = folderWith({ 'in-place.bin': original });
    const path = join(one, 'in-place.bin');
    chmodSync(path, 0o604);
    await protectPaths(service.ctx, [path], { by });
    expect(isSealed(path)).toBe(true);
    const opened = await openSealed(service.ctx, path, { out: { kind: 'in_place' }, by, admit: allow });
    expect(opened.out_path).toBe(path);
    expect(readFileSync(path).equals(original)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o604);
    expect(namesIn(one)).toEqual(['in-place.bin']);
    const again = await protectPaths(service.ctx, [path], { by });
    expect(again.sealed).toHaveLength(1);
  });

  it('a copy or a hard link of a sealed file opens only if the path it was sealed as may be read too', async () => {
    const one = folderWith({ 'secret.txt': 'the original' });
    const sealedAs = join(one, 'secret.txt');
    await protectPaths(service.ctx, [sealedAs], { by });
    const copy = join(one, 'copy.txt');
    const hardLink = join(one, 'link.txt');
    writeFileSync(copy, readFileSync(sealedAs));
    linkSync(sealedAs, hardLink);
    // The gate allows the copy's own path and refuses the path the file was sealed as.
    const asked: string[] = [];
    const admit = async (path: string, role: 'opened' | 'sealed_as') => {
      asked.push(`${role} ${path}`);
      return path === sealedAs ? deny() : allow();
    };
    for (const path of [copy, hardLink]) {
      asked.length = 0;
      const error = await failure(
        openSealed(service.ctx, path, { out: { kind: 'text', maxBytes: 1024 }, by, admit }),
      );
      expect(error.code).toBe('forbidden');
      expect(error.message).toContain(`was sealed as ${sealedAs}`);
      expect(asked).toEqual([`opened ${path}`, `sealed_as ${sealedAs}`]);
      expect((await receiptOf(error.details.receipt_id)).payload).toMatchObject({
        kind: 'seal.open.deny',
        reason: 'gate',
        sealed_as: { path: sealedAs, gate: { outcome: 'denied' } },
      });
    }
    // Allowed at both: the copy opens, and its receipt names the path it was sealed as.
    const opened = await openSealed(service.ctx, copy, {
      out: { kind: 'text', maxBytes: 1024 },
      by,
      admit: allow,
    });
    expect(opened.text).toBe('the original');
    expect((await receiptOf(opened.receipt_id)).payload).toMatchObject({ sealed_as: { path: sealedAs } });
    // The file under its own name asks its own path once.
    asked.length = 0;
    await failure(openSealed(service.ctx, sealedAs, { out: { kind: 'text', maxBytes: 1024 }, by, admit }));
    expect(asked).toEqual([`opened ${sealedAs}`]);
  });

  it('a file that is not sealed is refused, and the refusal receipted', async () => {
    const plain = folderWith({ 'plain.txt': 'not sealed' });
    const error = await failure(
      openSealed(service.ctx, join(plain, 'plain.txt'), { out: { kind: 'in_place' }, by, admit: allow }),
    );
    expect(error.message).toContain('not a sealed file');
    expect((await receiptOf(error.details.receipt_id)).payload).toMatchObject({ reason: 'not_sealed' });
  });
});

describe('tampering: refused with a clear error, nothing released, nothing left behind', () => {
  const chunk = 64 * 1024;
  const original = randomBytes(2 * chunk + 500);

  /** A sealed copy altered by `alter`, opened to a file beside it. */
  async function openAltered(
    alter: (sealed: Buffer) => Buffer,
    target: 'file' | 'in_place' | 'stdout' = 'file',
  ) {
    const dir = folderWith({ 'secret.bin': original });
    const path = join(dir, 'secret.bin');
    await protectPaths(service.ctx, [path], { by });
    writeFileSync(path, alter(readFileSync(path)));
    const tampered = readFileSync(path);
    const written: Buffer[] = [];
    const out: OpenTarget =
      target === 'file'
        ? { kind: 'file', path: join(dir, 'out.bin') }
        : target === 'stdout'
          ? { kind: 'stdout', write: async (b) => void written.push(Buffer.from(b)) }
          : { kind: 'in_place' };
    const error = await failure(openSealed(service.ctx, path, { out, by, admit: allow }));
    expect(namesIn(dir)).toEqual(['secret.bin']);
    expect(readFileSync(path).equals(tampered)).toBe(true);
    expect(written).toEqual([]);
    expect((await receiptOf(error.details.receipt_id)).payload).toMatchObject({ kind: 'seal.open.deny' });
    return error;
  }

  const chunkAt = (sealed: Buffer, i: number) =>
    sealed.subarray(HEADER_BYTES + i * (chunk + TAG_BYTES), HEADER_BYTES + (i + 1) * (chunk + TAG_BYTES));

  it.each(['file', 'in_place', 'stdout'] as const)('a flipped bit in the last chunk (%s)', async (target) => {
    const error = await openAltered((s) => {
      s[s.length - 20]! ^= 4;
      return s;
    }, target);
    expect(error.code).toBe('sealed_corrupt');
    expect(error.message).toContain('did not authenticate');
  });

  it('a flipped bit in the header', async () => {
    const error = await openAltered((s) => {
      s[33]! ^= 1;
      return s;
    });
    expect(error.code).toBe('sealed_corrupt');
  });

  it('a truncation at a chunk boundary and inside a chunk', async () => {
    const cut = await openAltered((s) => s.subarray(0, HEADER_BYTES + 2 * (chunk + TAG_BYTES)), 'in_place');
    expect(cut.message).toContain('cut short');
    const inside = await openAltered((s) => s.subarray(0, s.length - 7));
    expect(inside.code).toBe('sealed_corrupt');
  });

  it('two chunks swapped, and one dropped', async () => {
    const swapped = await openAltered((s) =>
      Buffer.concat([
        s.subarray(0, HEADER_BYTES),
        chunkAt(s, 1),
        chunkAt(s, 0),
        s.subarray(HEADER_BYTES + 2 * (chunk + TAG_BYTES)),
      ]),
    );
    expect(swapped.message).toContain('chunk 0');
    const dropped = await openAltered((s) =>
      Buffer.concat([
        s.subarray(0, HEADER_BYTES),
        chunkAt(s, 0),
        s.subarray(HEADER_BYTES + 2 * (chunk + TAG_BYTES)),
      ]),
    );
    expect(dropped.code).toBe('sealed_corrupt');
  });

  it("another seal's id in the header (the wrong key)", async () => {
    const other = folderWith({ 'other.txt': 'other' });
    await protectPaths(service.ctx, [other], { by });
    const otherHeader = readFileSync(join(other, 'other.txt')).subarray(0, HEADER_BYTES);
    const error = await openAltered((s) => Buffer.concat([otherHeader, s.subarray(HEADER_BYTES)]));
    expect(error.message).toContain('another key');
  });

  it('a seal this store does not know', async () => {
    const error = await openAltered((s) => {
      s[20]! ^= 0xff;
      return s;
    });
    expect(error.code).toBe('not_found');
    expect(error.message).toContain('sealed by another svc');
  });
});

describe('revoke', () => {
  it('destroys the key with a receipt; opening then says when and by whom, and no copy opens', async () => {
    const secret = 'the launch date is a secret';
    const dir = folderWith({ 'plan.txt': secret });
    const path = join(dir, 'plan.txt');
    const [sealed] = (await protectPaths(service.ctx, [path], { by })).sealed;
    const copy = join(dir, 'plan-copy.sealed');
    writeFileSync(copy, readFileSync(path));
    const { wrapped_key: wrapped } = (await service.ctx.store.get<{ wrapped_key: string }>(
      'SELECT wrapped_key FROM seals WHERE seal_id = ?',
      sealed!.seal_id,
    ))!;

    const storeFiles = () => readdirSync(service.dataDir).filter((n) => n.startsWith('svc.db'));
    const holdsKey = () => storeFiles().some((n) => readFileSync(join(service.dataDir, n)).includes(wrapped));
    expect(holdsKey()).toBe(true);

    const revoked = await revokeSeal(service.ctx, path, { by: 'user:owner', reason: 'left the company' });
    expect(revoked).toMatchObject({ seal_id: sealed!.seal_id, changed: true, revoked_by: 'user:owner' });
    expect((await receiptOf(revoked.receipt_id)).payload).toMatchObject({
      kind: 'seal.revoke',
      seal_id: sealed!.seal_id,
      reason: 'left the company',
    });
    const row = await service.ctx.store.get<{ wrapped_key: string | null }>(
      'SELECT wrapped_key FROM seals WHERE seal_id = ?',
      sealed!.seal_id,
    );
    expect(row!.wrapped_key).toBeNull();
    // Nothing of the wrapped key remains in the store's files: no other process reads here, so
    // the log was checkpointed and emptied at once.
    expect(revoked.log_cleared).toBe(true);
    expect(storeFiles()).toContain('svc.db');
    expect(holdsKey()).toBe(false);

    for (const target of [path, copy]) {
      const error = await failure(
        openSealed(service.ctx, target, { out: { kind: 'in_place' }, by, admit: allow }),
      );
      expect(error.code).toBe('gone');
      expect(error.message).toContain(`revoked at ${revoked.revoked_at} by user:owner (left the company)`);
      expect(error.details).toMatchObject({ status: 'revoked', revoked_by: 'user:owner' });
      expect((await receiptOf(error.details.receipt_id)).payload).toMatchObject({ reason: 'revoked' });
    }
    expect(namesIn(dir)).toEqual(['plan-copy.sealed', 'plan.txt']);

    const again = await revokeSeal(service.ctx, sealed!.seal_id, { by: 'user:other' });
    expect(again).toMatchObject({ changed: false, receipt_id: null, revoked_by: 'user:owner' });
    const listed = (await listSeals(service.ctx)).find((s) => s.seal_id === sealed!.seal_id);
    expect(listed).toMatchObject({ state: 'revoked', revoke_reason: 'left the company' });
    expect(JSON.stringify(await listSeals(service.ctx))).not.toContain('wrapped');
  });

  it('an unknown seal is refused with a receipt; a file that is not sealed is refused', async () => {
    const error = await failure(revokeSeal(service.ctx, `seal_${'0'.repeat(32)}`, { by }));
    expect(error.code).toBe('not_found');
    expect((await receiptOf(error.details.receipt_id)).payload).toMatchObject({ kind: 'seal.revoke.deny' });
    const plain = folderWith({ 'p.txt': 'plain' });
    expect((await failure(revokeSeal(service.ctx, join(plain, 'p.txt'), { by }))).message).toContain(
      'not a sealed file',
    );
  });

  it('the gate can refuse a revocation', async () => {
    const dir = folderWith({ 'kept.txt': 'kept' });
    await protectPaths(service.ctx, [dir], { by });
    const error = await failure(revokeSeal(service.ctx, join(dir, 'kept.txt'), { by, admit: deny }));
    expect(error.code).toBe('forbidden');
    const opened = await openSealed(service.ctx, join(dir, 'kept.txt'), {
      out: { kind: 'in_place' },
      by,
      admit: allow,
    });
    expect(opened.bytes).toBe(4);
  });
});
