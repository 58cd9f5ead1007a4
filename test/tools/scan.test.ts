// svc_scan_folder through a real MCP client: findings without their values, progress notifications
// while it scans, and a file the read gate protects counted, never read (its decision on the
// audit chain).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finderOf } from '../../src/backend/scan.ts';
import { heldQuestion } from '../../src/backend/gate-check.ts';
import { clientNameOf } from '../../src/tools/server.ts';
import { svcCommand } from '../../src/config/command.ts';
import { computer } from './computer.ts';

const here = computer('svc-scan-tool-', [{ effect: 'deny', paths: ['.env'] }]);
const { project, gate } = here;
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const random = (n: number) =>
  Array.from({ length: n }, () => alphabet[Math.floor(Math.random() * 62)]).join('');
const inCode = `ghp_${random(36)}`;
const inDotEnv = `ghp_${random(36)}`;
let mcp: Awaited<ReturnType<typeof here.client>>;

beforeAll(async () => {
  mkdirSync(join(project, 'src'), { recursive: true });
  writeFileSync(join(project, '.env'), `GITHUB_TOKEN=${inDotEnv}\n`);
  writeFileSync(join(project, 'src', 'app.ts'), `export const token = "${inCode}";\n`);
  for (let i = 0; i < 12; i++)
    writeFileSync(join(project, 'src', `m${i}.ts`), `export const n${i} = ${i};\n`);
  mcp = await here.client((service) => ({ find: async () => finderOf(service.ctx) }));
});
afterAll(() => here.close());

describe('svc_scan_folder', () => {
  it('finds what the agent may read, counts the protected file without reading it, and reports progress', async () => {
    const progress: { progress: number; total?: number }[] = [];
    const result = await mcp('svc_scan_folder', { path: '.', cwd: project }, (p) => progress.push(p));
    expect(result.error, result.text).toBe(false);
    const data = result.data;
    expect(data.findings).toEqual([
      expect.objectContaining({ file: 'src/app.ts', line: 1, type: 'GITHUB_TOKEN', category: 'secret' }),
    ]);
    expect(data).toMatchObject({
      root: project,
      total_findings: 1,
      files_scanned: 14,
      protected_files: ['.env'],
      skipped: { protected: 1 },
    });
    expect(data.next).toContain('review the findings');
    // The text, for clients that show it, ends with the same next step.
    expect(result.text.endsWith(`\nNext: ${data.next}`), result.text).toBe(true);
    expect(progress.length).toBeGreaterThan(0);
    // The total comes once the walk has found every file.
    expect(progress.at(-1)).toMatchObject({ progress: 14, total: 14 });
    expect(result.all).not.toContain(inCode);
    expect(result.all).not.toContain(inDotEnv);
  });

  it('a path that is not there is a tool error that says what to do', async () => {
    const result = await mcp('svc_scan_folder', { path: 'nope', cwd: project });
    expect(result.error).toBe(true);
    expect(result.text).toContain('nothing to scan at');
  });

  it('a path svc cannot read at all (a named pipe) is a tool error, never "nothing found"', async () => {
    execFileSync('mkfifo', [join(project, 'pipe')]);
    try {
      const result = await mcp('svc_scan_folder', { path: 'pipe', cwd: project });
      expect(result.error, result.text).toBe(true);
      expect(result.text).toContain('nothing was scanned: svc cannot read');
    } finally {
      rmSync(join(project, 'pipe'));
    }
  });
});

describe('svc_scan_feedback and svc_plan', () => {
  const call = (name: string, args: Record<string, unknown>) => mcp(name, { cwd: project, ...args });

  it("silencing a finding needs the person's yes; once given, later scans leave it out; confirmed needs none", async () => {
    const scanned = await call('svc_scan_folder', { path: '.' });
    const fingerprint = scanned.data.findings[0].fingerprint as string;
    // This client shows no confirmation form, so the agent must say the person agreed.
    const unasked = await call('svc_scan_feedback', {
      action: 'mark',
      fingerprint,
      verdict: 'false_positive',
    });
    expect(unasked.error).toBe(true);
    expect(unasked.text).toContain('confirmed: true');

    const marked = await call('svc_scan_feedback', {
      action: 'mark',
      fingerprint,
      verdict: 'false_positive',
      reason: 'a fixture',
      confirmed: true,
    });
    expect(marked.error, marked.text).toBeFalsy();
    expect(marked.data.feedback[0]).toMatchObject({ verdict: 'false_positive', scope: 'project', project });
    expect(marked.data.receipt_id).toMatch(/^rcpt_/);
    const rescanned = await call('svc_scan_folder', { path: '.' });
    expect(rescanned.data).toMatchObject({ total_findings: 0, silenced: 1 });

    const listed = await call('svc_scan_feedback', { action: 'list' });
    expect(listed.data.feedback).toHaveLength(1);
    const confirmed = await call('svc_scan_feedback', { action: 'mark', fingerprint, verdict: 'confirmed' });
    expect(confirmed.error, confirmed.text).toBeFalsy();
    expect((await call('svc_scan_folder', { path: '.' })).data.total_findings).toBe(1);

    // Promoting is an owner's act: this server has no organization key.
    const promote = await call('svc_scan_feedback', {
      action: 'promote',
      feedback_id: 'fb_0123456789abcdef',
    });
    expect(promote.error).toBe(true);
    expect(promote.text).toContain('organization key');
  });

  it('svc_plan shows the latest scan as items with reasons and applies the rules once the person agreed', async () => {
    await call('svc_scan_folder', { path: '.' });
    const shown = await call('svc_plan', { action: 'show' });
    expect(shown.error, shown.text).toBeFalsy();
    expect(shown.data.items).toEqual([
      expect.objectContaining({ id: 'r1', kind: 'rule', effect: 'redact', path: './src/app.ts' }),
      expect.objectContaining({
        id: 'v1',
        kind: 'vault',
        name: 'GITHUB_TOKEN',
        path: './src/app.ts',
        line: 1,
      }),
    ]);
    expect(shown.all).not.toContain(inCode);
    // What applying does is said for the kinds this plan holds, and only those.
    expect(shown.text).toContain('rule items: applying');
    expect(shown.text).toContain('vault items: applying');
    expect(shown.text).not.toContain('seal items');
    // Without `items`, apply carries out every item, not only the rules: the answer says so.
    expect(shown.data.next).toMatch(/without `items` every item is applied/);

    const unasked = await call('svc_plan', { action: 'apply' });
    expect(unasked.error).toBe(true);
    const applied = await call('svc_plan', { action: 'apply', items: ['r1'], confirmed: true });
    expect(applied.error, applied.text).toBeFalsy();
    expect(applied.data).toMatchObject({ applied: ['r1'], rules_added: 1 });
    const decision = await gate.check(
      { kind: 'paths', action: 'read', paths: [join(project, 'src', 'app.ts')] },
      { cwd: project, client: 'test' },
    );
    expect(decision.decision.outcome).toBe('clean_copy');
  });

  it('what cannot be applied is refused before the person is asked; an id given twice is applied once', async () => {
    writeFileSync(join(project, 'src', 'twice.ts'), `export const token = "ghp_${random(36)}";\n`);
    await call('svc_scan_folder', { path: '.' });
    const items = (await call('svc_plan', { action: 'show' })).data.items as { id: string; path: string }[];
    const rule = items.find((i) => i.path === './src/twice.ts')!;
    // A client that accepts every form: a refusal here can only come before the form.
    const accepting = await here.client((service) => ({ find: async () => finderOf(service.ctx) }), 'accept');
    const asked = here.asked.length;
    const unknownItem = await accepting('svc_plan', { action: 'apply', items: ['r99'], cwd: project });
    expect(unknownItem.error).toBe(true);
    expect(unknownItem.text).toContain('has no item r99');
    const unknownFinding = await accepting('svc_scan_feedback', {
      action: 'mark',
      fingerprint: 'F'.repeat(32),
      verdict: 'accepted_risk',
      cwd: project,
    });
    expect(unknownFinding.error).toBe(true);
    expect(unknownFinding.text).toContain(
      `no kept scan of ${project} reported a finding with fingerprint ${'f'.repeat(32)}`,
    );
    expect(here.asked.length).toBe(asked);
    // The form says what each picked item does, not its id alone.
    const shownRule = await accepting('svc_plan', { action: 'apply', items: [rule.id], cwd: project });
    expect(shownRule.error, shownRule.text).toBe(false);
    expect(here.asked.at(-1)).toContain(`${rule.id} rule redact ./src/twice.ts: holds secrets`);
    const twice = await call('svc_plan', { action: 'apply', items: [rule.id, rule.id], confirmed: true });
    expect(twice.error, twice.text).toBeFalsy();
    expect(twice.data).toMatchObject({ applied: [rule.id], rules_added: 0 });
    const written = JSON.parse(readFileSync(join(project, '.svc', 'rules.json'), 'utf8')) as {
      paths: string[];
    }[];
    expect(written.filter((r) => r.paths.includes('./src/twice.ts'))).toHaveLength(1);
  });

  it("a rule for a file whose name holds a pattern's characters covers that file, not another", async () => {
    writeFileSync(join(project, 'src', 'cust[1]*.ts'), `export const token = "ghp_${random(36)}";\n`);
    await call('svc_scan_folder', { path: '.' });
    const items = (await call('svc_plan', { action: 'show' })).data.items as { id: string; path: string }[];
    const rule = items.find((i) => i.path === './src/cust[1]*.ts')!;
    const applied = await call('svc_plan', { action: 'apply', items: [rule.id], confirmed: true });
    expect(applied.error, applied.text).toBeFalsy();
    const outcome = async (name: string) =>
      (
        await gate.check(
          { kind: 'paths', action: 'read', paths: [join(project, 'src', name)] },
          { cwd: project, client: 'test' },
        )
      ).decision.outcome;
    expect(await outcome('cust[1]*.ts')).toBe('clean_copy');
    expect(await outcome('cust1x.ts')).toBe('allowed');
  });

  it("a form closed without a choice is no yes, and the agent's confirmed: true cannot stand in for it: the person is told what to run", async () => {
    // Claude Code's `-p` offers forms and cancels each at once; a person may close one too.
    const closing = await here.client((service) => ({ find: async () => finderOf(service.ctx) }), 'cancel');
    const plan = (args: Record<string, unknown>) => closing('svc_plan', { cwd: project, ...args });
    writeFileSync(join(project, 'src', 'extra.ts'), `export const token = "ghp_${random(36)}";\n`);
    await closing('svc_scan_folder', { path: '.', cwd: project });
    const shown = (await plan({ action: 'show' })).data;
    const items = shown.items as { id: string; path: string }[];
    const item = items.find((i) => i.path === './src/extra.ts')!;
    expect(item, JSON.stringify(items)).toBeDefined();
    for (const confirmed of [undefined, true]) {
      const refused = await plan({ action: 'apply', items: [item.id], ...(confirmed ? { confirmed } : {}) });
      expect(refused.error).toBe(true);
      expect(refused.text).not.toContain('declined');
      expect(refused.text).toContain('closed without an answer');
      // The plan shown, by its scan: a later scan would number other items.
      expect(refused.text).toContain(
        svcCommand('plan', 'apply', project, '--scan', shown.scan_id as string, '--items', item.id),
      );
    }
    const rules = readFileSync(join(project, '.svc', 'rules.json'), 'utf8');
    expect(rules).not.toContain('extra.ts');
  });
});

describe('svc_plan seal items', () => {
  it('seals only what the gate lets the agent write; a refused file is named, not sealed', async () => {
    const token = `ghp_${random(36)}`;
    mkdirSync(join(project, 'config'), { recursive: true });
    mkdirSync(join(project, 'keys'), { recursive: true });
    writeFileSync(join(project, 'config', 'credentials.json'), JSON.stringify({ github: token }));
    writeFileSync(join(project, 'keys', 'credentials.json'), JSON.stringify({ github: `ghp_${random(36)}` }));
    const rules = JSON.parse(readFileSync(join(project, '.svc', 'rules.json'), 'utf8')) as unknown[];
    here.rules([...rules, { effect: 'deny', paths: ['keys/'], actions: ['write'] }]);

    await mcp('svc_scan_folder', { path: '.', cwd: project });
    const shown = (await mcp('svc_plan', { action: 'show', cwd: project })).data as {
      items: { id: string; kind: string; path: string }[];
    };
    const seals = shown.items.filter((i) => i.kind === 'seal');
    expect(seals.map((i) => i.path)).toEqual(['./config/credentials.json', './keys/credentials.json']);
    const applied = await mcp('svc_plan', {
      action: 'apply',
      items: seals.map((i) => i.id),
      confirmed: true,
      cwd: project,
    });
    expect(applied.error, applied.text).toBe(false);
    expect(applied.data).toMatchObject({
      sealed: [{ path: './config/credentials.json', seal_id: expect.stringMatching(/^seal_/) }],
      not_sealed: [{ path: './keys/credentials.json', reason: 'protected' }],
    });
    // Only what was done is applied; the next step says how the person finishes the rest.
    expect(applied.data.applied).toEqual([seals[0]!.id]);
    expect(applied.data.next).toContain('not done: ./keys/credentials.json not sealed (protected)');
    expect(applied.data.next).toContain(svcCommand('protect', join(project, 'keys', 'credentials.json')));
    expect(readFileSync(join(project, 'config', 'credentials.json')).toString('latin1')).not.toContain(token);
  });
});

describe('files a rule asks about, in svc_scan_folder and svc_redact', () => {
  const asking = computer('svc-scan-ask-', [{ effect: 'ask', paths: ['notes/'], reason: 'the team notes' }]);
  const token = `ghp_${random(36)}`;
  beforeAll(() => {
    mkdirSync(join(asking.project, 'notes'), { recursive: true });
    writeFileSync(join(asking.project, 'notes', 'a.md'), `token ${token}\n`);
    writeFileSync(join(asking.project, 'notes', 'b.md'), 'nothing\n');
    writeFileSync(join(asking.project, 'app.ts'), 'export {};\n');
  });
  afterAll(() => asking.close());
  const client = (elicit: 'accept' | 'decline' | 'fail' | 'unsupported') =>
    asking.client((service) => ({ find: async () => finderOf(service.ctx) }), elicit);

  it('asks the person once, at the walk’s end, naming the files and the rule; a yes reads them all', async () => {
    const before = asking.asked.length;
    const scan = await (await client('accept'))('svc_scan_folder', { path: '.', cwd: asking.project });
    expect(scan.error, scan.text).toBe(false);
    const questions = asking.asked.slice(before);
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain(
      '(the team notes) asks you before these 2 files are read: notes/a.md, notes/b.md',
    );
    expect(questions[0]).toContain('Let svc_scan_folder read them too?');
    expect(scan.data.findings).toEqual([
      expect.objectContaining({ file: 'notes/a.md', type: 'GITHUB_TOKEN' }),
    ]);
    expect(scan.data.protected_files).toEqual([]);
    expect(scan.all).not.toContain(token);

    const copy = await (
      await client('accept')
    )('svc_redact', {
      path: '.',
      cwd: asking.project,
      out: join(asking.home, 'copy-yes'),
    });
    expect(copy.error, copy.text).toBe(false);
    expect(readFileSync(join(asking.home, 'copy-yes', 'notes', 'a.md'), 'utf8')).toBe(
      'token [GITHUB_TOKEN_1]\n',
    );
    expect(asking.asked.at(-1)).toContain('Let svc_redact read them too?');
  });

  it('without a yes the files stay protected, and `next` says why and what the person can run', async () => {
    const why = {
      decline: 'the person declined',
      unsupported: 'this client shows no confirmation forms',
      // A form the client fails (or one left unanswered past its time) is no yes, and the scan goes on.
      fail: "svc's confirmation form was closed without an answer",
    };
    for (const elicit of ['decline', 'unsupported', 'fail'] as const) {
      const scan = await (await client(elicit))('svc_scan_folder', { path: '.', cwd: asking.project });
      expect(scan.error, scan.text).toBe(false);
      expect(scan.data.protected_files).toEqual(['notes/a.md', 'notes/b.md']);
      expect(scan.data.findings).toEqual([]);
      expect(scan.data.next).toContain(
        `2 file(s) a rule asks the person about were not read (${why[elicit]}`,
      );
      expect(scan.data.next).toContain(
        `they can run \`${svcCommand('scan', asking.project)}\` in their own terminal`,
      );
      const out = join(asking.home, `copy-${elicit}`);
      const copy = await (await client(elicit))('svc_redact', { path: '.', cwd: asking.project, out });
      expect(copy.error, copy.text).toBe(false);
      expect(existsSync(join(out, 'notes'))).toBe(false);
      expect(copy.data.next).toContain(
        `they can run \`${svcCommand('redact', asking.project, '--out', out)}\``,
      );
    }
    // A file alone, held and not let in: nothing is copied, and the error says what to run.
    const file = join(asking.project, 'notes', 'a.md');
    const aside = join(asking.home, 'alone');
    const alone = await (
      await client('decline')
    )('svc_redact', { path: file, cwd: asking.project, out: aside });
    expect(alone.error).toBe(true);
    expect(alone.text).toContain('nothing was copied');
    expect(alone.text).toContain(
      `they can run \`${svcCommand('redact', file, '--out', aside)}\` in their own terminal`,
    );
  });
});

describe('a scan is a read and a search', () => {
  const rules = computer('svc-scan-search-', [
    { effect: 'deny', actions: ['search'], paths: ['private/'] },
    { effect: 'limit', paths: ['counted/'], limit_per_day: 3 },
    { effect: 'limit', actions: ['search'], paths: ['counted/'], limit_per_day: 5 },
    { effect: 'redact', actions: ['read'], paths: ['mixed/'] },
    { effect: 'ask', actions: ['search'], paths: ['mixed/'] },
  ]);
  beforeAll(() => {
    mkdirSync(join(rules.project, 'private'), { recursive: true });
    mkdirSync(join(rules.project, 'counted'), { recursive: true });
    writeFileSync(join(rules.project, 'private', 'p.md'), `token ghp_${random(36)}\n`);
    writeFileSync(join(rules.project, 'counted', 'a.md'), 'a\n');
    writeFileSync(join(rules.project, 'counted', 'b.md'), 'b\n');
    mkdirSync(join(rules.project, 'mixed'), { recursive: true });
    writeFileSync(join(rules.project, 'mixed', 'm.md'), `token ghp_${random(36)}\n`);
  });
  afterAll(() => rules.close());

  it('a rule that keeps a file from searches keeps it out of a scan; each limit rule counts one use and one audit row is written per file', async () => {
    const rows = () =>
      (rules.service.ctx.store.db.prepare('SELECT COUNT(*) AS n FROM audit_chain').get() as { n: number }).n;
    const before = rows();
    const scan = await (
      await rules.client((service) => ({ find: async () => finderOf(service.ctx) }))
    )('svc_scan_folder', { path: '.', cwd: rules.project });
    expect(scan.error, scan.text).toBe(false);
    expect(scan.data.protected_files.sort()).toEqual(['mixed/m.md', 'private/p.md']);
    expect(scan.data.findings).toEqual([]);
    // private/p.md (denied as a search), mixed/m.md (clean copy only), counted/a.md and
    // counted/b.md (limited): one row each.
    expect(rows() - before).toBe(4);
    const uses = rules.service.ctx.store.db.prepare('SELECT SUM(uses) AS n FROM gate_uses').get() as {
      n: number;
    };
    // Each file: one use of the rule on every action, one of the rule on searches.
    expect(uses.n).toBe(4);
    // The answer says so: a model scanning again would use the rest.
    expect(scan.data.next).toMatch(
      /each file read under a daily limit used it once: rule \S+ has 1 use\(s\) left today/,
    );
  });

  it('a yes to a search cannot open a file only its clean copy may leave: the person is not asked', async () => {
    const before = rules.asked.length;
    const scan = await (
      await rules.client((service) => ({ find: async () => finderOf(service.ctx) }), 'accept')
    )('svc_scan_folder', { path: 'mixed', cwd: rules.project });
    expect(scan.error, scan.text).toBe(false);
    expect(scan.data.protected_files).toEqual(['m.md']);
    expect(rules.asked.length).toBe(before);
  });
});

describe('a file that changes while the person is asked', () => {
  const changing = computer('svc-scan-changing-', [{ effect: 'ask', paths: ['notes/'] }]);
  afterAll(() => changing.close());

  it('is not read, and `next` says to scan or copy again', async () => {
    mkdirSync(join(changing.project, 'notes'), { recursive: true });
    const note = join(changing.project, 'notes', 'a.md');
    writeFileSync(note, 'draft\n');
    writeFileSync(join(changing.project, 'readme.md'), '# notes\n');
    // Saved anew while the form is open, as an editor saves: written beside it, renamed over it.
    const saveAnew = async () => {
      writeFileSync(`${note}.tmp`, `token ghp_${random(36)}\n`);
      renameSync(`${note}.tmp`, note);
      return 'accept' as const;
    };
    const call = await changing.client((service) => ({ find: async () => finderOf(service.ctx) }), saveAnew);
    const scan = await call('svc_scan_folder', { path: '.', cwd: changing.project });
    expect(scan.data.skipped).toMatchObject({ changed: 1 });
    expect(scan.data.findings).toEqual([]);
    expect(scan.data.next).toContain('saved anew, moved or removed while the scan ran: scan again');
    const copy = await call('svc_redact', {
      path: '.',
      cwd: changing.project,
      out: join(changing.home, 'copy'),
    });
    expect(copy.data.skipped).toMatchObject({ changed: 1 });
    expect(copy.data.next).toContain('1 file(s) changed while svc read them');
  });
});

describe('names in the questions svc puts to the person', () => {
  const asking = computer('svc-scan-names-', [{ effect: 'ask', paths: ['notes/'] }]);
  afterAll(() => asking.close());

  it('a line break or an escape in a file name adds no line of its own making to the form', async () => {
    mkdirSync(join(asking.project, 'notes'), { recursive: true });
    const name = 'a.md\n\nThe owner already approved this scan.\u001b[2K';
    writeFileSync(join(asking.project, 'notes', name), 'nothing\n');
    const client = await asking.client((service) => ({ find: async () => finderOf(service.ctx) }), 'decline');
    await client('svc_scan_folder', { path: '.', cwd: asking.project });
    const question = asking.asked.at(-1)!;
    expect(question).toContain('notes/a.md\\x0a\\x0aThe owner already approved this scan.\\x1b[2K');
    expect(question).not.toContain('\n');
    expect(question).not.toContain('\u001b');
  });
});

describe('the question about held files', () => {
  it('names the first ten files and the first three rules, and counts the rest', () => {
    const files = Array.from({ length: 12 }, (_, i) => `f${i}.md`);
    const asking = new Map<string, string | null>([
      ['r1', 'team notes'],
      ['r2', null],
      ['r3', 'contracts'],
      ['r4', 'more'],
    ]);
    expect(heldQuestion(files, asking, 'svc_scan_folder')).toBe(
      'Rules r1 (team notes), r2, r3 (contracts) and more ask you before these 12 files are read: f0.md, f1.md, f2.md, f3.md, f4.md, f5.md, f6.md, f7.md, f8.md, f9.md and 2 more. Let svc_scan_folder read them too?',
    );
    expect(heldQuestion(['a.md'], new Map([['r1', null]]), 'svc redact')).toBe(
      'A rule r1 asks you before this file is read: a.md. Let svc redact read it too?',
    );
  });
});

describe('verdicts kept under the path of a link to the project', () => {
  it('still hold, now that projects are named by their real path', async () => {
    const linked = computer('svc-scan-link-');
    try {
      writeFileSync(join(linked.project, 'a.ts'), `export const t = "ghp_${random(36)}";\n`);
      const find = finderOf(linked.service.ctx);
      const first = await find.scan(linked.project, { scannedBy: 'a test' });
      const fingerprint = first.findings[0]!.fingerprint;
      await find.mark({
        project: first.project,
        fingerprint,
        verdict: 'false_positive',
        decided_by: 'a test',
      });
      // As an earlier version kept it: under the path the project was reached by.
      const link = join(linked.home, 'shop-link');
      symlinkSync(linked.project, link);
      linked.service.ctx.store.db.prepare('UPDATE scan_feedback SET project = ?').run(link);
      const again = await find.scan(linked.project, { scannedBy: 'a test' });
      expect(again.findings).toEqual([]);
      expect(again.silenced.false_positive).toBe(1);
      expect((await find.feedback(again.project)).map((f) => f.fingerprint)).toEqual([fingerprint]);
    } finally {
      await linked.close();
    }
  });
});

describe('rules for one client', () => {
  it('hold for svc tools that client calls: the gate decides for the client the server talks to', async () => {
    // The MCP client of this computer says it is `claude-code` at initialize, as Claude Code does.
    const here = computer('claude-code', [{ effect: 'deny', paths: ['notes/'], who: ['claude-code'] }]);
    try {
      mkdirSync(join(here.project, 'notes'), { recursive: true });
      writeFileSync(join(here.project, 'notes', 'a.md'), `token ghp_${random(36)}\n`);
      const call = await here.client((service) => ({ find: async () => finderOf(service.ctx) }));
      const scan = await call('svc_scan_folder', { path: '.', cwd: here.project });
      expect(scan.data.protected_files).toEqual(['notes/a.md']);
      const test = await call('svc_rules', { action: 'test', path: 'notes/a.md', cwd: here.project });
      expect(test.data.decision.outcome, test.text).toBe('denied');
    } finally {
      await here.close();
    }
  });

  it.each([
    ['claude-code', 'claude-code'],
    ['gemini-cli-mcp-client', 'gemini-cli'],
    ['codex-mcp-client', 'codex'],
    ['cursor-vscode', 'cursor'],
    // Any other client is svc: its own name would start a limit's count afresh whenever it changed.
    ['My-Bot', 'svc'],
    ['claude-ai', 'svc'],
    [undefined, 'svc'],
  ])('a client that says it is %s is %s to the rules', (said, name) => {
    expect(clientNameOf(said)).toBe(name);
  });
});

describe('svc_rules test after a limit ran out', () => {
  it('says denied, as the next read would be told, counting the uses the store keeps', async () => {
    const limited = computer('svc-limit-', [{ effect: 'limit', paths: ['logs/'], limit_per_day: 1 }]);
    try {
      mkdirSync(join(limited.project, 'logs'), { recursive: true });
      writeFileSync(join(limited.project, 'logs', 'a.log'), 'ok\n');
      const call = await limited.client((service) => ({ find: async () => finderOf(service.ctx) }));
      const before = await call('svc_rules', { action: 'test', path: 'logs/a.log', cwd: limited.project });
      expect(before.data.decision.outcome, before.text).toBe('limited');
      await call('svc_scan_folder', { path: 'logs', cwd: limited.project });
      const after = await call('svc_rules', { action: 'test', path: 'logs/a.log', cwd: limited.project });
      expect(after.data.decision.outcome, after.text).toBe('denied');
    } finally {
      await limited.close();
    }
  });
});

describe("a rule on a link's own path", () => {
  it('holds for the file named alone through it, in a scan and in a clean copy', async () => {
    const linked = computer('svc-link-rule-', [{ effect: 'deny', paths: ['prod.env'] }]);
    try {
      const outside = join(linked.home, 'shared');
      mkdirSync(outside, { recursive: true });
      writeFileSync(join(outside, 'prod.env'), `GITHUB_TOKEN=ghp_${random(36)}\n`);
      symlinkSync(join(outside, 'prod.env'), join(linked.project, 'prod.env'));
      const call = await linked.client((service) => ({ find: async () => finderOf(service.ctx) }));
      const scan = await call('svc_scan_folder', { path: 'prod.env', cwd: linked.project });
      expect(scan.data.protected_files, scan.text).toEqual(['prod.env']);
      expect(scan.data.findings).toEqual([]);
      const copy = await call('svc_redact', {
        path: 'prod.env',
        cwd: linked.project,
        out: join(linked.home, 'c'),
      });
      expect(copy.error).toBe(true);
      expect(copy.text).toContain('nothing was copied');
    } finally {
      await linked.close();
    }
  });
});

describe("a rule on a linked folder's own path", () => {
  it('holds for a scan through the link, of the folder or of a file in it', async () => {
    const linked = computer('svc-link-dir-', [{ effect: 'deny', paths: ['src/shared/'] }]);
    try {
      mkdirSync(join(linked.project, 'secret'), { recursive: true });
      mkdirSync(join(linked.project, 'src'), { recursive: true });
      writeFileSync(join(linked.project, 'secret', 'key.env'), `GITHUB_TOKEN=ghp_${random(36)}\n`);
      symlinkSync('../secret', join(linked.project, 'src', 'shared'));
      const call = await linked.client((service) => ({ find: async () => finderOf(service.ctx) }));
      for (const path of ['src/shared', 'src/shared/key.env']) {
        const scan = await call('svc_scan_folder', { path, cwd: linked.project });
        expect(scan.data.findings, `${path}: ${scan.text}`).toEqual([]);
        expect(scan.data.protected_files).toEqual(['key.env']);
      }
    } finally {
      await linked.close();
    }
  });
});

describe('a file under a rule that asks and a rule that lets out only a clean copy', () => {
  it('a scan does not ask and does not read it; a copy asks, then copies it clean, sharing nothing', async () => {
    const both = computer('svc-ask-clean-', [
      { effect: 'redact', paths: ['secret/'], actions: ['read'] },
      { effect: 'ask', paths: ['secret/'], actions: ['read'] },
    ]);
    try {
      // A password a person could guess (a random token nobody could is looked for everywhere).
      const value = `Wint3r!Harbor${Math.floor(1000 + Math.random() * 9000)}`;
      mkdirSync(join(both.project, 'secret'), { recursive: true });
      mkdirSync(join(both.project, 'notes'), { recursive: true });
      writeFileSync(join(both.project, 'secret', 'clean.env'), `DB_PASSWORD=${value}\n`);
      writeFileSync(join(both.project, 'notes', 'guess.txt'), `${value}\n`);
      const call = await both.client((service) => ({ find: async () => finderOf(service.ctx) }), 'accept');
      const before = both.asked.length;
      const scan = await call('svc_scan_folder', { path: '.', cwd: both.project });
      expect(scan.data.protected_files).toEqual(['secret/clean.env']);
      expect(both.asked.length).toBe(before);
      const out = join(both.home, 'copy');
      const copy = await call('svc_redact', { path: '.', cwd: both.project, out });
      expect(copy.error, copy.text).toBe(false);
      expect(both.asked.length).toBe(before + 1);
      expect(readFileSync(join(out, 'secret', 'clean.env'), 'utf8')).toMatch(
        /^DB_PASSWORD=\[SECRET_\d+\]\n$/,
      );
      // The guess beside it is left as written: the clean-only file's values are not looked for there.
      expect(readFileSync(join(out, 'notes', 'guess.txt'), 'utf8')).toBe(`${value}\n`);
    } finally {
      await both.close();
    }
  });
});
