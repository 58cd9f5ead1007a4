// `svc redact` as a real process: the --json contract (exactly one object on stdout, no value in
// it), a folder's copy with one token per value across files and valid JSON, YAML and CSV, a file
// alone, the exit codes (done, refused, missing), and no value ever in the output.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseCsv } from '../../src/backend/csv.ts';
import { tempDir } from '../helpers.ts';
import { childEnv, runSvc } from '../e2e/procs.ts';
import { onTerminal } from './terminal.ts';

const tmp = tempDir('svc-redact-cli-');
afterAll(() => tmp.cleanup());
const env = childEnv({ SVC_HOME: join(tmp.dir, 'svc'), SVC_VAULT: 'file', HOME: tmp.dir });

const pick = (alphabet: string, n: number) =>
  Array.from({ length: n }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');
// Built at test time: the repository holds no credential-looking literal.
const awsKey = `AKIA${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`;
const email = `${pick('abcdefghij', 6)}.${pick('klmnopqrst', 7)}@${pick('uvwxyzabc', 6)}-mail.io`;

const project = join(tmp.dir, 'shop');
mkdirSync(join(project, 'config'), { recursive: true });
writeFileSync(join(project, 'config', 'app.json'), JSON.stringify({ owner: email, key: awsKey }, null, 2));
writeFileSync(
  join(project, 'config', 'deploy.yaml'),
  `aws:\n  key: ${awsKey}\n  contacts: [${email}, ops]\n`,
);
writeFileSync(join(project, 'people.csv'), `id,contact,note\n1,${email},"met ${email}, twice"\n`);
writeFileSync(join(project, 'README.md'), '# shop\n');

interface Report {
  source: string;
  out: string;
  kind: string;
  files: { file: string; status: string; values: number }[];
  skipped: { file: string; reason: string }[];
  values_replaced: number;
  tokens_by_type: Record<string, number>;
}

describe('svc redact', () => {
  it('--json prints exactly one object and writes a copy that keeps every format valid', async () => {
    const run = await runSvc(['redact', project, '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    const report = run.json() as Report;
    expect(Object.keys(report).sort()).toEqual(
      [
        'copy_id',
        'files',
        'kind',
        'out',
        'receipt_id',
        'skipped',
        'source',
        'tokens_by_type',
        'values_replaced',
      ].sort(),
    );
    expect(report.out).toBe(`${project}.clean`);
    expect(report).toMatchObject({ copy_id: null, receipt_id: null });
    expect(report.files).toEqual([
      { file: 'README.md', status: 'copied', values: 0 },
      { file: 'people.csv', status: 'redacted', values: 2 },
      { file: 'config/app.json', status: 'redacted', values: 2 },
      { file: 'config/deploy.yaml', status: 'redacted', values: 2 },
    ]);
    expect(report.tokens_by_type).toEqual({ AWS_ACCESS_KEY: 1, EMAIL: 1 });
    expect(run.stdout + run.stderr).not.toContain(awsKey);
    expect(run.stdout + run.stderr).not.toContain(email);

    const copy = (file: string) => readFileSync(join(report.out, file), 'utf8');
    expect(JSON.parse(copy('config/app.json'))).toEqual({ owner: '[EMAIL_1]', key: '[AWS_ACCESS_KEY_1]' });
    expect(parseYaml(copy('config/deploy.yaml'))).toEqual({
      aws: { key: '[AWS_ACCESS_KEY_1]', contacts: ['[EMAIL_1]', 'ops'] },
    });
    expect(parseCsv(copy('people.csv'))).toEqual([
      { id: 1, contact: '[EMAIL_1]', note: 'met [EMAIL_1], twice' },
    ]);
    expect(copy('README.md')).toBe('# shop\n');
  });

  it('copies one file beside it, and says what it did in words', async () => {
    const run = await runSvc(['redact', join(project, 'config', 'app.json')], env);
    expect(run.code, run.stderr).toBe(0);
    const out = join(project, 'config', 'app.clean.json');
    expect(run.stdout).toContain('app.json: 2 value(s) replaced');
    expect(run.stdout).toContain(
      `clean copy in ${out}: 2 value(s) replaced in 1 of 1 file(s) (AWS_ACCESS_KEY 1, EMAIL 1)`,
    );
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({ owner: '[EMAIL_1]', key: '[AWS_ACCESS_KEY_1]' });
    expect(run.stdout + run.stderr).not.toContain(awsKey);
    // The name beside it is taken now: svc does not write over it, its own copy or a file of yours.
    writeFileSync(out, 'edited by hand\n');
    const again = await runSvc(['redact', join(project, 'config', 'app.json'), '--json'], env);
    expect(again.code).toBe(1);
    expect(again.json()).toMatchObject({ error: 'conflict' });
    expect(readFileSync(out, 'utf8')).toBe('edited by hand\n');
  });

  it("refuses svc's own data dir: its key files are never copied", async () => {
    const keys = join(tmp.dir, 'svc', 'keys');
    expect(existsSync(keys)).toBe(true);
    const out = join(tmp.dir, 'kc');
    const run = await runSvc(['redact', keys, '--out', out, '--json'], env);
    expect(run.code).toBe(1);
    expect(run.json()).toMatchObject({ error: 'forbidden' });
    expect(run.stderr).toContain("svc's own data dir");
    expect(existsSync(out)).toBe(false);
  });

  it('reads only what the read gate lets it: a denied file is not read or copied', async () => {
    const ruled = join(tmp.dir, 'ruled');
    mkdirSync(join(ruled, '.svc'), { recursive: true });
    mkdirSync(join(ruled, '.git'));
    writeFileSync(
      join(ruled, '.svc', 'rules.json'),
      JSON.stringify([{ effect: 'deny', paths: ['secret.json'] }]),
    );
    writeFileSync(join(ruled, 'secret.json'), JSON.stringify({ key: awsKey }));
    writeFileSync(join(ruled, 'open.md'), `# contact ${email}\n`);
    const run = await runSvc(['redact', ruled, '--json'], env, 30_000, ruled);
    expect(run.code, run.stderr).toBe(0);
    const report = run.json() as Report;
    expect(report.skipped).toContainEqual({ file: 'secret.json', reason: 'protected' });
    expect(report.files.map((f) => f.file)).toContain('open.md');
    expect(existsSync(join(`${ruled}.clean`, 'secret.json'))).toBe(false);
  });

  it('copies a file under a clean-copy-only rule beside it: the rule lets clean copies out, and written there too', async () => {
    const ruled = join(tmp.dir, 'exported');
    mkdirSync(join(ruled, '.svc'), { recursive: true });
    mkdirSync(join(ruled, 'exports'));
    writeFileSync(
      join(ruled, '.svc', 'rules.json'),
      JSON.stringify([{ effect: 'redact', paths: ['exports/'] }]),
    );
    writeFileSync(join(ruled, 'exports', 'report.txt'), `owner ${email}\n`);
    const run = await runSvc(['redact', join(ruled, 'exports', 'report.txt')], env, 30_000, ruled);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(ruled, 'exports', 'report.clean.txt'), 'utf8')).toBe('owner [EMAIL_1]\n');
    // Any other write there is still the rule's: only the copy svc makes is clean by making.
    const hook = await runSvc(['rules', 'test', join(ruled, 'exports', 'new.txt'), '--for', 'write'], env);
    expect(hook.stdout).toMatch(/^clean_copy: /);
  });

  it('refuses a copy inside the source (exit 1, the error as JSON), and a path that is not there', async () => {
    const inside = await runSvc(['redact', project, '--out', join(project, 'clean'), '--json'], env);
    expect(inside.code).toBe(1);
    expect(inside.json()).toMatchObject({ error: 'invalid_request' });
    expect(inside.stderr).toMatch(/cannot go inside it/);
    const missing = await runSvc(['redact', join(tmp.dir, 'nowhere')], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nothing to copy/);
  });

  describe('the mapping, kept only when asked, and put back as the read gate allows', () => {
    const guarded = join(tmp.dir, 'guarded');
    const rules = (list: object[]) =>
      writeFileSync(join(guarded, '.svc', 'rules.json'), JSON.stringify(list));
    const original = `${JSON.stringify({ owner: email, key: awsKey }, null, 2)}\n`;
    mkdirSync(join(guarded, '.git'), { recursive: true });
    mkdirSync(join(guarded, '.svc'), { recursive: true });
    writeFileSync(join(guarded, 'app.json'), original);

    interface Reversed {
      copy_id: string;
      out: string;
      original: string;
      restored: number;
      outcome: string;
      gate_receipt_id: string | null;
      receipt_id: string;
    }

    async function keptCopy(): Promise<{ copyId: string; copy: string }> {
      const kept = await runSvc(['redact', join(guarded, 'app.json'), '--keep-mapping', '--json'], env);
      expect(kept.code, kept.stderr).toBe(0);
      const report = kept.json() as Report & { copy_id: string; receipt_id: string };
      expect(report.copy_id).toMatch(/^copy_/);
      expect(report.receipt_id).toMatch(/^rcpt_/);
      expect(kept.stdout + kept.stderr).not.toContain(awsKey);
      return { copyId: report.copy_id, copy: report.out };
    }

    it('puts the values back into a new private file when the original may be read, with a receipt', async () => {
      rules([]);
      const { copyId, copy } = await keptCopy();
      const run = await runSvc(['redact', 'reverse', copyId, copy, '--json'], env);
      expect(run.code, run.stderr).toBe(0);
      const reversed = run.json() as Reversed;
      expect(reversed).toMatchObject({
        copy_id: copyId,
        out: join(guarded, 'app.restored.json'),
        original: join(guarded, 'app.json'),
        restored: 2,
        outcome: 'allowed',
      });
      expect(readFileSync(reversed.out, 'utf8')).toBe(original);
      expect(statSync(reversed.out).mode & 0o777).toBe(0o600);
      expect(run.stdout + run.stderr).not.toContain(awsKey);
      expect(run.stdout + run.stderr).not.toContain(email);
      const verified = await runSvc(['verify', reversed.receipt_id], env);
      expect(verified.code, verified.stdout).toBe(0);
    });

    it('refuses when the rules allow the original only as a clean copy, and receipts the refusal', async () => {
      rules([{ effect: 'redact', paths: ['app.json'] }]);
      const { copyId, copy } = await keptCopy();
      const out = join(tmp.dir, 'refused.json');
      const run = await runSvc(['redact', 'reverse', copyId, copy, '--out', out, '--json'], env);
      expect(run.code).toBe(1);
      const body = run.json() as Record<string, string>;
      expect(body).toMatchObject({ error: 'forbidden', outcome: 'clean_copy' });
      expect(body.message).toContain('the read gate does not allow it');
      // Not the rule's advice to read a clean copy: the person has one, and wants the values back.
      expect(body.message).toContain('putting the values back would give it whole');
      expect(body.message).not.toContain('read a clean copy instead');
      expect(existsSync(out)).toBe(false);
      // The refusal is on the service chain, and so is the gate's decision on the audit chain.
      expect((await runSvc(['verify', body.receipt_id!], env)).code).toBe(0);
      expect((await runSvc(['verify', body.gate_receipt_id!], env)).code).toBe(0);
    });

    it('goes ahead on a rule that asks the person only on their yes at a terminal; never on a clean-copy-only rule too', async () => {
      // The copy is made first: making a clean copy of a file the rules ask about is asked too.
      rules([]);
      const { copyId, copy } = await keptCopy();
      rules([{ effect: 'ask', paths: ['app.json'], reason: 'the app settings' }]);
      const out = join(tmp.dir, 'asked.json');
      // No terminal (an agent's shell, a pipe): nobody to ask, so no.
      const refused = await runSvc(['redact', 'reverse', copyId, copy, '--out', out], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('no one said yes on a terminal');
      const question = 'Put them back into';
      const declined = await onTerminal(['redact', 'reverse', copyId, copy, '--out', out], env, [
        [question, 'n\r'],
      ]);
      expect(declined.code).not.toBe(0);
      expect(existsSync(out)).toBe(false);
      const confirmed = await onTerminal(['redact', 'reverse', copyId, copy, '--out', out], env, [
        [question, 'y\r'],
      ]);
      expect(confirmed.code, confirmed.shown).toBe(0);
      expect(confirmed.shown).toContain('the app settings');
      expect(readFileSync(out, 'utf8')).toBe(original);
      // An ask outranks a clean-copy-only rule for one action: a yes there would open the file whole.
      rules([
        { effect: 'ask', paths: ['app.json'] },
        { effect: 'redact', paths: ['app.json'] },
      ]);
      const cleanToo = join(tmp.dir, 'clean-too.json');
      const asked = await onTerminal(['redact', 'reverse', copyId, copy, '--out', cleanToo], env, [
        [question, 'y\r'],
      ]);
      expect(asked.code).not.toBe(0);
      expect(asked.shown).toContain('lets only a clean copy of one of them out');
      expect(existsSync(cleanToo)).toBe(false);
    });

    it('never writes over an existing --out, and asks the read gate to write the new file', async () => {
      rules([{ effect: 'deny', paths: ['locked/'], actions: ['write'], reason: 'read-only folder' }]);
      mkdirSync(join(guarded, 'locked'), { recursive: true });
      const { copyId, copy } = await keptCopy();
      const taken = join(tmp.dir, 'taken.json');
      writeFileSync(taken, 'mine\n');
      const over = await runSvc(
        ['redact', 'reverse', copyId, copy, '--out', taken, '--json'],
        env,
        30_000,
        guarded,
      );
      expect(over.code).toBe(1);
      expect(over.json()).toMatchObject({ error: 'conflict', receipt_id: expect.stringMatching(/^rcpt_/) });
      expect(readFileSync(taken, 'utf8')).toBe('mine\n');
      const locked = join(guarded, 'locked', 'app.json');
      const refused = await runSvc(
        ['redact', 'reverse', copyId, copy, '--out', locked, '--json'],
        env,
        30_000,
        guarded,
      );
      expect(refused.code).toBe(1);
      expect(refused.json()).toMatchObject({ error: 'forbidden', outcome: 'denied' });
      expect(refused.stderr).toContain('read-only folder');
      expect(existsSync(locked)).toBe(false);
      expect(refused.stdout + refused.stderr).not.toContain(awsKey);
    });

    it('decides the reads of the files the values came from; a name holding a token is never restored', async () => {
      // A folder named by a value is copied as its token (`people/[EMAIL_1]/`).
      const folder = join(guarded, 'people', email);
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, 'notes.txt'), `key ${awsKey}\n`);
      writeFileSync(join(guarded, 'people', 'open.txt'), 'nothing here\n');
      rules([{ effect: 'redact', paths: [`people/${email}/`] }]);
      const out = join(tmp.dir, 'people-copy');
      const kept = await runSvc(
        ['redact', join(guarded, 'people'), '--out', out, '--keep-mapping', '--json'],
        env,
      );
      expect(kept.code, kept.stderr).toBe(0);
      const { copy_id: copyId } = kept.json() as { copy_id: string };
      const copied = join(out, '[EMAIL_1]', 'notes.txt');
      expect(readFileSync(copied, 'utf8')).toBe('key [AWS_ACCESS_KEY_1]\n');
      const back = join(tmp.dir, 'people-back.txt');
      const tries = [
        // The clean-copy-only file itself.
        copied,
        // Its tokens pasted into another file of the copy, and into a file outside it.
        join(out, 'open.txt'),
        join(tmp.dir, 'pasted.txt'),
      ];
      writeFileSync(join(out, 'open.txt'), 'x=[AWS_ACCESS_KEY_1]\n');
      writeFileSync(join(tmp.dir, 'pasted.txt'), 'x=[AWS_ACCESS_KEY_1] y=[EMAIL_1]\n');
      for (const file of tries) {
        const run = await runSvc(['redact', 'reverse', copyId, file, '--out', back, '--json'], env);
        expect(run.code, file).toBe(1);
        expect(run.json()).toMatchObject({ error: 'forbidden', outcome: 'clean_copy' });
        expect(existsSync(back)).toBe(false);
        // Nothing told names the value: not the folder's real name either.
        expect(run.stdout + run.stderr).not.toContain(email);
        expect(run.stdout + run.stderr).not.toContain(awsKey);
      }
      // A file named with a token in the copy is never restored under the value's name.
      writeFileSync(join(out, '[EMAIL_1]', 'probe.txt'), 'x\n');
      const named = await runSvc(['redact', 'reverse', copyId, join(out, '[EMAIL_1]', 'probe.txt')], env);
      expect(named.code).toBe(1);
      expect(named.stderr).toContain('give --out');
      expect(named.stdout + named.stderr).not.toContain(email);
      // Allowed, the values come back, where --out says.
      rules([]);
      const allowed = await runSvc(['redact', 'reverse', copyId, copied, '--out', back, '--json'], env);
      expect(allowed.code, allowed.stderr).toBe(0);
      expect(allowed.json()).toMatchObject({ sources: 1, outcome: 'allowed' });
      expect(readFileSync(back, 'utf8')).toBe(`key ${awsKey}\n`);
      expect(allowed.stdout).not.toContain(email);
    });

    it('decides putting values back as the copy was decided: from the source, in no project too', async () => {
      const loose = join(tmp.dir, 'loose', 'R3');
      mkdirSync(join(loose, 'people'), { recursive: true });
      writeFileSync(join(loose, 'people', 'p.txt'), `key ${awsKey}\n`);
      const named = join(tmp.dir, 'loose-rules.json');
      writeFileSync(named, JSON.stringify([{ effect: 'redact', paths: ['people/'] }]));
      const ruled = { ...env, SVC_RULES_FILE: named };
      const out = join(tmp.dir, 'loose', 'R3.clean');
      const kept = await runSvc(
        ['redact', '.', '--out', out, '--keep-mapping', '--json'],
        ruled,
        30_000,
        loose,
      );
      expect(kept.code, kept.stderr).toBe(0);
      const { copy_id: copyId } = kept.json() as { copy_id: string };
      expect(readFileSync(join(out, 'people', 'p.txt'), 'utf8')).toBe('key [AWS_ACCESS_KEY_1]\n');
      // From another folder, as an agent's shell may be: still the clean-copy-only file.
      const back = join(tmp.dir, 'loose-back.txt');
      const run = await runSvc(
        ['redact', 'reverse', copyId, join(out, 'people', 'p.txt'), '--out', back, '--json'],
        ruled,
        30_000,
        tmp.dir,
      );
      expect(run.code).toBe(1);
      expect(run.json()).toMatchObject({ error: 'forbidden', outcome: 'clean_copy' });
      expect(existsSync(back)).toBe(false);
    });

    it('a file of a folder copy goes back beside its original by default, never into the copy', async () => {
      rules([]);
      // An earlier test's restored file holds the same values: it would be a file they came from.
      rmSync(join(guarded, 'app.restored.json'), { force: true });
      const out = join(tmp.dir, 'guarded-copy');
      const kept = await runSvc(['redact', guarded, '--out', out, '--keep-mapping', '--json'], env);
      expect(kept.code, kept.stderr).toBe(0);
      const { copy_id: copyId } = kept.json() as { copy_id: string };
      const run = await runSvc(['redact', 'reverse', copyId, join(out, 'app.json'), '--json'], env);
      expect(run.code, run.stderr).toBe(0);
      expect(run.json()).toMatchObject({
        original: join(guarded, 'app.json'),
        out: join(guarded, 'app.restored.json'),
      });
      expect(readFileSync(join(guarded, 'app.restored.json'), 'utf8')).toBe(original);
      expect(existsSync(join(out, 'app.restored.json'))).toBe(false);
    });

    it('reads the file it is given only as the read gate allows: a protected file is not copied out', async () => {
      const { copyId } = await keptCopy();
      writeFileSync(join(guarded, 'payroll.txt'), `key ${awsKey}\n`);
      rules([{ effect: 'deny', paths: ['payroll.txt'] }]);
      const leak = join(tmp.dir, 'leak.txt');
      const run = await runSvc(
        ['redact', 'reverse', copyId, join(guarded, 'payroll.txt'), '--out', leak, '--json'],
        env,
      );
      expect(run.code).toBe(1);
      expect(run.json()).toMatchObject({ error: 'forbidden', outcome: 'denied' });
      expect(existsSync(leak)).toBe(false);
      expect(run.stdout + run.stderr).not.toContain(awsKey);
    });

    it('says when no copy keeps a mapping by that id, and never writes over the source', async () => {
      rules([]);
      const unknown = await runSvc(['redact', 'reverse', 'copy_unknown', join(guarded, 'app.json')], env);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('no clean copy copy_unknown keeps a mapping here');
      const { copyId, copy } = await keptCopy();
      const over = await runSvc(['redact', 'reverse', copyId, copy, '--out', join(guarded, 'app.json')], env);
      expect(over.code).toBe(1);
      expect(readFileSync(join(guarded, 'app.json'), 'utf8')).toBe(original);
    });
  });
});
