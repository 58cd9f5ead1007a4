// `svc protect`, `svc open`, `svc seal revoke` and `svc seal list` as real processes: one JSON
// object with --json, the plaintext on stdout with --out -, the gate's refusal as exit 5, a revoked
// seal said with when and by whom, and the usage errors.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliComputer } from './computer.ts';
import { runSvc } from '../e2e/procs.ts';
import { SEALED_MAGIC } from '../../src/vault/sealed-file.ts';

const { dir: tmpDir, rulesFile, env } = cliComputer('svc-seal-cli-');
const project = join(tmpDir, 'shop');
mkdirSync(join(project, 'config'), { recursive: true });
const files = {
  'config/.env': 'DATABASE_PASSWORD=correct horse battery staple\n',
  'notes.md': '# the plan\nship on friday\n',
  'empty.txt': '',
};
for (const [name, content] of Object.entries(files)) writeFileSync(join(project, name), content);
const isSealed = (name: string) => readFileSync(join(project, name)).subarray(0, 8).equals(SEALED_MAGIC);

interface Protected {
  sealed: { path: string; seal_id: string; bytes: number; receipt_id: string }[];
  skipped: { path: string; reason: string }[];
  failed: unknown[];
}

describe('svc protect, open and seal', () => {
  let sealIds: Record<string, string> = {};

  it('protect --json seals a folder in place and prints exactly one object', async () => {
    const run = await runSvc(['protect', project, '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    const result = run.json() as Protected;
    expect(result.failed).toEqual([]);
    expect(result.sealed.map((s) => s.path.slice(project.length + 1)).sort()).toEqual(
      Object.keys(files).sort(),
    );
    sealIds = Object.fromEntries(result.sealed.map((s) => [s.path.slice(project.length + 1), s.seal_id]));
    for (const name of Object.keys(files)) expect(isSealed(name)).toBe(true);
    expect(run.stdout + run.stderr).not.toContain('correct horse');

    const again = await runSvc(['protect', join(project, 'notes.md')], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('skipped  ' + join(project, 'notes.md') + ': already sealed');
  });

  it('open --out - writes the plaintext to stdout and nothing else', async () => {
    const run = await runSvc(['open', join(project, 'notes.md'), '--out', '-'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(files['notes.md']);
    expect(run.stderr).toMatch(/opened .*notes\.md \(\d+ bytes, receipt rcpt_/);
    expect(isSealed('notes.md')).toBe(true);
  });

  it('open --out FILE writes a new file; an existing one is refused', async () => {
    const out = join(tmpDir, 'env-copy');
    const run = await runSvc(['open', join(project, 'config/.env'), '--out', out, '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({ released_to: 'file', out_path: out, seal_id: sealIds['config/.env'] });
    expect(readFileSync(out, 'utf8')).toBe(files['config/.env']);
    const twice = await runSvc(['open', join(project, 'config/.env'), '--out', out, '--json'], env);
    expect(twice.code).toBe(1);
    expect(twice.json()).toMatchObject({ error: 'conflict', receipt_id: expect.stringMatching(/^rcpt_/) });
  });

  // The commands run from the repository, so the rules name the files by their absolute paths.
  it("a rule that denies reading the file: exit 5, the rule's words, nothing released", async () => {
    writeFileSync(
      rulesFile,
      JSON.stringify([
        { effect: 'deny', paths: [join(project, 'config/.env')], reason: 'production credentials' },
      ]),
    );
    try {
      const run = await runSvc(['open', join(project, 'config/.env'), '--out', '-'], env);
      expect(run.code).toBe(5);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('production credentials');
      const json = await runSvc(['open', join(project, 'config/.env'), '--json'], env);
      expect(json.code).toBe(5);
      expect(json.json()).toMatchObject({
        error: 'forbidden',
        outcome: 'denied',
        receipt_id: expect.stringMatching(/^rcpt_/),
        audit_id: expect.stringMatching(/^aud_/),
      });
      expect(isSealed('config/.env')).toBe(true);
    } finally {
      writeFileSync(rulesFile, '[]');
    }
  });

  it('a rule that asks the person, with no terminal to ask on: refused', async () => {
    writeFileSync(rulesFile, JSON.stringify([{ effect: 'ask', paths: [join(project, 'notes.md')] }]));
    try {
      const run = await runSvc(['open', join(project, 'notes.md')], env);
      expect(run.code).toBe(5);
      expect(run.stderr).toContain('no terminal to ask on');
      expect(isSealed('notes.md')).toBe(true);
    } finally {
      writeFileSync(rulesFile, '[]');
    }
  });

  it('writing is gated too: the destination of open, and the file a revoke would destroy', async () => {
    const locked = join(tmpDir, 'locked');
    writeFileSync(
      rulesFile,
      JSON.stringify([
        { effect: 'deny', paths: [`${locked}/`, join(project, 'config/.env')], actions: ['write'] },
      ]),
    );
    try {
      const open = await runSvc(['open', join(project, 'config/.env'), '--out', join(locked, 'env')], env);
      expect(open.code, open.stderr).toBe(5);
      const revoke = await runSvc(['seal', 'revoke', join(project, 'config/.env'), '--json'], env);
      expect(revoke.code).toBe(5);
      expect(revoke.json()).toMatchObject({
        error: 'forbidden',
        outcome: 'denied',
        seal_id: sealIds['config/.env'],
      });
      expect(isSealed('config/.env')).toBe(true);
    } finally {
      writeFileSync(rulesFile, '[]');
    }
  });

  it('a scan and a clean copy say a sealed file is sealed, not binary', async () => {
    const scan = await runSvc(['scan', join(project, 'config/.env'), '--json'], env);
    expect((scan.json() as { skipped: unknown[] }).skipped).toEqual([{ file: '.env', reason: 'sealed' }]);
    const text = await runSvc(['scan', join(project, 'config/.env')], env);
    expect(text.stdout).toContain('.env: not scanned (sealed; svc open gives it back)');
  });

  it('open in place restores the file', async () => {
    const run = await runSvc(['open', join(project, 'empty.txt')], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('in place');
    expect(readFileSync(join(project, 'empty.txt'), 'utf8')).toBe('');
  });

  it('seal revoke destroys the key; open then says when and by whom; seal list shows it', async () => {
    const revoke = await runSvc(
      ['seal', 'revoke', join(project, 'notes.md'), '--reason', 'superseded', '--json'],
      env,
    );
    expect(revoke.code, revoke.stderr).toBe(0);
    expect(revoke.json()).toMatchObject({
      seal_id: sealIds['notes.md'],
      changed: true,
      revoke_reason: 'superseded',
    });
    const open = await runSvc(['open', join(project, 'notes.md'), '--json'], env);
    expect(open.code).toBe(1);
    expect(open.json()).toMatchObject({ error: 'gone', status: 'revoked', revoke_reason: 'superseded' });
    expect(open.stderr).toMatch(/revoked at \S+ by user:\S+ \(superseded\): its key was destroyed/);
    const again = await runSvc(['seal', 'revoke', sealIds['notes.md']!], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('was already revoked');

    const list = await runSvc(['seal', 'list', '--json'], env);
    const { seals } = list.json() as { seals: { seal_id: string; state: string }[] };
    expect(Object.fromEntries(seals.map((s) => [s.seal_id, s.state]))).toMatchObject({
      [sealIds['notes.md']!]: 'revoked',
      [sealIds['config/.env']!]: 'sealed',
      // Opened back in place: its key is kept, and the file is no longer sealed.
      [sealIds['empty.txt']!]: 'opened',
    });
    expect(list.stdout).not.toMatch(/wrapped/);
    const doctor = (await runSvc(['doctor', '--json'], env)).json() as {
      sealed_files: Record<string, number>;
    };
    expect(doctor.sealed_files.opened).toBe(1);
    expect(doctor.sealed_files.sealed).toBe(seals.filter((s) => s.state === 'sealed').length);
  });

  it('usage errors: --json with --out -; a path that is not there fails alone, after the others are sealed', async () => {
    const both = await runSvc(['open', join(project, 'config/.env'), '--out', '-', '--json'], env);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('choose one');
    writeFileSync(join(project, 'later.txt'), 'sealed although a path before it is not there\n');
    const none = await runSvc(['protect', join(project, 'nope'), join(project, 'later.txt')], env);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain(`failed   ${join(project, 'nope')}: nothing is there`);
    expect(none.stdout).toContain(`sealed   ${join(project, 'later.txt')}`);
    expect(none.stdout).toContain('1 sealed, 0 skipped, 1 failed');
    expect(isSealed('later.txt')).toBe(true);
  });
});
