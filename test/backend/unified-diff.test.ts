// The unified diff format: parsing (git's and diff -u's headers, new and deleted files, the
// no-newline marker), refusals of what it does not take, exact application, and applying to a
// project's files: all or nothing, atomic per file, never out of the project.
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DiffError, applyFileDiff, parseUnifiedDiff, pathOf } from '../../src/backend/unified-diff.ts';
import { applyFiles } from '../../src/backend/patches.ts';
import { tempDir } from '../helpers.ts';

const apply = (original: string | null, diff: string) => {
  const [file] = parseUnifiedDiff(diff);
  return applyFileDiff(original, file!);
};

const errorOf = (work: () => unknown): DiffError => {
  try {
    work();
  } catch (error) {
    if (error instanceof DiffError) return error;
    throw error;
  }
  throw new Error('expected a DiffError');
};

const MODIFY = `diff --git a/src/a.txt b/src/a.txt
index 1111111..2222222 100644
--- a/src/a.txt
+++ b/src/a.txt
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
@@ -6,2 +6,3 @@
 six
 seven
+eight
`;
const ORIGINAL = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n';

describe('parseUnifiedDiff', () => {
  it('reads git headers, hunks and their counts', () => {
    const [file] = parseUnifiedDiff(MODIFY);
    expect(file).toMatchObject({ oldPath: 'src/a.txt', newPath: 'src/a.txt' });
    expect(file!.hunks.map((h) => [h.oldStart, h.oldLines, h.newStart, h.newLines])).toEqual([
      [1, 3, 1, 3],
      [6, 2, 6, 3],
    ]);
  });

  it('reads diff -u headers with timestamps, new and deleted files', () => {
    const files = parseUnifiedDiff(
      '--- /dev/null\t2026-01-01 00:00:00\n+++ new.txt\t2026-01-01 00:00:00\n@@ -0,0 +1 @@\n+x\n' +
        '--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-y\n',
    );
    expect(files.map((f) => [f.oldPath, f.newPath, pathOf(f)])).toEqual([
      [null, 'new.txt', 'new.txt'],
      ['old.txt', null, 'old.txt'],
    ]);
  });

  it.each([
    ['no file at all', 'hello\n', 'malformed'],
    ['a --- without +++', '--- a/x\n@@ -1 +1 @@\n-a\n+b\n', 'malformed'],
    ['a file without hunks', '--- a/x\n+++ b/x\n', 'malformed'],
    ['counts that do not add up', '--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n', 'malformed'],
    ['hunks out of order', '--- a/x\n+++ b/x\n@@ -5 +5 @@\n-a\n+b\n@@ -1 +1 @@\n-c\n+d\n', 'malformed'],
    [
      'the same file twice',
      '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/x\n+++ b/x\n@@ -2 +2 @@\n-a\n+b\n',
      'malformed',
    ],
    ['a rename', 'diff --git a/x b/y\nrename from x\nrename to y\n', 'unsupported'],
    ['a binary change', 'Binary files a/x and b/x differ\n', 'unsupported'],
    ['an absolute path', '--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n', 'unsafe_path'],
    ['a path out of the project', '--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n', 'unsafe_path'],
    ['a path into .git', '--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-a\n+b\n', 'unsafe_path'],
  ])('refuses %s', (_name, diff, code) => {
    expect(errorOf(() => parseUnifiedDiff(diff)).code).toBe(code);
  });
});

describe('applyFileDiff', () => {
  it('applies every hunk at its line', () => {
    expect(apply(ORIGINAL, MODIFY)).toBe('one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\n');
  });

  it('creates and deletes files', () => {
    expect(apply(null, '--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n')).toBe('a\nb\n');
    expect(apply('a\nb\n', '--- a/n.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n')).toBeNull();
  });

  it('keeps and changes a missing newline at the end', () => {
    const add = '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n';
    expect(apply('a', add)).toBe('a\n');
    const drop = '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n';
    expect(apply('a\n', drop)).toBe('b');
  });

  it.each([
    ['a context line that differs', ORIGINAL.replace('three', 'THREE')],
    ['a removed line that differs', ORIGINAL.replace('two', 'deux')],
    ['a file shorter than the hunk', 'one\ntwo\nthree\n'],
    ['a hunk moved by one line (no offsets, no fuzz)', `zero\n${ORIGINAL}`],
    ['an unsaid missing newline', ORIGINAL.slice(0, -1)],
  ])('refuses %s', (_name, original) => {
    expect(errorOf(() => apply(original, MODIFY)).code).toBe('does_not_apply');
  });

  it('refuses to create a file that exists and to change one that does not', () => {
    expect(errorOf(() => apply('x\n', '--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+a\n')).code).toBe(
      'does_not_apply',
    );
    expect(errorOf(() => apply(null, MODIFY)).code).toBe('does_not_apply');
  });
});

describe('applyFiles', () => {
  let project: ReturnType<typeof tempDir>;
  afterEach(() => project.cleanup());

  const setUp = () => {
    project = tempDir('svc-patch-apply-');
    mkdirSync(join(project.dir, 'src'));
    writeFileSync(join(project.dir, 'src', 'a.txt'), ORIGINAL, { mode: 0o640 });
    writeFileSync(join(project.dir, 'gone.txt'), 'bye\n');
    return project.dir;
  };

  it('writes every file, keeps the mode, and leaves nothing beside them', () => {
    const root = setUp();
    applyFiles(
      root,
      parseUnifiedDiff(
        `${MODIFY}--- /dev/null\n+++ b/docs/new.md\n@@ -0,0 +1 @@\n+# New\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n`,
      ),
    );
    expect(readFileSync(join(root, 'src', 'a.txt'), 'utf8')).toContain('TWO');
    expect(readFileSync(join(root, 'docs', 'new.md'), 'utf8')).toBe('# New\n');
    expect(existsSync(join(root, 'gone.txt'))).toBe(false);
    expect(readdirSync(join(root, 'src'))).toEqual(['a.txt']);
  });

  it('a hunk that does not apply writes nothing, in any file', () => {
    const root = setUp();
    const bad = `--- /dev/null\n+++ b/first.txt\n@@ -0,0 +1 @@\n+a\n${MODIFY.replace('-two', '-deux')}`;
    expect(() => applyFiles(root, parseUnifiedDiff(bad))).toThrow(DiffError);
    expect(existsSync(join(root, 'first.txt'))).toBe(false);
    expect(readFileSync(join(root, 'src', 'a.txt'), 'utf8')).toBe(ORIGINAL);
  });

  it('a path through a symlink out of the project is refused before anything is written', () => {
    const root = setUp();
    const outside = tempDir('svc-patch-outside-');
    try {
      symlinkSync(outside.dir, join(root, 'link'));
      const diff = '--- /dev/null\n+++ b/link/x.txt\n@@ -0,0 +1 @@\n+a\n';
      expect(errorOf(() => applyFiles(root, parseUnifiedDiff(diff))).code).toBe('unsafe_path');
      expect(readdirSync(outside.dir)).toEqual([]);
    } finally {
      outside.cleanup();
    }
  });
});
