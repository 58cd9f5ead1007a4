// Feedback and the plan as a person uses them, through the real `svc` process: a verdict silences
// a finding in later scans of its project (and is receipted), "confirmed" beats a silencing verdict,
// a verdict promoted to the organization holds in another project of the same store, and a plan
// applied writes rules that the read gate then enforces.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.ts';
import { childEnv, runSvc } from '../e2e/procs.ts';

const tmp = tempDir('svc-scan-feedback-');
afterAll(() => tmp.cleanup());
const env = childEnv({ SVC_HOME: join(tmp.dir, 'svc'), SVC_VAULT: 'file', HOME: tmp.dir });
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const random = (n: number) =>
  Array.from({ length: n }, () => alphabet[Math.floor(Math.random() * 62)]).join('');

/** A project (a folder with `.git`) holding the given files. */
function project(name: string, files: Record<string, string>): string {
  const root = join(tmp.dir, name);
  mkdirSync(join(root, '.git'), { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), text);
  }
  return root;
}

interface Finding {
  file: string;
  type: string;
  fingerprint: string;
}
interface Scan {
  findings: Finding[];
  scan_id: string;
  silenced: number;
}
interface FeedbackEntry {
  feedback_id: string;
  scope: string;
  verdict: string;
  fingerprint: string;
  receipt_id: string;
  decided_by: string;
}

const scanOf = async (path: string) => (await runSvc(['scan', path, '--json'], env)).json() as Scan;

describe('svc scan feedback', () => {
  const shared = `ghp_${random(36)}`;
  const shop = project('shop', {
    'src/app.ts': `export const token = "${shared}";\nexport const other = "ghp_${random(36)}";\n`,
  });

  it('a false positive leaves later scans of the project, with a verifiable receipt; confirmed brings it back', async () => {
    const first = await scanOf(shop);
    expect(first.findings).toHaveLength(2);
    const target = first.findings.find((f) => f.fingerprint !== first.findings[1]!.fingerprint)!;

    const marked = await runSvc(
      [
        'scan',
        'feedback',
        'mark',
        target.fingerprint,
        'false_positive',
        '--reason',
        'a fixture',
        '--project',
        shop,
        '--json',
      ],
      env,
    );
    expect(marked.code, marked.stderr).toBe(0);
    const entry = marked.json() as FeedbackEntry;
    expect(entry).toMatchObject({
      scope: 'project',
      verdict: 'false_positive',
      fingerprint: target.fingerprint,
    });
    expect(entry.decided_by).toContain('person');
    const verified = await runSvc(['verify', entry.receipt_id, '--json'], env);
    expect(verified.code, verified.stderr).toBe(0);

    const again = await runSvc(['scan', shop, '--json'], env);
    expect(again.code).toBe(6);
    const rescanned = again.json() as Scan;
    expect(rescanned.findings.map((f) => f.fingerprint)).not.toContain(target.fingerprint);
    expect(rescanned.findings).toHaveLength(1);
    expect(rescanned.silenced).toBe(1);

    const listed = (await runSvc(['scan', 'feedback', 'list', '--project', shop, '--json'], env)).json() as {
      feedback: FeedbackEntry[];
    };
    expect(listed.feedback.map((f) => f.feedback_id)).toEqual([entry.feedback_id]);

    // A later verdict on the same fingerprint replaces the project's earlier one.
    await runSvc(['scan', 'feedback', 'mark', target.fingerprint, 'confirmed', '--project', shop], env);
    expect((await scanOf(shop)).findings).toHaveLength(2);
  });

  it('a project reached through a symbolic link is the same project: its verdicts hold there', async () => {
    const real = project('linked', { 'a.ts': `export const token = "ghp_${random(36)}";\n` });
    const link = join(tmp.dir, 'linked-here');
    symlinkSync(real, link);
    const first = await scanOf(link);
    expect(first.findings).toHaveLength(1);
    const mark = await runSvc(
      ['scan', 'feedback', 'mark', first.findings[0]!.fingerprint, 'false_positive', '--project', link],
      env,
    );
    expect(mark.code, mark.stderr).toBe(0);
    for (const spelling of [real, link]) {
      const again = await scanOf(spelling);
      expect(again.findings).toEqual([]);
      expect(again.silenced).toBe(1);
    }
    // A plan of a scan made through the link names the file from the project, not through `..`.
    writeFileSync(join(real, 'b.ts'), `export const other = "ghp_${random(36)}";\n`);
    await scanOf(link);
    const plan = (await runSvc(['plan', link, '--json'], env)).json() as { items: { path: string }[] };
    expect(plan.items.map((i) => i.path)).toContain('./b.ts');
  });

  it('refuses a fingerprint no scan of the project reported, and a verdict that is not one', async () => {
    const unknown = await runSvc(
      ['scan', 'feedback', 'mark', '0'.repeat(32), 'false_positive', '--project', shop],
      env,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('scan the project first');
    const bad = await runSvc(['scan', 'feedback', 'mark', '0'.repeat(32), 'maybe', '--project', shop], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('false_positive, accepted_risk, confirmed');
    // A project named by a path that is not there is said to be so, not to have no scan.
    const missing = join(shop, 'nope');
    for (const args of [
      ['plan', missing],
      ['plan', 'apply', missing],
      ['scan', 'feedback', 'list', '--project', missing],
    ]) {
      const run = await runSvc(args, env);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toContain(`${missing} is not there`);
    }
  });

  it('a verdict promoted to the organization holds in every project of the store; confirmed still wins', async () => {
    const org = (await runSvc(['org', 'create', '--name', 'Acme', '--json'], env)).json() as {
      api_key: string;
    };
    const owner = { ...env, SVC_API_KEY: org.api_key };
    const docs = project('docs', { 'notes.ts': `const sample = "${shared}";\n` });
    const fingerprint = (await scanOf(docs)).findings[0]!.fingerprint;
    const local = (
      await runSvc(
        ['scan', 'feedback', 'mark', fingerprint, 'accepted_risk', '--project', docs, '--json'],
        env,
      )
    ).json() as FeedbackEntry;

    const denied = await runSvc(['scan', 'feedback', 'promote', local.feedback_id], env);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('SVC_API_KEY');
    const promoted = await runSvc(['scan', 'feedback', 'promote', local.feedback_id, '--json'], owner);
    expect(promoted.code, promoted.stderr).toBe(0);
    const entry = promoted.json() as FeedbackEntry & { promoted_from: string };
    expect(entry).toMatchObject({
      scope: 'organization',
      verdict: 'accepted_risk',
      promoted_from: local.feedback_id,
    });
    expect((await runSvc(['verify', entry.receipt_id], env)).code).toBe(0);

    // Another project, never marked, honours the organization's verdict…
    const other = project('other', { 'a.ts': `const k = "${shared}";\n` });
    const scanned = await runSvc(['scan', other, '--json'], env);
    expect(scanned.code).toBe(0);
    expect((scanned.json() as Scan).silenced).toBe(1);
    // …but not where someone confirmed the finding: shop's "confirmed" from the first test holds there.
    expect((await scanOf(shop)).findings.map((f) => f.fingerprint)).toContain(fingerprint);
  });
});

describe('svc plan', () => {
  const token = `ghp_${random(36)}`;
  const shop = project('plan-shop', {
    '.env': `GITHUB_TOKEN=${token}\n`,
    'src/config.ts': `export const github = "ghp_${random(36)}";\n`,
    'exports/customers.csv': `id,email\n1,maria.${random(8).toLowerCase()}@northwind-mail.com\n`,
    'README.md': '# shop\n',
  });

  it('shows a reviewable plan, applies the items picked to the project rules file, and the gate enforces them', async () => {
    await runSvc(['scan', shop], env);
    const shown = await runSvc(['plan', shop, '--json'], env);
    expect(shown.code, shown.stderr).toBe(0);
    const plan = shown.json() as {
      scan_id: string;
      items: { id: string; kind: string; path: string; effect?: string; name?: string; reason: string }[];
    };
    const byPath = (path: string) => plan.items.filter((i) => i.path === path).map((i) => i.effect ?? i.kind);
    expect(byPath('./.env')).toEqual(['deny', 'seal']);
    expect(byPath('./src/config.ts')).toEqual(['redact', 'vault']);
    expect(byPath('./exports/customers.csv')).toEqual(['redact']);
    expect(plan.items.find((i) => i.kind === 'vault')).toMatchObject({ name: 'GITHUB_TOKEN' });
    // The seal's command works from any folder: the file by its full path.
    expect(plan.items.find((i) => i.kind === 'seal')).toMatchObject({
      command: `svc protect ${join(shop, '.env')}`,
    });
    // The way to apply names this plan's scan: a later scan would make another plan.
    const text = await runSvc(['plan', shop], env);
    expect(text.stdout).toContain(`apply: svc plan apply --scan ${plan.scan_id} [--items r1,r2]`);
    for (const item of plan.items) expect(item.reason).not.toContain(token);

    // The vault item copies the secret into the vault, found again in its file by its fingerprint.
    const vault = await runSvc(['plan', 'apply', shop, '--items', 'v1', '--json'], env);
    expect(vault.code, vault.stderr).toBe(0);
    expect(vault.json()).toMatchObject({
      vaulted: [{ name: 'GITHUB_TOKEN', path: './src/config.ts', line: 1 }],
      rules_added: 0,
    });
    expect(vault.stdout).not.toContain('ghp_');
    const listed = await runSvc(['secret', 'list', '--json'], env);
    expect(listed.stdout).toContain('GITHUB_TOKEN');
    const again = await runSvc(['plan', 'apply', shop, '--items', 'v1', '--json'], env);
    expect(again.json()).toMatchObject({
      vaulted: [],
      not_vaulted: [{ name: 'GITHUB_TOKEN', reason: 'the vault already holds a secret of that name' }],
    });

    const picked = plan.items.filter(
      (i) => (i.kind === 'rule' || i.kind === 'seal') && i.path !== './exports/customers.csv',
    );
    const applied = await runSvc(
      ['plan', 'apply', shop, '--items', picked.map((i) => i.id).join(','), '--json'],
      env,
    );
    expect(applied.code, applied.stderr).toBe(0);
    const result = applied.json() as {
      rules_added: number;
      receipt_id: string;
      to: string;
      sealed: { path: string; seal_id: string }[];
    };
    expect(result.rules_added).toBe(2);
    // The seal item sealed .env in place: its text is gone from the file, and it opens only through svc.
    expect(result.sealed).toEqual([{ path: './.env', seal_id: expect.stringMatching(/^seal_/) }]);
    expect(readFileSync(join(shop, '.env')).toString('latin1')).not.toContain(token);
    expect(result.to).toBe(join(shop, '.svc', 'rules.json'));
    expect((await runSvc(['verify', result.receipt_id], env)).code).toBe(0);
    const file = JSON.parse(readFileSync(result.to, 'utf8')) as { effect: string; paths: string[] }[];
    expect(file.map((r) => [r.effect, r.paths])).toEqual([
      ['deny', ['./.env']],
      ['redact', ['./src/config.ts']],
    ]);

    const test = (path: string) => runSvc(['rules', 'test', path, '--json'], env, 30_000, shop);
    const envDecision = await test('.env');
    expect(envDecision.code).toBe(5);
    expect(envDecision.json()).toMatchObject({ decision: { outcome: 'denied' } });
    expect((await test('src/config.ts')).json()).toMatchObject({ decision: { outcome: 'clean_copy' } });
    expect((await test('exports/customers.csv')).code).toBe(0);
    // As the plan's note says: the deny rule refuses opening the sealed file too, to everyone.
    expect(shown.json()).toMatchObject({
      notes: expect.arrayContaining([expect.stringContaining('refuses that too')]),
    });
    const opened = await runSvc(['open', join(shop, '.env'), '--out', '-'], env, 30_000, shop);
    expect(opened.code).toBe(5);
    expect(opened.stdout).not.toContain(token);

    // Applying the whole plan again adds only what is missing, and the sealed file is not sealed twice.
    const twice = await runSvc(['plan', 'apply', shop, '--json'], env);
    expect(twice.json()).toMatchObject({
      rules_added: 1,
      sealed: [],
      not_sealed: [{ path: './.env', reason: 'already_sealed' }],
      not_vaulted: [{ name: 'GITHUB_TOKEN' }],
    });
  });

  it('a key a Kubernetes Secret holds in base64 is named as the key, and goes into the vault as what it encodes', async () => {
    const key = `sk_live_${random(24)}`;
    const manifest = [
      'apiVersion: v1',
      'kind: Secret',
      'metadata:',
      '  name: shop',
      'data:',
      `  STRIPE_SECRET_KEY: ${btoa(key)}`,
    ];
    const k8s = project('plan-k8s', { 'deploy/shop-secret.yaml': `${manifest.join('\n')}\n` });
    expect((await runSvc(['scan', k8s], env)).code).toBe(6);
    const plan = (await runSvc(['plan', k8s, '--json'], env)).json() as {
      items: { id: string; kind: string; name?: string }[];
    };
    const vault = plan.items.find((i) => i.kind === 'vault');
    expect(vault, JSON.stringify(plan)).toMatchObject({ name: 'STRIPE_KEY' });
    const applied = await runSvc(['plan', 'apply', k8s, '--items', vault!.id, '--json'], env);
    expect(applied.json()).toMatchObject({ vaulted: [{ name: 'STRIPE_KEY' }] });
    // What the program gets is the key itself, not its base64: compared by hash, never printed.
    const digest =
      "process.stdout.write(require('node:crypto').createHash('sha256').update(process.env.STRIPE_KEY).digest('hex'))";
    const ran = await runSvc(['run', '--secret', 'STRIPE_KEY', '--', process.execPath, '-e', digest], env);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toBe(createHash('sha256').update(key).digest('hex'));
  });

  it('applied to the organization with an owner key: its rules only, each holding in this project, receipted; a vault item there is refused, receipted too', async () => {
    const org = (await runSvc(['org', 'create', '--name', 'Plan Org', '--json'], env)).json() as {
      api_key: string;
    };
    const owner = { ...env, SVC_API_KEY: org.api_key };
    const app = project('plan-org', { 'src/app.ts': `export const github = "ghp_${random(36)}";\n` });
    expect((await runSvc(['scan', app], env)).code).toBe(6);
    const applied = await runSvc(['plan', 'apply', app, '--to', 'organization', '--json'], owner);
    expect(applied.code, applied.stderr).toBe(0);
    const result = applied.json() as { receipt_id: string };
    expect(result).toMatchObject({ applied: ['r1'], rules_added: 1, to: 'organization', vaulted: [] });
    expect((await runSvc(['verify', result.receipt_id], env)).code).toBe(0);
    // The organization's rule holds for this project's file on this computer, with no rules file.
    const decided = await runSvc(['rules', 'test', 'src/app.ts', '--json'], env, 30_000, app);
    expect(decided.json()).toMatchObject({ decision: { outcome: 'clean_copy' } });
    expect(existsSync(join(app, '.svc', 'rules.json'))).toBe(false);

    const vault = await runSvc(
      ['plan', 'apply', app, '--to', 'organization', '--items', 'v1', '--json'],
      owner,
    );
    expect(vault.code).toBe(1);
    const refused = vault.json() as { error: string; receipt_id: string };
    expect(refused.error).toBe('invalid_request');
    expect((await runSvc(['verify', refused.receipt_id], env)).code).toBe(0);
  });

  it('a file with weak findings only gets an ask rule: the person decides, and nothing is sealed or vaulted', async () => {
    // A generic assignment is at most 0.6 sure, under the 0.7 a strong finding needs.
    const weak = project('plan-weak', { 'config/settings.py': `session_token = "${random(24)}"\n` });
    expect((await runSvc(['scan', weak], env)).code).toBe(6);
    const shown = await runSvc(['plan', weak, '--json'], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect((shown.json() as { items: unknown[] }).items).toEqual([
      expect.objectContaining({
        id: 'r1',
        kind: 'rule',
        effect: 'ask',
        path: './config/settings.py',
        reason: expect.stringContaining('the person decides'),
      }),
    ]);
  });
});
