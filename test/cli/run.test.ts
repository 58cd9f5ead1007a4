// `svc secret` and `svc run` as real processes: a value set through stdin, never argv; a child that
// prints its secret whole, in every encoding and split across writes gets it all masked; exit codes
// pass through; a timeout ends the command with 124; a rule denying use_key refuses the run with a
// receipt; and no value reaches the output, the receipts or any file of the data dir.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliComputer } from './computer.ts';
import { runSvc, spawnNode, REPO_ROOT, SVC_BIN } from '../e2e/procs.ts';

const { svcHome, rulesFile, env } = cliComputer('svc-run-cli-');

const TOKEN = 'tok_7Qh2x9Lm4Pz8Rt6Wv3Ny';
// Holds characters JSON and URLs escape, and the first secret whole: a substring of another.
const OTHER = `p@ss "w/ord" ${TOKEN}!`;

/** `svc secret set NAME` with the value on stdin, as a person pipes it. */
async function setSecret(name: string, value: string) {
  const spawned = spawnNode([join(REPO_ROOT, SVC_BIN), 'secret', 'set', name, '--json'], env, {
    stdin: true,
  });
  spawned.child.stdin!.end(`${value}\n`);
  const exit = await spawned.exited;
  expect(exit.code, exit.stderr).toBe(0);
  return JSON.parse(exit.stdout) as { name: string; created: boolean; receipt_id: string };
}

/** Every file under the data dir, as text: the store, its log, the key files. */
function dataDirText(): string {
  return readdirSync(svcHome, { recursive: true, encoding: 'utf8' })
    .map((name) => {
      try {
        return readFileSync(join(svcHome, name)).toString('latin1');
      } catch {
        return '';
      }
    })
    .join('\n');
}

/** The forms a leak could take. */
const forms = (value: string) => [
  value,
  Buffer.from(value).toString('base64'),
  Buffer.from(value).toString('base64url'),
  Buffer.from(value).toString('hex'),
  encodeURIComponent(value),
  JSON.stringify(value).slice(1, -1),
];

// The child prints each secret in every form, then the first whole but in three writes.
const PRINTER = `
const fs = require('node:fs');
for (const name of ['TOKEN', 'OTHER']) {
  const v = process.env[name];
  const b = Buffer.from(v);
  for (const f of [v, b.toString('base64'), b.toString('base64url'), b.toString('hex'),
    b.toString('hex').toUpperCase(), encodeURIComponent(v), JSON.stringify(v)]) {
    fs.writeSync(1, name + '=' + f + '\\n');
  }
}
const t = process.env.TOKEN;
fs.writeSync(1, 'split=' + t.slice(0, 5));
fs.writeSync(1, t.slice(5, 12));
fs.writeSync(1, t.slice(12) + '\\n');
fs.writeSync(2, 'err=' + t + '\\n');
process.exitCode = 7;
`;

describe('svc secret and svc run', () => {
  beforeAll(async () => {
    expect((await setSecret('TOKEN', TOKEN)).created).toBe(true);
    expect((await setSecret('OTHER', OTHER)).created).toBe(true);
  });

  it('lists secrets by name, never a value', async () => {
    const listed = await runSvc(['secret', 'list', '--json'], env);
    expect(listed.code).toBe(0);
    expect((listed.json() as { secrets: { name: string }[] }).secrets.map((s) => s.name)).toEqual([
      'OTHER',
      'TOKEN',
    ]);
    expect(listed.stdout).not.toContain(TOKEN);
  });

  it('masks every form of every secret, split writes included, and passes the exit code', async () => {
    const ran = await runSvc(
      ['run', '--secret', 'TOKEN', '--secret', 'OTHER', '--json', '--', process.execPath, '-e', PRINTER],
      env,
    );
    expect(ran.code, ran.stderr).toBe(7);
    for (const value of [TOKEN, OTHER]) {
      for (const form of forms(value)) {
        expect(ran.stdout).not.toContain(form);
        expect(ran.stderr).not.toContain(form);
      }
    }
    expect(ran.stdout).toContain('TOKEN=[credential]\n');
    expect(ran.stdout).toContain('split=[credential]\n');
    expect(ran.stderr).toContain('err=[credential]\n');
    const record = JSON.parse(ran.stderr.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(record).toMatchObject({ command: process.execPath, secrets: ['TOKEN', 'OTHER'], exit_code: 7 });
    expect(record.masks_fired).toBeGreaterThanOrEqual(15);
    // The receipt names the command and the secrets, never a value.
    const verified = await runSvc(['verify', String(record.receipt_id), '--json'], env);
    expect(verified.stdout).toContain('"run"');
    for (const form of forms(TOKEN)) expect(verified.stdout).not.toContain(form);
  });

  it('runs without a shell, so arguments are passed as they are', async () => {
    const ran = await runSvc(
      ['run', '--', process.execPath, '-e', 'console.log(process.argv[1])', '$HOME;x'],
      env,
    );
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe('$HOME;x\n');
    // Without `--` the command's own options are read as svc's: the error says where they go.
    const bare = await runSvc(['run', 'sh', '-c', 'true'], env);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('give the command after --: svc run --secret NAME -- COMMAND ARGS');
  });

  it('ends a command that outlives its timeout, and all it started, with exit 124', async () => {
    const ran = await runSvc(['run', '--timeout', '0.3', '--', 'sh', '-c', 'sleep 30 & wait'], env);
    expect(ran.code).toBe(124);
    expect(ran.stderr).toContain('timed out');
  });

  it('answers 127 for a command that does not exist', async () => {
    const ran = await runSvc(['run', '--', 'svc-no-such-command'], env);
    expect(ran.code).toBe(127);
  });

  it('refuses the run, with a receipt, when a rule denies use_key on a secret', async () => {
    writeFileSync(
      rulesFile,
      JSON.stringify([
        { effect: 'deny', paths: ['/svc/secrets/OTHER'], actions: ['use_key'], reason: 'prod' },
      ]),
    );
    try {
      const ran = await runSvc(
        [
          'run',
          '--secret',
          'TOKEN',
          '--secret',
          'OTHER',
          '--json',
          '--',
          process.execPath,
          '-e',
          'console.log("ran")',
        ],
        env,
      );
      expect(ran.code).toBe(5);
      expect(ran.stdout).not.toContain('ran\n');
      const refusal = ran.json() as Record<string, unknown>;
      expect(refusal).toMatchObject({ error: 'forbidden', secret: 'OTHER', outcome: 'denied' });
      const verified = await runSvc(['verify', String(refusal.receipt_id), '--json'], env);
      expect(verified.stdout).toContain('run.deny');
      // The other secret is not covered: a run with it alone goes ahead.
      const alone = await runSvc(
        ['run', '--secret', 'TOKEN', '--', process.execPath, '-e', 'console.log("ran")'],
        env,
      );
      expect(alone.code).toBe(0);
      expect(alone.stdout).toBe('ran\n');
    } finally {
      writeFileSync(rulesFile, '[]');
    }
  });

  it('refuses an unknown secret before running anything', async () => {
    const ran = await runSvc(
      ['run', '--secret', 'NOPE', '--', process.execPath, '-e', 'console.log("ran")'],
      env,
    );
    expect(ran.code).toBe(1);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toContain('no secret NOPE');
  });

  it('never takes a value from the command line, and keeps none in the clear on disk', async () => {
    const extra = await runSvc(['secret', 'set', 'TOKEN', TOKEN], env);
    expect(extra.code).toBe(2);
    const text = dataDirText();
    for (const value of [TOKEN, OTHER]) for (const form of forms(value)) expect(text).not.toContain(form);
  });

  it('removes a secret, after which a run with it is refused', async () => {
    const removed = await runSvc(['secret', 'rm', 'OTHER', '--json'], env);
    expect(removed.code).toBe(0);
    const ran = await runSvc(['run', '--secret', 'OTHER', '--', 'true'], env);
    expect(ran.code).toBe(1);
  });
});
