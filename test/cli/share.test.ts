// svc send, deliver, burn and links as a person runs them: the link alone on stdout (details on
// stderr), text piped on stdin, bad options as usage errors (exit 2) that send nothing, and a
// missing key or an unknown link as failures (exit 1).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.ts';
import { REPO_ROOT, SVC_BIN, childEnv, runSvc } from '../e2e/procs.ts';

const home = tempDir('svc-share-cli-');
afterAll(() => home.cleanup());
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  const bare = childEnv({ SVC_HOME: home.dir });
  const org = await runSvc(['org', 'create', '--name', 'CLI Org', '--json'], bare);
  env = { ...bare, SVC_API_KEY: (org.json() as { api_key: string }).api_key };
});

/** `svc args` with `input` piped on standard input. */
function piped(args: string[], input: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, SVC_BIN), ...args], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

const LINK = /^http:\/\/127\.0\.0\.1:\d+\/s\/[A-Za-z0-9_-]{22}#[A-Za-z0-9_-]{43}\n$/;

describe('svc send and svc deliver', () => {
  it('prints the link alone on stdout, and what it allows on stderr', async () => {
    const file = join(home.dir, 'notes.txt');
    writeFileSync(file, 'notes\n');
    const sent = await runSvc(['send', file, '--max-opens', '2', '--expires', '2d', '--code'], env);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(LINK);
    expect(sent.stderr).toMatch(/opens up to 2 times, until/);
    expect(sent.stderr).toMatch(/access code [2-9A-Z]{4}-[2-9A-Z]{4} \(send it another way/);
    expect(sent.stderr).toMatch(/svc serve/);
  });

  it('sends text piped on stdin, and delivers once', async () => {
    const sent = await piped(['deliver', '-', '--json'], 'a message\n');
    expect(sent.code, sent.stderr).toBe(0);
    const link = JSON.parse(sent.stdout) as { url: string; burn_after_read: boolean; max_opens: number };
    expect(link).toMatchObject({ burn_after_read: true, max_opens: 1 });
    const shown = await runSvc(['links', link.url, '--json'], env);
    expect(shown.json()).toMatchObject({
      state: 'active',
      content_type: 'text/plain; charset=utf-8',
      size_bytes: 10,
    });
  });

  it.each([
    [['--expires', '90m'], /--expires takes hours or days from 1h to 30d/],
    [['--expires', '31d'], /--expires takes hours or days/],
    [['--max-opens', '0'], /--max-opens takes 1 to 100/],
  ])('refuses %j as a usage error, sending nothing', async (flags, message) => {
    const before = ((await runSvc(['links', '--json'], env)).json() as { count: number }).count;
    const file = join(home.dir, 'x.txt');
    writeFileSync(file, 'x');
    const refused = await runSvc(['send', file, ...flags], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(message);
    expect(((await runSvc(['links', '--json'], env)).json() as { count: number }).count).toBe(before);
  });

  it('refuses a file sealed in place, pointing to svc open, and sends nothing', async () => {
    // Outside the data dir (which protect leaves alone).
    const files = tempDir('svc-share-cli-sealed-');
    try {
      const file = join(files.dir, 'sealed.txt');
      writeFileSync(file, 'sealed\n');
      const sealed = await runSvc(['protect', file, '--json'], env);
      expect(sealed.json()).toMatchObject({ sealed: [{ path: file }] });
      const before = ((await runSvc(['links', '--json'], env)).json() as { count: number }).count;
      const refused = await runSvc(['send', file, '--json'], env);
      expect(refused.code).toBe(1);
      expect(refused.json()).toMatchObject({ error: 'invalid_request', sealed: true });
      expect(refused.stderr).toContain('svc open');
      expect(((await runSvc(['links', '--json'], env)).json() as { count: number }).count).toBe(before);
    } finally {
      files.cleanup();
    }
  });

  it('refuses a folder, and fails without a key or for an unknown link', async () => {
    expect((await runSvc(['send', home.dir], env)).code).toBe(2);
    const { SVC_API_KEY: _key, ...keyless } = env;
    const noKey = await runSvc(['send', join(home.dir, 'notes.txt')], keyless);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/SVC_API_KEY/);
    const unknown = await runSvc(['burn', 'AAAAAAAAAAAAAAAAAAAAAA'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no link AAAAAAAAAAAAAAAAAAAAAA in this organization/);
  });
});
