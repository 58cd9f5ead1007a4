// Which files a scan reads, and one file scanned whole or in chunks: ignore files honoured where
// they lie, `.git` and symlinks passed over, binaries and oversized files skipped; a large file
// gives the same findings, at the same lines and columns, as the same text scanned at once.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe as group, expect, it } from 'vitest';
import { detector, describe, type DetectionRule } from '../../src/scan/detect.ts';
import { SCAN_CHUNK_BYTES, filesToScan, scanFile, type Skipped } from '../../src/backend/scan-files.ts';
import { keptScanThreads, scanFolder, startScanThread } from '../../src/backend/scan-folder.ts';
import { DETECTION_RULES, TABLE_READERS } from '../../src/scan/rules.ts';
import { tempDir } from '../helpers.ts';

const tmp = tempDir('svc-scan-files-');
afterAll(() => tmp.cleanup());

const rules: DetectionRule[] = [
  {
    id: 'test-token',
    category: 'secret',
    type: 'TEST_TOKEN',
    keywords: ['tok_'],
    pattern: /\btok_[a-z0-9]{16}\b/g,
    confidence: 0.9,
  },
];
const find = detector(rules);
const fingerprint = (type: string, value: string) => `${type}:${value.length}`;

function tree(files: Record<string, string>): string {
  const root = join(tmp.dir, `t${Math.random().toString(36).slice(2)}`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

async function walk(root: string) {
  const skipped: Skipped[] = [];
  const files: string[] = [];
  for await (const f of filesToScan(root, (s) => skipped.push(s))) files.push(f.file);
  return { files, skipped };
}

group('filesToScan', () => {
  it('honours .gitignore and .svcignore where each lies, and never enters .git', async () => {
    const root = tree({
      '.gitignore': 'build/\n*.log\n',
      'src/app.ts': 'x',
      'src/.svcignore': 'generated.ts\n',
      'src/generated.ts': 'x',
      'src/deep/generated.ts': 'x',
      'build/out.js': 'x',
      'debug.log': 'x',
      'notes/a.log': 'x',
      '.git/config': 'x',
      'README.md': 'x',
    });
    expect((await walk(root)).files).toEqual(['.gitignore', 'README.md', 'src/.svcignore', 'src/app.ts']);
  });

  it('a negation in an ignore file brings a file back', async () => {
    const root = tree({ '.gitignore': '*.env\n!example.env\n', 'prod.env': 'x', 'example.env': 'x' });
    expect((await walk(root)).files).toEqual(['.gitignore', 'example.env']);
  });

  it("a scan's walk reads a repository's .git/config (a remote's URL may hold a token), and nothing else of .git", async () => {
    const root = tree({ '.git/config': 'x', '.git/HEAD': 'x', 'sub/.git/config': 'x', 'app.ts': 'x' });
    const files: string[] = [];
    for await (const f of filesToScan(root, () => {}, { gitConfig: true })) files.push(f.file);
    expect(files).toEqual(['.git/config', 'app.ts', 'sub/.git/config']);
  });

  it("a subfolder's negation brings back what its parent's file left out, as git reads them", async () => {
    const root = tree({
      '.gitignore': '*.env\n',
      'a.env': 'x',
      'config/.gitignore': '!keep.env\n',
      'config/keep.env': 'x',
      'config/other.env': 'x',
    });
    expect((await walk(root)).files).toEqual(['.gitignore', 'config/.gitignore', 'config/keep.env']);
  });

  it('patterns match names with their case, as git does on a file system that keeps case', async () => {
    const root = tree({ '.gitignore': 'secret.txt\n', 'Secret.txt': 'x', 'secret.txt': 'x' });
    expect((await walk(root)).files).toEqual(
      process.platform === 'linux' ? ['.gitignore', 'Secret.txt'] : ['.gitignore'],
    );
  });

  it('reads files git tracks though its ignore files name them, but not what .svcignore leaves out', async () => {
    const root = tree({
      '.env': 'x',
      'build/tracked.js': 'x',
      'build/untracked.js': 'x',
      'notes/private.txt': 'x',
      'app.ts': 'x',
    });
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], {
        cwd: root,
        stdio: 'pipe',
      });
    git('init', '-q');
    git('add', '.env', 'build/tracked.js', 'notes/private.txt', 'app.ts');
    git('commit', '-q', '-m', 'first');
    writeFileSync(join(root, '.gitignore'), '.env\nbuild/\nnotes/\n');
    writeFileSync(join(root, '.svcignore'), 'notes/\n');
    const read = ['.env', '.gitignore', '.svcignore', 'app.ts', 'build/tracked.js'];
    expect((await walk(root)).files).toEqual(read);
    // A folder that holds the repository is walked the same way: git is asked in the repository.
    const holder = join(root, '..');
    const name = root.slice(holder.length + 1);
    expect((await walk(holder)).files.filter((f) => f.startsWith(`${name}/`))).toEqual(
      read.map((f) => `${name}/${f}`),
    );
  });

  it("asking git never runs a command the scanned repository's config names (core.fsmonitor)", async () => {
    const root = tree({ '.gitignore': 'build/\n', 'build/out.js': 'x', 'app.ts': 'x' });
    const ran = join(root, '..', `ran-${Math.random().toString(36).slice(2)}`);
    execFileSync('git', ['init', '-q'], { cwd: root });
    execFileSync('git', ['config', 'core.fsmonitor', `touch ${ran}; false`], { cwd: root });
    expect((await walk(root)).files).toEqual(['.gitignore', 'app.ts']);
    expect(existsSync(ran)).toBe(false);
  });

  it('symbolic links are not followed', async () => {
    const root = tree({ 'real/a.txt': 'x' });
    symlinkSync(join(root, 'real'), join(root, 'link'));
    symlinkSync(join(root, 'real', 'a.txt'), join(root, 'b.txt'));
    expect((await walk(root)).files).toEqual(['real/a.txt']);
  });
});

group('scanFile', () => {
  const token = () =>
    `tok_${Array.from({ length: 16 }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(Math.random() * 36)]).join('')}`;

  it('a UTF-16 file (byte order mark, little or big end first) is text, scanned at its lines and columns', () => {
    const text = `\ufeffname=x\r\nkey = ${token()}\r\n`;
    const le = Buffer.from(text, 'utf16le');
    const root = tree({ 'notes.txt': 'x' });
    writeFileSync(join(root, 'le.txt'), le);
    writeFileSync(join(root, 'be.txt'), Buffer.from(le).swap16());
    for (const name of ['le.txt', 'be.txt']) {
      const scanned = scanFile({ path: join(root, name), file: name }, find, fingerprint);
      expect('findings' in scanned && scanned.findings.map((f) => [f.line, f.column])).toEqual([[2, 7]]);
      expect('bytes' in scanned && scanned.bytes).toBe(le.length);
    }
  });

  it('a file that starts as UTF-16 but is not text (UTF-32, a binary) is skipped as binary', () => {
    const root = tree({ 'notes.txt': 'x' });
    writeFileSync(join(root, 'u32.txt'), Buffer.from([0xff, 0xfe, 0, 0, 0x41, 0, 0, 0]));
    writeFileSync(join(root, 'blob.bin'), Buffer.from([0xff, 0xfe, 0x00, 0xd8, 0x41, 0x00, 0, 0]));
    for (const name of ['u32.txt', 'blob.bin']) {
      expect(scanFile({ path: join(root, name), file: name }, find, fingerprint)).toEqual({
        skipped: 'binary',
      });
    }
  });

  it('a binary file is skipped, not scanned', () => {
    const root = tree({});
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'x.bin'), Buffer.from([0x74, 0x6f, 0x6b, 0x5f, 0x00, 0x01]));
    expect(scanFile({ path: join(root, 'x.bin'), file: 'x.bin' }, find, fingerprint)).toEqual({
      skipped: 'binary',
    });
  });

  it('columns count UTF-16 units after a byte order mark, characters outside ASCII and bytes that are not UTF-8', () => {
    const root = tree({});
    mkdirSync(root, { recursive: true });
    // Long enough for the keyword search to read the file's bytes; the values' columns are where
    // the decoded text holds them.
    const line = (lead: string) => `${lead} ${'filler '.repeat(40)}${token()}`;
    const cases: [string, Buffer][] = [
      ['bom.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(line('é😀 ñ'))])],
      // Stray continuation bytes: one U+FFFD each in the text, no character of their own in bytes.
      ['stray.txt', Buffer.concat([Buffer.alloc(300, 0x80), Buffer.from(line('x'))])],
      [
        'latin.txt',
        Buffer.concat([Buffer.from(line('caf')), Buffer.from([0xe9, 0x20]), Buffer.from(line('x'))]),
      ],
      ['plain.txt', Buffer.from(`${line('a')}\n${line('ü')}\n`)],
    ];
    for (const [name, bytes] of cases) {
      writeFileSync(join(root, name), bytes);
      const text = new TextDecoder().decode(bytes);
      const expected: [number, number][] = [];
      text.split('\n').forEach((l, i) => {
        for (const m of l.matchAll(/tok_[a-z0-9]{16}/g)) expected.push([i + 1, m.index + 1]);
      });
      const scanned = scanFile({ path: join(root, name), file: name }, find, fingerprint);
      expect([name, 'findings' in scanned && scanned.findings.map((f) => [f.line, f.column])]).toEqual([
        name,
        expected,
      ]);
    }
  });

  it('a file of several chunks gives the findings of its whole text, lines and columns included', () => {
    // Lines of varied length so that chunk ends fall at every kind of place, values among them.
    const lines: string[] = [];
    let size = 0;
    for (let i = 0; size < 3.5 * SCAN_CHUNK_BYTES; i++) {
      const line =
        i % 97 === 0
          ? `key_${i} = "${token()}"`
          : `const v${i} = ${'x'.repeat(i % 300)}; // ${'é'.repeat(i % 7)}`;
      lines.push(line);
      size += Buffer.byteLength(line) + 1;
    }
    // One line longer than a chunk, with a value after its first chunk.
    lines.push(`${'y'.repeat(SCAN_CHUNK_BYTES + 10)} ${token()} tail`);
    lines.push(`last ${token()}`);
    const text = lines.join('\n');
    const root = tree({ 'big.txt': text });
    const chunked = scanFile({ path: join(root, 'big.txt'), file: 'big.txt' }, find, fingerprint);
    const whole = describe(text, find.matches(text), fingerprint);
    expect('findings' in chunked && chunked.findings).toEqual(whole);
    expect(whole.length).toBeGreaterThan(30);
    expect('bytes' in chunked && chunked.bytes).toBe(Buffer.byteLength(text));
  });

  it('a private key across a chunk boundary is found whole, where it lies', () => {
    const scanner = detector(DETECTION_RULES, TABLE_READERS);
    const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string;
    // The key's fifth line straddles the first chunk's end.
    const filler = `${'filler line of text\n'.repeat(Math.floor((SCAN_CHUNK_BYTES - 300) / 20))}`;
    const text = `${filler}${key}after\n`;
    expect(text.indexOf('-----END')).toBeGreaterThan(SCAN_CHUNK_BYTES);
    expect(text.indexOf('-----BEGIN')).toBeLessThan(SCAN_CHUNK_BYTES);
    const root = tree({ 'dump.txt': text });
    const chunked = scanFile({ path: join(root, 'dump.txt'), file: 'dump.txt' }, scanner, fingerprint);
    const whole = describe(text, scanner.matches(text, 'dump.txt'), fingerprint);
    expect(whole.map((f) => f.rule)).toEqual(['pkcs8-private-key']);
    expect('findings' in chunked && chunked.findings).toEqual(whole);
  });

  it('a file that opens but cannot be read is skipped as unreadable, and the scan goes on', () => {
    // A folder opens on Linux, and reading it fails (EISDIR): as a kernel file that refuses reads.
    const root = tree({ 'a/x.txt': 'x' });
    expect(scanFile({ path: join(root, 'a'), file: 'a' }, find, fingerprint)).toEqual({
      skipped: 'unreadable',
    });
  });

  it('a line of two-byte characters longer than a chunk is cut between characters', () => {
    // `a` first, so that every chunk's end falls inside an `é`.
    const text = `a${'é'.repeat(SCAN_CHUNK_BYTES)} ${token()}\nlast ${token()}`;
    const root = tree({ 'wide.txt': text });
    const chunked = scanFile({ path: join(root, 'wide.txt'), file: 'wide.txt' }, find, fingerprint);
    expect('findings' in chunked && chunked.findings).toEqual(
      describe(text, find.matches(text), fingerprint),
    );
    expect('findings' in chunked && chunked.findings.map((f) => [f.line, f.column])).toEqual([
      [1, SCAN_CHUNK_BYTES + 3],
      [2, 6],
    ]);
  });
});

group('scanFolder', () => {
  const rules = new URL('./fixtures/scan-rules.ts', import.meta.url).href;
  const key = new Uint8Array(32).fill(7);

  it('scans on several threads, findings in the walk order, the same value the same fingerprint', async () => {
    const value = 'tok_abcdefghij012345';
    const files: Record<string, string> = { '.gitignore': 'skip/\n', 'skip/a.txt': value };
    for (let i = 0; i < 40; i++)
      files[`src/f${String(i).padStart(2, '0')}.ts`] = `// ${i}\nconst k = "${value}";\n`;
    const root = tree(files);
    const progress: number[] = [];
    const scan = await scanFolder(root, {
      rules,
      key,
      threads: 2,
      onProgress: (p) => progress.push(p.files),
    });
    expect(scan.files_scanned).toBe(41);
    expect(scan.findings.map((f) => f.file)).toEqual(Object.keys(files).filter((f) => f.startsWith('src/')));
    expect(scan.findings[0]).toMatchObject({ line: 2, column: 12, rule: 'test-token', type: 'TEST_TOKEN' });
    expect(new Set(scan.findings.map((f) => f.fingerprint)).size).toBe(1);
    expect(scan.findings[0]!.fingerprint).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(scan)).not.toContain(value);
    expect(progress.at(-1)).toBe(41);
    const other = await scanFolder(root, { rules, key: new Uint8Array(32).fill(8), threads: 1 });
    expect(other.findings[0]!.fingerprint).not.toBe(scan.findings[0]!.fingerprint);
  });

  it('keeps its threads for the next scan; a thread that dies fails its scan and is not kept', async () => {
    const value = 'tok_abcdefghij012345';
    const files: Record<string, string> = {};
    for (let i = 0; i < 200; i++) files[`f${String(i).padStart(3, '0')}.txt`] = `${i} ${value}\n`;
    const root = tree(files);
    const first = await scanFolder(root, { rules, key, threads: 2 });
    expect(first.findings).toHaveLength(200);
    const threadIds = () =>
      keptScanThreads(rules)
        .map((w) => w.threadId)
        .sort();
    const kept = threadIds();
    expect(kept).toHaveLength(2);
    const again = await scanFolder(root, { rules, key, threads: 2 });
    expect(again.findings).toEqual(first.findings);
    expect(threadIds()).toEqual(kept);

    const crashing = tree({ ...files, 'zz.txt': 'crash-this-thread' });
    await expect(scanFolder(crashing, { rules, key, threads: 2 })).rejects.toThrow(/exited \(code 3\)/);
    const left = threadIds();
    expect(left).toHaveLength(1);
    expect(kept).toContain(left[0]);
    // The next scan starts a thread for the one lost and finds everything again.
    const after = await scanFolder(root, { rules, key, threads: 2 });
    expect(after.findings).toEqual(first.findings);
    expect(keptScanThreads(rules)).toHaveLength(2);
  });

  it('without a count asked for, a small folder is scanned by one new thread and a large one by more', async () => {
    // A rule set of its own (the same module under another URL), so no thread is kept for it yet.
    const fresh = `${rules}?adaptive`;
    const small = tree({ 'a.txt': 'tok_abcdefghij012345\n' });
    expect((await scanFolder(small, { rules: fresh, key })).findings).toHaveLength(1);
    expect(keptScanThreads(fresh)).toHaveLength(1);
    // Over 16 MiB of text: worth a second thread, where the computer has a second core.
    const large = tree({
      'big.txt': `${'x'.repeat(99)}\n`.repeat(170_000),
      'b.txt': 'tok_abcdefghij012345\n',
    });
    expect((await scanFolder(large, { rules: fresh, key })).findings).toHaveLength(1);
    expect(keptScanThreads(fresh)).toHaveLength(Math.min(2, availableParallelism()));
  });

  it('a thread started ahead is kept for the next scan, which takes it rather than starting one', async () => {
    const ahead = `${rules}?ahead`;
    startScanThread(ahead);
    startScanThread(ahead);
    const started = keptScanThreads(ahead).map((w) => w.threadId);
    expect(started).toHaveLength(1);
    const root = tree({ 'a.txt': 'tok_abcdefghij012345\n' });
    expect((await scanFolder(root, { rules: ahead, key })).findings).toHaveLength(1);
    expect(keptScanThreads(ahead).map((w) => w.threadId)).toEqual(started);
  });

  it("svc scan's process does not load the rule set it names: only its threads run the rules", () => {
    // A loader hook sees every module the child loads: importing what `svc scan` runs must not load
    // src/scan/rules.ts; importing that module itself, the control, must.
    const loads = (module: string) =>
      JSON.parse(
        execFileSync(
          process.execPath,
          [
            '--input-type=module',
            '-e',
            `import { registerHooks } from 'node:module';
             let loaded = false;
             registerHooks({ load(url, context, next) { if (url.endsWith('/src/scan/rules.ts')) loaded = true; return next(url, context); } });
             await import(${JSON.stringify(new URL(module, import.meta.url).href)});
             console.log(JSON.stringify(loaded));`,
          ],
          { encoding: 'utf8' },
        ),
      ) as boolean;
    expect(loads('../../src/backend/scan.ts')).toBe(false);
    expect(loads('../../src/scan/rules.ts')).toBe(true);
  });

  it('holds the files `admit` answers "ask" for until `confirm` says yes; a folder swapped for a link meanwhile is not followed', async () => {
    const value = 'tok_abcdefghij012345';
    const root = tree({ 'a.txt': value, 'notes/b.txt': value, 'notes/c.txt': value });
    const outside = tree({ 'b.txt': value, 'c.txt': value });
    const admit = async (path: string) => (path.includes('/notes/') ? ('ask' as const) : true);
    const asked: (readonly string[])[] = [];
    const without = await scanFolder(root, { rules, key, threads: 1, admit });
    expect(without.findings.map((f) => f.file)).toEqual(['a.txt']);
    expect(without.skipped).toEqual([
      { file: 'notes/b.txt', reason: 'protected' },
      { file: 'notes/c.txt', reason: 'protected' },
    ]);
    const yes = await scanFolder(root, {
      rules,
      key,
      threads: 1,
      admit,
      confirm: async (files) => (asked.push(files), true),
    });
    expect(asked).toEqual([['notes/b.txt', 'notes/c.txt']]);
    expect(yes.findings.map((f) => f.file).sort()).toEqual(['a.txt', 'notes/b.txt', 'notes/c.txt']);
    // While the person is asked, the held files' folder becomes a link to another: not read.
    const swapped = await scanFolder(root, {
      rules,
      key,
      threads: 1,
      admit,
      confirm: async () => {
        renameSync(join(root, 'notes'), join(root, 'notes.old'));
        symlinkSync(outside, join(root, 'notes'));
        return true;
      },
    });
    expect(swapped.findings.map((f) => f.file)).toEqual(['a.txt']);
    expect(swapped.skipped).toEqual([
      { file: 'notes/b.txt', reason: 'changed' },
      { file: 'notes/c.txt', reason: 'changed' },
    ]);
    // A file saved anew meanwhile (written beside, renamed over it, as editors save) is another
    // file: skipped as changed, for the person to scan again; one removed is too.
    rmSync(join(root, 'notes'));
    renameSync(join(root, 'notes.old'), join(root, 'notes'));
    const saved = await scanFolder(root, {
      rules,
      key,
      threads: 1,
      admit,
      confirm: async () => {
        writeFileSync(join(root, 'notes', '.b.txt.swp'), value);
        renameSync(join(root, 'notes', '.b.txt.swp'), join(root, 'notes', 'b.txt'));
        rmSync(join(root, 'notes', 'c.txt'));
        return true;
      },
    });
    expect(saved.skipped).toEqual([
      { file: 'notes/b.txt', reason: 'changed' },
      { file: 'notes/c.txt', reason: 'changed' },
    ]);
  });

  it('never scans a file only its clean copy may leave: its fingerprints would answer guesses', async () => {
    const root = tree({ 'a.txt': 'tok_abcdefghij012345', 'b.txt': 'tok_abcdefghij012345' });
    const scan = await scanFolder(root, {
      rules,
      key,
      threads: 1,
      admit: async (path) => (path.endsWith('b.txt') ? 'clean' : true),
    });
    expect(scan.findings.map((f) => f.file)).toEqual(['a.txt']);
    expect(scan.skipped).toEqual([{ file: 'b.txt', reason: 'protected' }]);
  });

  it('one file named, held for the person and swapped meanwhile for a link elsewhere, is changed and not read', async () => {
    const value = 'tok_abcdefghij012345';
    const root = tree({ 'notes/b.txt': 'nothing here\n' });
    const outside = tree({ 'b.txt': value });
    const scan = await scanFolder(root, {
      rules,
      key,
      threads: 1,
      only: 'notes/b.txt',
      admit: async () => 'ask',
      confirm: async () => {
        renameSync(join(root, 'notes'), join(root, 'notes.old'));
        symlinkSync(outside, join(root, 'notes'));
        return true;
      },
    });
    expect(scan.findings).toEqual([]);
    expect(scan.skipped).toEqual([{ file: 'notes/b.txt', reason: 'changed' }]);
  });

  it('a rule set that cannot load fails the scan with its reason', async () => {
    const root = tree({ 'a.txt': 'x' });
    await expect(
      scanFolder(root, {
        rules: new URL('./fixtures/no-such-rules.ts', import.meta.url).href,
        key,
        threads: 1,
      }),
    ).rejects.toThrow();
  });
});

group('a table larger than a chunk', () => {
  it('its header still labels the columns of every later piece', () => {
    const names = ['Alice Martin', 'Bruno Keller', 'Chloé Dubois', 'Dmitri Ivanov'];
    const rows = ['id,full_name,city'];
    for (let i = 0, size = 0; size < 2.5 * SCAN_CHUNK_BYTES; i++) {
      rows.push(`${i},${names[i % names.length]},${'Springfield'.repeat(1 + (i % 5))}`);
      size += Buffer.byteLength(rows.at(-1)!) + 1;
    }
    const text = rows.join('\n');
    const root = tree({ 'people.csv': text });
    const scanned = scanFile(
      { path: join(root, 'people.csv'), file: 'people.csv' },
      detector(DETECTION_RULES, TABLE_READERS),
      fingerprint,
    );
    const found = 'findings' in scanned ? scanned.findings.filter((f) => f.type === 'PERSON_NAME') : [];
    expect(found).toHaveLength(rows.length - 1);
    expect(found.at(-1)).toMatchObject({ line: rows.length, column: String(rows.length - 2).length + 2 });
  });
});
