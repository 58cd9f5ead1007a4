// `svc doctor` as a real process: where the data and the keys are and why, counts of what the vault
// holds, and never a key or a value in what it prints.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { tempDir } from '../helpers.ts';
import { childEnv, REPO_ROOT, runSvc, spawnNode, SVC_BIN } from '../e2e/procs.ts';

const tmp = tempDir('svc-doctor-');
afterAll(() => tmp.cleanup());
const env = childEnv({ SVC_HOME: join(tmp.dir, 'svc'), SVC_VAULT: 'file', HOME: tmp.dir });

it('says where the data dir, the store and the keys are and why, and counts what the vault holds', async () => {
  const setting = spawnNode([join(REPO_ROOT, SVC_BIN), 'secret', 'set', 'DEPLOY_TOKEN'], env, {
    stdin: true,
  });
  setting.child.stdin!.end('a-made-up-value-42\n');
  const set = await setting.exited;
  expect(set.code, set.stderr).toBe(0);
  const run = await runSvc(['doctor', '--json'], env);
  expect(run.code, run.stderr).toBe(0);
  expect(run.json()).toMatchObject({
    data_dir: { path: join(tmp.dir, 'svc'), chosen_by: 'SVC_HOME' },
    store: { file: join(tmp.dir, 'svc', 'svc.db'), migrations: expect.any(Number) },
    keys: {
      kind: 'file',
      location: join(tmp.dir, 'svc', 'keys'),
      why: expect.stringContaining('SVC_VAULT=file'),
    },
    signing_kid: expect.stringMatching(/^[0-9a-f]{16}$/),
    sealed_files: { sealed: 0, pending: 0, revoked: 0, opened: 0, missing: 0 },
    vault_secrets: 1,
  });
  const human = await runSvc(['doctor'], env);
  expect(human.stdout).toContain('keys: key files at');
  // No key file's content and no secret's value is ever printed.
  for (const file of readdirSync(join(tmp.dir, 'svc', 'keys'))) {
    const key = readFileSync(join(tmp.dir, 'svc', 'keys', file), 'utf8').trim();
    expect(run.stdout + human.stdout).not.toContain(key);
  }
  expect(run.stdout + human.stdout).not.toContain('a-made-up-value-42');
});
