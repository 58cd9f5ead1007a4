// `svc scan` as a real process: the --json contract (exactly one object on stdout, each finding's
// fields, paths relative to the scanned folder, 1-based positions), the exit codes (found, none,
// error), a single file, what was not scanned (binary, over the size cap, protected by the read
// gate), and no value ever in the output.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.ts';
import { childEnv, REPO_ROOT, runSvc, SVC_BIN } from '../e2e/procs.ts';
import { onTerminal } from './terminal.ts';

const tmp = tempDir('svc-scan-cli-');
afterAll(() => tmp.cleanup());
const env = childEnv({ SVC_HOME: join(tmp.dir, 'svc'), SVC_VAULT: 'file', HOME: tmp.dir });
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const random = (n: number) =>
  Array.from({ length: n }, () => alphabet[Math.floor(Math.random() * 62)]).join('');
const token = `ghp_${random(36)}`;
const project = join(tmp.dir, 'shop');
mkdirSync(join(project, 'src'), { recursive: true });
mkdirSync(join(project, 'build'), { recursive: true });
writeFileSync(join(project, '.gitignore'), 'build/\n');
writeFileSync(join(project, 'src', 'app.ts'), `// config\nconst token = "${token}";\n`);
writeFileSync(join(project, 'build', 'app.js'), `const token = "${token}";\n`);
writeFileSync(join(project, 'notes.md'), '# nothing here\n');

interface Scan {
  findings: Record<string, unknown>[];
  files_scanned: number;
  bytes_scanned: number;
  scan_id: string;
  silenced: number;
  skipped: { file: string; reason: string }[];
}

describe('svc scan', () => {
  it('an empty path is refused, never read as the current folder', async () => {
    const run = await runSvc(['scan', '', '--json'], env);
    expect(run.code).toBe(1);
    expect(run.json()).toMatchObject({ error: 'invalid_request', message: expect.stringContaining('empty') });
  });

  it("prints a file's name with its control characters escaped: a name cannot rewrite the lines", async () => {
    const odd = join(tmp.dir, 'odd');
    mkdirSync(odd);
    writeFileSync(join(odd, 'new\nline\u001b[2K.txt'), `const token = "${token}";\n`);
    const run = await runSvc(['scan', odd], env);
    expect(run.code).toBe(6);
    expect(run.stdout).toContain('new\\x0aline\\x1b[2K.txt:1:16  secret');
    expect(run.stdout).not.toContain('\u001b');
  });

  it('a reader that stops early (| head) leaves the exit code the scan gave, and no trace', () => {
    // Enough findings that the answer is still being written when the reader has gone.
    const long = join(tmp.dir, 'long');
    mkdirSync(long);
    for (let i = 0; i < 1200; i++) {
      writeFileSync(join(long, `c-${i}.txt`), `owner: ${random(10).toLowerCase()}.${i}@fastmail.com\n`);
    }
    const run = execFileSync(
      'bash',
      [
        '-c',
        `"$NODE" "$SVC" scan "$DIR" 2>"$ERR" | head -c 10 >/dev/null; echo "\${PIPESTATUS[0]}"; cat "$ERR"`,
      ],
      {
        env: {
          ...env,
          NODE: process.execPath,
          SVC: join(REPO_ROOT, SVC_BIN),
          DIR: long,
          ERR: join(tmp.dir, 'err'),
        },
        encoding: 'utf8',
      },
    );
    expect(run.split('\n')[0]).toBe('6');
    expect(run).not.toContain('EPIPE');
  });

  it('--json through a pipe prints the whole object, however long', async () => {
    const many = join(tmp.dir, 'many');
    mkdirSync(many);
    for (let i = 0; i < 500; i++) {
      writeFileSync(join(many, `contact-${i}.txt`), `owner: ${random(10).toLowerCase()}.${i}@fastmail.com\n`);
    }
    // A reader that starts late, as a pipeline's next command may: the pipe fills, and the rest of
    // the answer waits in the process until it is read.
    const stdout = execFileSync('sh', ['-c', `"$NODE" "$SVC" scan "$DIR" --json | (sleep 1; cat); exit 0`], {
      env: { ...env, NODE: process.execPath, SVC: join(REPO_ROOT, SVC_BIN), DIR: many },
      encoding: 'utf8',
    });
    expect(stdout.length).toBeGreaterThan(64 * 1024);
    expect((JSON.parse(stdout) as Scan).findings).toHaveLength(500);
  });

  it('--json prints exactly one object, findings relative to the folder, and exits 6', async () => {
    const run = await runSvc(['scan', project, '--json'], env);
    expect(run.code, run.stderr).toBe(6);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    const scan = run.json() as Scan;
    expect(Object.keys(scan).sort()).toEqual([
      'bytes_scanned',
      'files_scanned',
      'findings',
      'scan_id',
      'silenced',
      'skipped',
    ]);
    expect(scan.files_scanned).toBe(3);
    expect(scan.scan_id).toMatch(/^scan_[0-9a-f]{16}$/);
    expect(scan.silenced).toBe(0);
    expect(scan.findings).toEqual([
      {
        file: 'src/app.ts',
        line: 2,
        column: 16,
        category: 'secret',
        type: 'GITHUB_TOKEN',
        rule: 'github-personal-access-token',
        confidence: expect.any(Number),
        fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/),
        preview: expect.stringMatching(/^ghp_\*+ \(40 chars\)$/),
      },
    ]);
    const confidence = scan.findings[0]!.confidence as number;
    expect(confidence).toBeGreaterThan(0);
    expect(confidence).toBeLessThanOrEqual(1);
    expect(run.stdout + run.stderr).not.toContain(token);
  });

  it('the same value has the same fingerprint in a later scan; one file can be scanned alone', async () => {
    const first = (await runSvc(['scan', project, '--json'], env)).json() as Scan;
    const alone = await runSvc(['scan', join(project, 'src', 'app.ts'), '--json'], env);
    const scan = alone.json() as Scan;
    expect(scan.files_scanned).toBe(1);
    expect(scan.findings[0]).toMatchObject({ file: 'app.ts', fingerprint: first.findings[0]!.fingerprint });
    // In words, the next step names this scan, and the project when svc ran outside it.
    const repo = join(tmp.dir, 'repo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    mkdirSync(join(repo, 'src'));
    writeFileSync(join(repo, 'src', 'app.ts'), readFileSync(join(project, 'src', 'app.ts')));
    const text = await runSvc(['scan', join(repo, 'src', 'app.ts')], env);
    const id = /\(scan (scan_[0-9a-f]+)\)/.exec(text.stdout)![1]!;
    expect(text.stdout).toContain(`next: svc plan --scan ${id} proposes`);
    expect(text.stdout).toContain(`false_positive --project ${realpathSync(repo)} leaves`);
    const inside = await runSvc(['scan', join('src', 'app.ts')], env, 30_000, repo);
    expect(inside.stdout).toContain('mark FINGERPRINT false_positive leaves one out');
  });

  it('nothing found: exit 0; a path that is not there: exit 1 with what to do', async () => {
    const none = await runSvc(['scan', join(project, 'notes.md')], env);
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('0 finding(s) in 1 file(s)');
    const missing = await runSvc(['scan', join(project, 'nope')], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('nothing to scan at');
  });

  it('a file it did not scan is named, in the text and in --json, and is not counted as clean', async () => {
    const folder = join(tmp.dir, 'mixed');
    mkdirSync(folder);
    writeFileSync(join(folder, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    writeFileSync(join(folder, 'notes.md'), 'nothing here\n');
    // Just over the documented cap (100 MiB), and sparse: it takes no room on the disk.
    writeFileSync(join(folder, 'huge.log'), '');
    truncateSync(join(folder, 'huge.log'), 100 * 1024 * 1024 + 1);
    const json = await runSvc(['scan', folder, '--json'], env);
    expect(json.code, json.stderr).toBe(0);
    expect(json.json()).toMatchObject({ files_scanned: 1 });
    expect((json.json() as Scan).skipped).toEqual(
      expect.arrayContaining([
        { file: 'logo.png', reason: 'binary' },
        { file: 'huge.log', reason: 'too_large' },
      ]),
    );
    const text = await runSvc(['scan', folder], env);
    expect(text.stdout).toContain('huge.log: not scanned (over 100 MiB)');
    expect(text.stdout).toMatch(
      /^0 finding\(s\) in 1 file\(s\), \d+ bytes; 2 not scanned \(1 (binary|too large), 1 (binary|too large)\) \(scan /m,
    );
  });

  it('reads only what the read gate lets an agent read: a protected file is named, and no fingerprint of its values comes out', async () => {
    // It may run in an agent's shell: a fingerprint of a protected value would let the agent test
    // guesses at it (scan a file of guesses, compare).
    const guarded = join(tmp.dir, 'guarded');
    mkdirSync(join(guarded, '.svc'), { recursive: true });
    writeFileSync(join(guarded, '.svc', 'rules.json'), JSON.stringify([{ effect: 'deny', paths: ['.env'] }]));
    const secret = `ghp_${random(36)}`;
    writeFileSync(join(guarded, '.env'), `GITHUB_TOKEN=${secret}\n`);
    writeFileSync(join(guarded, 'guess.txt'), `${secret}\n`);
    const json = await runSvc(['scan', guarded, '--json'], env);
    expect(json.code, json.stderr).toBe(6);
    const scan = json.json() as Scan;
    expect(scan.findings.map((f) => f.file)).toEqual(['guess.txt']);
    expect(scan.skipped).toEqual([{ file: '.env', reason: 'protected' }]);
    const text = await runSvc(['scan', guarded], env);
    expect(text.stdout).toContain(
      '.env: not scanned (a rule keeps it from agents, or asks first and got no yes)',
    );
    // The command that names the rule works where the scan ran: the file by the path given and its name.
    const why = `why: svc rules explain ${join(guarded, '.env')} --for search names the rule`;
    expect(text.stdout).toContain(why);
    const explained = await runSvc(['rules', 'explain', join(guarded, '.env'), '--for', 'search'], env);
    expect(explained.stdout).toMatch(/^denied: /);
    // A file scanned alone is named as it was given, here relative to where svc ran.
    const alone = await runSvc(['scan', '.env'], env, 30_000, guarded);
    expect(alone.stdout).toContain('why: svc rules explain .env --for search names the rule');
  });

  it('a file a rule asks about is read after the yes of the person at the terminal, once for them all; without a terminal it is not', async () => {
    const asking = join(tmp.dir, 'asking');
    mkdirSync(join(asking, '.svc'), { recursive: true });
    mkdirSync(join(asking, 'notes'));
    writeFileSync(
      join(asking, '.svc', 'rules.json'),
      JSON.stringify([{ effect: 'ask', paths: ['notes/'], reason: 'the team notes' }]),
    );
    writeFileSync(join(asking, 'notes', 'a.md'), `token ${`ghp_${random(36)}`}\n`);
    writeFileSync(join(asking, 'notes', 'b.md'), 'nothing\n');
    writeFileSync(join(asking, 'app.ts'), 'export {};\n');
    const piped = await runSvc(['scan', asking, '--json'], env);
    expect(piped.code, piped.stderr).toBe(0);
    expect((piped.json() as Scan).skipped).toEqual(
      expect.arrayContaining([
        { file: 'notes/a.md', reason: 'protected' },
        { file: 'notes/b.md', reason: 'protected' },
      ]),
    );
    const question = 'read them too? [y/N] ';
    const yes = await onTerminal(['scan', asking], env, [[question, 'y\r']]);
    expect(yes.shown).toContain(
      `svc: A rule ${join(asking, '.svc', 'rules.json')}#1 (the team notes) asks you before these 2 files are read: notes/a.md, notes/b.md. Let svc scan read them too? [y/N]`,
    );
    expect(yes.code, yes.shown).toBe(6);
    expect(yes.shown).toContain('notes/a.md:1:');
    expect(yes.shown).toMatch(/1 finding\(s\) in 4 file\(s\)/);
    const no = await onTerminal(['scan', asking], env, [[question, 'n\r']]);
    expect(no.code, no.shown).toBe(0);
    expect(no.shown).toContain('notes/a.md: not scanned');
    // Ctrl-D leaves the question unanswered: no yes, and the scan ends as with a no.
    const closed = await onTerminal(['scan', asking], env, [[question, '\x04']]);
    expect(closed.code, closed.shown).toBe(0);
    expect(closed.shown).toContain('notes/a.md: not scanned');
    // Ctrl-C stops the command there: no report.
    const stopped = await onTerminal(['scan', asking], env, [[question, '\x03']]);
    expect(stopped.code, stopped.shown).not.toBe(0);
    expect(stopped.shown).not.toContain('finding(s) in');
    // `svc redact` asks the same, once, after the rest was read.
    const out = join(tmp.dir, 'asking-copy');
    const copied = await onTerminal(['redact', asking, '--out', out], env, [[question, 'y\r']]);
    expect(copied.code, copied.shown).toBe(0);
    expect(copied.shown).toContain('Let svc redact read them too? [y/N]');
    expect(readFileSync(join(out, 'notes', 'a.md'), 'utf8')).toBe('token [GITHUB_TOKEN_1]\n');
  });

  it('a scan is a search too: a rule that denies searching a file keeps it out', async () => {
    const searched = join(tmp.dir, 'searched');
    mkdirSync(join(searched, '.svc'), { recursive: true });
    writeFileSync(
      join(searched, '.svc', 'rules.json'),
      JSON.stringify([{ effect: 'deny', actions: ['search'], paths: ['notes.md'] }]),
    );
    writeFileSync(join(searched, 'notes.md'), `token ghp_${random(36)}\n`);
    const run = await runSvc(['scan', searched, '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    expect((run.json() as Scan).skipped).toEqual([{ file: 'notes.md', reason: 'protected' }]);
  });

  it('on a terminal, a progress bar on stderr that ends full, then the findings', async () => {
    const shown = await onTerminal(['scan', project], env);
    expect(shown.code, shown.shown).toBe(6);
    // Each draw clears what a longer one before it left on the line (the erase-line escape).
    expect(shown.shown).toMatch(
      // eslint-disable-next-line no-control-regex -- the escape is what is checked
      /svc scan \[#{24}\] 100% {2}(\d+) of \1 files, ([\d.]+) of \2 MiB\x1b\[K\r?\n/,
    );
    expect(shown.shown).toContain('src/app.ts:2:');
    expect(shown.shown).not.toContain(token);
  });

  it('a path it cannot read at all (a named pipe) fails with exit 1 and says so, never "0 findings"', async () => {
    const pipe = join(tmp.dir, 'pipe');
    execFileSync('mkfifo', [pipe]);
    const json = await runSvc(['scan', pipe, '--json'], env);
    expect(json.code).toBe(1);
    expect(json.stdout.trim().split('\n')).toHaveLength(1);
    expect(json.json()).toMatchObject({
      error: 'invalid_request',
      message: expect.stringContaining(`svc cannot read ${pipe}`),
      files_scanned: 0,
      skipped: [{ file: '.', reason: 'unreadable' }],
    });
    const text = await runSvc(['scan', pipe], env);
    expect(text.code).toBe(1);
    expect(text.stdout).toBe('');
    expect(text.stderr).toMatch(
      /^svc: nothing was scanned: svc cannot read .*pipe; give a folder or a regular file/,
    );
  });
});

describe('names on the terminal', () => {
  it('svc plan and svc rules test write out the escapes and hidden characters a file name holds', async () => {
    const odd = join(tmp.dir, 'odd-plan');
    mkdirSync(join(odd, '.git'), { recursive: true });
    const name = 'e\u001b[31mred\u202etxt.md';
    writeFileSync(join(odd, name), `const token = "ghp_${random(36)}";\n`);
    await runSvc(['scan', odd, '--json'], env);
    const plan = await runSvc(['plan', odd], env);
    expect(plan.stdout).toContain('e\\x1b[31mred\\u202etxt.md');
    expect(plan.stdout).not.toContain('\u001b');
    const test = await runSvc(['rules', 'test', join(odd, name)], { ...env, PWD: odd });
    expect(test.stdout + test.stderr).not.toContain('\u001b');
  });
});
