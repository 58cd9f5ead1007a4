// svc_run through a real MCP client on an in-process server: a command runs with a vault secret
// only after the person confirms through the client's form; its output comes back with the secret
// masked in every form it printed; a declined run and a client without forms run nothing; a rule
// that denies use_key of the secret refuses the run before anything starts.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setSecret } from '../../src/backend/secrets.ts';
import { runWithSecrets } from '../../src/backend/run.ts';
import { svcCommand } from '../../src/config/command.ts';
import { computer, type Elicit } from './computer.ts';

const here = computer('svc-run-tool-', [
  { effect: 'deny', paths: ['/svc/secrets/PROD_*'], actions: ['use_key'] },
]);
const project = here.project;
const value = `tok-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;

beforeAll(async () => {
  await setSecret(here.service.ctx, 'API_TOKEN', value, { by: 'test' });
  await setSecret(here.service.ctx, 'PROD_TOKEN', `${value}-prod`, { by: 'test' });
});
afterAll(() => here.close());

async function client(elicit: Elicit) {
  const call = await here.client(
    (service) => ({ runner: (options) => runWithSecrets(service.ctx, options) }),
    elicit,
  );
  return (args: Record<string, unknown>) => call('svc_run', { cwd: project, ...args });
}

/** A node command that prints the secret as it is, in base64 and in hex, and touches `marker`. */
const printing = (marker: string) => [
  process.execPath,
  '-e',
  `const v = process.env.API_TOKEN; require('node:fs').writeFileSync(${JSON.stringify(marker)}, '');
   console.log(v); console.log(Buffer.from(v).toString('base64')); console.error(Buffer.from(v).toString('hex'));`,
];

describe('svc_run', () => {
  it('runs after the person confirms, with the secret masked in every form it printed', async () => {
    const call = await client('accept');
    const marker = join(project, 'ran-1');
    const ran = await call({ command: printing(marker), secrets: ['API_TOKEN'] });
    expect(ran.error, ran.text).toBe(false);
    expect(existsSync(marker)).toBe(true);
    expect(ran.data).toMatchObject({ exit_code: 0, timed_out: false, secrets: ['API_TOKEN'] });
    expect(ran.data.masks_fired).toBeGreaterThanOrEqual(3);
    expect(ran.data.stdout).toContain('[credential]');
    const everything = JSON.stringify(ran);
    for (const form of [value, Buffer.from(value).toString('base64'), Buffer.from(value).toString('hex')]) {
      expect(everything).not.toContain(form);
    }
    expect(ran.data.receipt_id).toMatch(/^rcpt_/);
  });

  it('a declined run, a form closed without an answer and a client without forms run nothing', async () => {
    for (const elicit of ['decline', 'cancel', 'unsupported'] as const) {
      const marker = join(project, `not-${elicit}`);
      const ran = await (await client(elicit))({ command: printing(marker), secrets: ['API_TOKEN'] });
      expect(ran.error).toBe(true);
      expect(ran.text).toContain('nothing was run');
      expect(ran.text.includes('the person declined')).toBe(elicit === 'decline');
      if (elicit !== 'decline') {
        // What the person can run instead is the whole command line, secrets and all.
        expect(ran.text).toContain(svcCommand('run', '--secret', 'API_TOKEN', '--', ...printing(marker)));
      }
      expect(existsSync(marker)).toBe(false);
    }
  });

  it('a secret the vault does not hold: nothing runs, and the person is told the whole command that sets it', async () => {
    const marker = join(project, 'not-missing');
    const ran = await (await client('accept'))({ command: printing(marker), secrets: ['NOPE'] });
    expect(ran.error).toBe(true);
    expect(ran.text).toMatch(/^not_found: no secret NOPE in this vault/);
    expect(ran.text).toContain(`\`${svcCommand('secret', 'set', 'NOPE')}\``);
    expect(existsSync(marker)).toBe(false);
  });

  it('a rule denying use_key of the secret refuses the run before it starts', async () => {
    const marker = join(project, 'not-denied');
    const ran = await (await client('accept'))({ command: printing(marker), secrets: ['PROD_TOKEN'] });
    expect(ran.error).toBe(true);
    expect(existsSync(marker)).toBe(false);
    expect(ran.text).not.toContain(value);
  });
});
