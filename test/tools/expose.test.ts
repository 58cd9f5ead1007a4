// svc_expose through a real MCP client: starting an exposure needs the read gate's leave to read
// the folder and the person's yes through the form; list and end need neither. The link it gives
// is the partner page of this computer's service.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ops } from '../../src/backend/operations/index.ts';
import { svcCommand } from '../../src/config/command.ts';
import { computer } from './computer.ts';

const here = computer('svc-expose-tool-', [{ effect: 'deny', paths: ['vault/'] }]);
const { project, service } = here;
mkdirSync(join(project, 'shared'), { recursive: true });
mkdirSync(join(project, 'vault'), { recursive: true });
writeFileSync(join(project, 'shared', 'readme.txt'), 'hello\n');
afterAll(() => here.close());

describe('svc_expose', () => {
  it('starts after the person says yes, lists, and ends with a receipt', async () => {
    const call = await here.client(() => ({}), 'accept');
    const started = await call('svc_expose', { action: 'start', folder: 'shared', cwd: project, code: true });
    expect(started.error, started.text).toBe(false);
    expect(here.asked.at(-1)).toMatch(/Offer clean copies of the files in .*shared/);
    const id = started.data.exposures[0].exposure_id as string;
    expect(started.data).toMatchObject({
      action: 'start',
      url: expect.stringMatching(new RegExp(`/x/${id}$`)),
      code: expect.stringMatching(/^[2-9A-Z]{4}-[2-9A-Z]{4}$/),
      receipt_id: expect.stringMatching(/^rcpt_/),
      exposures: [{ folder: join(project, 'shared'), state: 'active', has_code: true, copies_left: 10 }],
    });
    const listed = await call('svc_expose', { action: 'list' });
    expect(listed.data.exposures.map((e: { exposure_id: string }) => e.exposure_id)).toEqual([id]);
    const ended = await call('svc_expose', { action: 'end', exposure: started.data.url });
    expect(ended.data).toMatchObject({ action: 'end', exposures: [{ state: 'ended' }] });
    const files = await service.invoke(ops.listExposedFiles, undefined, { exposure_id: id }).catch((e) => e);
    expect(files).toMatchObject({ code: 'gone' });
  });

  it('starts nothing without the person’s yes, or on a folder the gate keeps from the agent', async () => {
    const before = (await service.invoke(ops.listExposures, undefined, {})).count;
    const noForm = await (
      await here.client(() => ({}))
    )('svc_expose', {
      action: 'start',
      folder: join(project, 'shared'),
    });
    expect(noForm.error).toBe(true);
    // The command the person can run instead, whole: a bare `svc` is not on their PATH.
    expect(noForm.text).toContain(`${svcCommand('expose', join(project, 'shared'))}\` in a terminal`);
    const declined = await (
      await here.client(() => ({}), 'decline')
    )('svc_expose', {
      action: 'start',
      folder: join(project, 'shared'),
    });
    expect(declined.text).toMatch(/the person declined/);
    const denied = await (
      await here.client(() => ({}), 'accept')
    )('svc_expose', {
      action: 'start',
      folder: 'vault',
      cwd: project,
    });
    expect(denied.error).toBe(true);
    expect(denied.text).toMatch(/^forbidden: /);
    expect((await service.invoke(ops.listExposures, undefined, {})).count).toBe(before);
  });

  it('needs a folder to start and an exposure to end', async () => {
    const call = await here.client(() => ({}), 'accept');
    expect((await call('svc_expose', { action: 'start' })).text).toMatch(/start needs `folder`/);
    expect((await call('svc_expose', { action: 'end' })).text).toMatch(/end needs `exposure`/);
    expect((await call('svc_expose', { action: 'end', exposure: 'nope' })).text).toMatch(/invalid_request/);
  });
});
