// `svc wrap`, `svc wrap list` and `svc wrap restore` as real processes: one JSON object with --json,
// the originals kept (removed only with --remove), the plaintext on stdout with --out -, an existing
// file never overwritten without --force, and the gate's refusal as exit 5.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliComputer } from './computer.ts';
import { runSvc } from '../e2e/procs.ts';

const { dir: tmpDir, rulesFile, env } = cliComputer('svc-wrap-cli-');
const project = join(tmpDir, 'shop');
mkdirSync(join(project, 'config'), { recursive: true });
const files = {
  'config/.env': 'DATABASE_PASSWORD=correct horse battery staple\n',
  'notes.md': '# the plan\n',
};
for (const [name, content] of Object.entries(files)) writeFileSync(join(project, name), content);

interface Wrapped {
  wrapped: { path: string; object_id: string; deduplicated: boolean; original_removed: boolean }[];
  skipped: unknown[];
  failed: unknown[];
}

describe('svc wrap', () => {
  let ids: Record<string, string> = {};

  it('wrap --json archives a folder, keeps the originals and prints exactly one object', async () => {
    const run = await runSvc(['wrap', project, '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    const result = run.json() as Wrapped;
    expect(result.failed).toEqual([]);
    ids = Object.fromEntries(result.wrapped.map((w) => [w.path.slice(project.length + 1), w.object_id]));
    expect(Object.keys(ids).sort()).toEqual(Object.keys(files).sort());
    for (const [name, content] of Object.entries(files)) {
      expect(readFileSync(join(project, name), 'utf8')).toBe(content);
    }
    expect(run.stdout + run.stderr).not.toContain('correct horse');
  });

  it('wrap list names every entry; restore --out - writes the plaintext and nothing else', async () => {
    const list = await runSvc(['wrap', 'list', '--json'], env);
    expect(list.code, list.stderr).toBe(0);
    const { entries } = list.json() as { entries: { object_id: string; path: string }[] };
    expect(entries.map((e) => e.object_id).sort()).toEqual(Object.values(ids).sort());
    const run = await runSvc(['wrap', 'restore', ids['notes.md']!, '--out', '-'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(files['notes.md']);
    expect(run.stderr).toMatch(/restored arc_[0-9a-f]{32} \(\d+ bytes, receipt rcpt_/);
  });

  it('restore never overwrites an existing file without --force', async () => {
    const back = await runSvc(['wrap', 'restore', ids['notes.md']!, '--json'], env);
    expect(back.code).toBe(1);
    expect(back.json()).toMatchObject({ error: 'conflict', receipt_id: expect.stringMatching(/^rcpt_/) });
    writeFileSync(join(project, 'notes.md'), 'changed since\n');
    const forced = await runSvc(['wrap', 'restore', ids['notes.md']!, '--force', '--json'], env);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.json()).toMatchObject({ released_to: 'original', out_path: join(project, 'notes.md') });
    expect(readFileSync(join(project, 'notes.md'), 'utf8')).toBe(files['notes.md']);
  });

  it('--remove removes the original once archived; restore puts it back', async () => {
    const file = join(tmpDir, 'old-report.txt');
    writeFileSync(file, 'last year\n');
    const run = await runSvc(['wrap', file, '--remove', '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    const [one] = (run.json() as Wrapped).wrapped;
    expect(one).toMatchObject({ original_removed: true });
    expect(existsSync(file)).toBe(false);
    const back = await runSvc(['wrap', 'restore', one!.object_id], env);
    expect(back.code, back.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('last year\n');
  });

  it("a rule that denies reading the original: wrap skips it, restore exits 5 with the rule's words", async () => {
    const envFile = join(project, 'config/.env');
    writeFileSync(
      rulesFile,
      JSON.stringify([{ effect: 'deny', paths: [envFile], reason: 'production credentials' }]),
    );
    try {
      const wrapped = await runSvc(['wrap', envFile, '--json'], env);
      expect(wrapped.code).toBe(0);
      expect(wrapped.json()).toMatchObject({
        wrapped: [],
        skipped: [{ path: envFile, reason: 'protected' }],
      });
      const run = await runSvc(['wrap', 'restore', ids['config/.env']!, '--out', '-'], env);
      expect(run.code).toBe(5);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('production credentials');
    } finally {
      writeFileSync(rulesFile, '[]');
    }
  });

  it('usage errors exit 2; an unknown id exits 1', async () => {
    expect((await runSvc(['wrap', 'restore', ids['notes.md']!, '--out', '-', '--json'], env)).code).toBe(2);
    const unknown = await runSvc(['wrap', 'restore', 'arc_nope', '--json'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.json()).toMatchObject({ error: 'invalid_request' });
  });
});
