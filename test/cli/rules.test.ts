// `svc rules` as a real process on a temporary SVC_HOME: organization rules added, listed, tested,
// explained and removed; a rules file imported all or none; a loosening refused with a receipt;
// and the hook applying the organization's rules at once.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.ts';
import { REPO_ROOT, SVC_BIN, childEnv, runSvc } from '../e2e/procs.ts';

const home = tempDir('svc-rules-');
afterAll(() => home.cleanup());
const svcHome = join(home.dir, 'svc');
const project = join(home.dir, 'shop');
let key = '';
const env = (extra: Record<string, string> = {}) =>
  childEnv({ SVC_HOME: svcHome, SVC_VAULT: 'file', HOME: home.dir, SVC_API_KEY: key, ...extra });

beforeAll(async () => {
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(join(project, 'secrets'), { recursive: true });
  writeFileSync(join(project, 'secrets', 'token.txt'), 'x');
  writeFileSync(join(project, 'notes.md'), 'x');
  const org = await runSvc(['org', 'create', '--name', 'Acme', '--json'], env());
  key = (org.json() as { api_key: string }).api_key;
});

function hookRead(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, SVC_BIN), 'hook', 'claude'], { env: env() });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', () =>
      resolve(out.trim() ? JSON.parse(out).hookSpecificOutput.permissionDecision : 'allow'),
    );
    child.stdin.end(
      JSON.stringify({
        session_id: 's',
        transcript_path: join(home.dir, 't.jsonl'),
        cwd: project,
        permission_mode: 'default',
        hook_event_name: 'PreToolUse',
        tool_name: 'Read',
        tool_input: { file_path: path },
        tool_use_id: 't',
      }),
    );
  });
}

/** `svc ARGS` run in the project, as a person would run it there (its rules are found from the folder). */
function svcInProject(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, SVC_BIN), ...args], { env: env(), cwd: project });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('svc rules', () => {
  let ruleId = '';

  it('add: an organization rule, receipted; the hook applies it at once', async () => {
    expect(await hookRead('secrets/token.txt')).toBe('allow');
    const added = await runSvc(
      ['rules', 'add', '{"effect":"deny","paths":["secrets/"],"reason":"keys"}', '--json'],
      env(),
    );
    expect(added.code, added.stderr).toBe(0);
    const body = added.json() as { rules: { rule_id: string; level: string }[]; receipt_id: string };
    expect(body.rules[0]).toMatchObject({ level: 'organization', effect: 'deny', paths: ['secrets/'] });
    expect(body.receipt_id).toMatch(/^rcpt_/);
    ruleId = body.rules[0]!.rule_id;
    expect(await hookRead('secrets/token.txt')).toBe('deny');
    expect(await hookRead('notes.md')).toBe('allow');
  });

  it('list: built-in, organization and this computer\u2019s rules, and a refused loosening', async () => {
    const file = join(home.dir, 'mine.json');
    writeFileSync(
      file,
      JSON.stringify([
        { effect: 'allow', paths: ['secrets/token.txt'] },
        { effect: 'ask', paths: ['*.md'] },
      ]),
    );
    const listed = await runSvc(['rules', 'list', '--json'], env({ SVC_RULES_FILE: file }));
    const body = listed.json() as {
      rules: { id: string; level: string }[];
      refused: { id: string; message: string }[];
    };
    expect(body.rules.map((r) => [r.id, r.level])).toEqual([
      ['builtin:svc-data', 'builtin'],
      ['builtin:svc-clean-copies', 'builtin'],
      ['builtin:svc-rule-files', 'builtin'],
      ['builtin:git-runs', 'builtin'],
      [ruleId, 'organization'],
      // A loosening rule stays in force (the stricter holds where both cover a path) and is named.
      ['SVC_RULES_FILE#1', 'computer'],
      ['SVC_RULES_FILE#2', 'computer'],
    ]);
    expect(body.refused).toEqual([
      { id: 'SVC_RULES_FILE#1', message: expect.stringContaining(`cannot loosen ${ruleId}`) },
    ]);
  });

  it('test and explain: the decision, the rule, what would change it; exit 5 when refused', async () => {
    const denied = await svcInProject(['rules', 'test', 'secrets/token.txt']);
    expect(denied.code).toBe(5);
    expect(denied.stdout).toContain(
      `denied: read of ${join(project, 'secrets', 'token.txt')} is not allowed by an organization rule (${ruleId}): keys`,
    );
    const allowed = await svcInProject(['rules', 'test', 'notes.md', '--for', 'write']);
    expect(allowed.code).toBe(0);
    const explained = await svcInProject(['rules', 'explain', 'secrets', '--json']);
    expect(JSON.parse(explained.stdout)).toMatchObject({
      decision: { outcome: 'denied', rule: { id: ruleId, level: 'organization' } },
      covering: [{ id: ruleId, effect: 'deny', reason: 'keys' }],
    });
    const usage = await runSvc(['rules', 'test', 'x', '--for', 'peek'], env());
    expect(usage.code).toBe(2);
  });

  it('add refuses a rule that would loosen the built-in rule, with a receipt', async () => {
    const refused = await runSvc(
      ['rules', 'add', JSON.stringify({ effect: 'allow', paths: [`${svcHome}/`] })],
      env(),
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('would loosen builtin:svc-data');
  });

  it('import: a whole file, all or none; a file with one bad rule adds nothing', async () => {
    const bad = join(home.dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify([
        { effect: 'deny', paths: ['a'] },
        { effect: 'limit', paths: ['b'] },
      ]),
    );
    const refused = await runSvc(['rules', 'import', bad], env());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('limit_per_day');
    const good = join(home.dir, 'good.json');
    writeFileSync(
      good,
      JSON.stringify([
        { effect: 'deny', paths: ['*.pem'] },
        { effect: 'ask', paths: ['exports/'] },
      ]),
    );
    const imported = await runSvc(['rules', 'import', good, '--json'], env());
    expect((imported.json() as { count: number }).count).toBe(2);
    const listed = (await runSvc(['rules', 'list', '--json'], env())).json() as {
      rules: { level: string }[];
    };
    expect(listed.rules.filter((r) => r.level === 'organization')).toHaveLength(3);
  });

  it('remove: the rule stops holding, with a receipt; an unknown id is refused', async () => {
    const removed = await runSvc(['rules', 'remove', ruleId, '--json'], env());
    expect(removed.json()).toMatchObject({ rule_id: ruleId, receipt_id: expect.stringMatching(/^rcpt_/) });
    expect(await hookRead('secrets/token.txt')).toBe('allow');
    const again = await runSvc(['rules', 'remove', ruleId], env());
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no rule ${ruleId}`);
  });

  it('add without SVC_API_KEY says how to get one', async () => {
    const refused = await runSvc(
      ['rules', 'add', '{"effect":"deny","paths":["x"]}'],
      env({ SVC_API_KEY: '' }),
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('SVC_API_KEY');
  });
});
