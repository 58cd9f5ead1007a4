// Recovery end to end, as real processes: an organization's `svc serve` with its own data dir keeps
// the backup; a computer seals a file and keeps a secret, sets up its 12-word phrase (shown once)
// and loses its data dir and keys; `svc recover` with the phrase on stdin restores the vault, and
// the file sealed before opens again. A wrong or mistyped phrase fails clearly and writes nothing,
// and a data dir with keys of its own is never overwritten.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.ts';
import { SEALED_MAGIC } from '../../src/vault/sealed-file.ts';
import { REPO_ROOT, SVC_BIN, childEnv, killAll, runSvc, spawnNode, startServe } from '../e2e/procs.ts';

const tmp = tempDir('svc-recovery-cli-');
const machineDir = join(tmp.dir, 'machine');
const rulesFile = join(tmp.dir, 'rules.json');
writeFileSync(rulesFile, '[]');
const serverEnv = childEnv({ SVC_HOME: join(tmp.dir, 'org-server'), SVC_VAULT: 'file', HOME: tmp.dir });
let env: NodeJS.ProcessEnv;
const file = join(tmp.dir, 'work', 'contract.txt');
const content = 'the signed contract, page 1 of 1\n';

/** `svc <args>` with `input` on its standard input (a pipe, as a script would give it). */
async function svcWithInput(args: string[], input: string, environment = env) {
  const spawned = spawnNode([join(REPO_ROOT, SVC_BIN), ...args], environment, { stdin: true });
  spawned.child.stdin!.end(input);
  const exit = await spawned.exited;
  return { ...exit, json: () => JSON.parse(exit.stdout) as Record<string, unknown> };
}

beforeAll(async () => {
  const org = await runSvc(['org', 'create', '--name', 'Acme', '--json'], serverEnv);
  expect(org.code, org.stderr).toBe(0);
  const { api_key } = org.json() as { api_key: string };
  const server = await startServe(serverEnv);
  env = childEnv({
    SVC_HOME: machineDir,
    SVC_VAULT: 'file',
    HOME: tmp.dir,
    SVC_RULES_FILE: rulesFile,
    SVC_BASE_URL: server.url,
    SVC_API_KEY: api_key,
  });
  mkdirSync(join(tmp.dir, 'work'));
  writeFileSync(file, content);
}, 60_000);
afterAll(async () => {
  await killAll();
  tmp.cleanup();
});

describe('svc recovery and svc recover', () => {
  let phrase = '';

  it('setup shows the phrase once, only where the person says, and keeps a sealed backup on the service', async () => {
    expect((await runSvc(['protect', file, '--json'], env)).code).toBe(0);
    expect(readFileSync(file).subarray(0, 8).equals(SEALED_MAGIC)).toBe(true);
    const secret = await svcWithInput(['secret', 'set', 'DEPLOY_TOKEN'], 'tok-123456789\n');
    expect(secret.code, secret.stderr).toBe(0);

    const refused = await runSvc(['recovery', 'setup', '--json'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--phrase-to-stdout');

    const setup = await runSvc(['recovery', 'setup', '--phrase-to-stdout', '--json'], env);
    expect(setup.code, setup.stderr).toBe(0);
    const answer = setup.json() as {
      phrase: string;
      fingerprint: string;
      seals: number;
      secrets: number;
      keys: number;
    };
    phrase = answer.phrase;
    expect(phrase.split(' ')).toHaveLength(12);
    expect(answer).toMatchObject({ keys: 3, seals: 1, secrets: 1 });
    expect(setup.stderr).not.toContain(phrase.split(' ')[0]! + ' ' + phrase.split(' ')[1]);

    const again = await runSvc(['recovery', 'setup', '--phrase-to-stdout', '--json'], env);
    expect(again.code).toBe(1);
    expect(again.json()).toMatchObject({ error: 'conflict' });
    const backup = await runSvc(['recovery', 'backup', '--json'], env);
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.json()).toMatchObject({ seals: 1, secrets: 1 });
    const status = await runSvc(['recovery', 'status', '--json'], env);
    expect(status.json()).toMatchObject({ configured: true, fingerprint: answer.fingerprint, copy_count: 2 });
    // The service keeps no phrase, and no key of this computer in the clear.
    const db = ['svc.db', 'svc.db-wal']
      .map((name) => join(tmp.dir, 'org-server', name))
      .filter((path) => existsSync(path))
      .map((path) => readFileSync(path).toString('latin1'))
      .join('');
    expect(db).not.toContain(phrase);
    expect(db).not.toContain(readFileSync(join(machineDir, 'keys', 'data-columns.key'), 'utf8').trim());
  });

  it('a wrong or mistyped phrase fails with a clear error and writes nothing', async () => {
    rmSync(machineDir, { recursive: true, force: true });
    const wrong = await svcWithInput(['recover', '--json'], `${generateMnemonic(wordlist, 128)}\n`);
    expect(wrong.code).toBe(1);
    expect(wrong.json()).toMatchObject({ error: 'invalid_request', reason: 'wrong_phrase' });
    expect(wrong.stderr).toContain("not the organization's recovery phrase");
    const words = phrase.split(' ');
    const typo = await svcWithInput(
      ['recover'],
      [...words.slice(0, 3), 'zebraa', ...words.slice(4)].join(' '),
    );
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('word 4 of the phrase');
    const swapped = await svcWithInput(['recover'], [words[1], words[0], ...words.slice(2)].join(' '));
    expect(swapped.code).toBe(1);
    expect(existsSync(machineDir)).toBe(false);
    for (const run of [wrong, typo, swapped])
      expect(run.stdout + run.stderr).not.toContain(words.slice(0, 3).join(' '));
  });

  it('the right phrase on a wiped machine restores the vault: the file sealed before opens', async () => {
    const recovered = await svcWithInput(['recover', '--json'], `  ${phrase.toUpperCase()}  \n`);
    expect(recovered.code, recovered.stderr).toBe(0);
    expect(recovered.json()).toMatchObject({
      keys: 3,
      seals: 1,
      secrets: 1,
      receipt_id: expect.stringMatching(/^rcpt_/),
    });
    const opened = await runSvc(['open', file, '--out', '-'], env);
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout).toBe(content);
    const secrets = await runSvc(['secret', 'list', '--json'], env);
    expect(secrets.json()).toMatchObject({ secrets: [{ name: 'DEPLOY_TOKEN' }] });
    // Run again (a recovery interrupted and restarted): nothing changes, nothing fails.
    expect((await svcWithInput(['recover'], phrase)).code).toBe(0);
  });

  it('a data dir with keys of its own is never overwritten', async () => {
    const other = childEnv({ ...env, SVC_HOME: join(tmp.dir, 'other') });
    expect((await runSvc(['seal', 'list'], other)).code).toBe(0);
    const key = readFileSync(join(tmp.dir, 'other', 'keys', 'data-columns.key'), 'utf8');
    const run = await svcWithInput(['recover', '--json'], phrase, other);
    expect(run.code).toBe(1);
    expect(run.json()).toMatchObject({ error: 'conflict' });
    expect(readFileSync(join(tmp.dir, 'other', 'keys', 'data-columns.key'), 'utf8')).toBe(key);
  });
});
