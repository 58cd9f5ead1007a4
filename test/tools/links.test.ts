// The link tools through a real MCP client on an in-process server: svc_send without `to` makes a
// link whose url opens (the content decrypts with its fragment), svc_deliver opens once, svc_burn
// ends a link, svc_link_status lists links and each attempt; the read gate holds files back, and
// the model is told what to do next.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ops } from '../../src/backend/operations/index.ts';
import { protectPaths } from '../../src/backend/seal-files.ts';
import { openFromLink } from '../../src/proofs/link-seal.ts';
import { computer, type ToolAnswer } from './computer.ts';

const here = computer('svc-link-tool-', [{ effect: 'deny', paths: ['private/'], actions: ['read'] }]);
const { project, service } = here;
type Call = (name: string, args: Record<string, unknown>) => Promise<ToolAnswer>;
let asOwner: Call;

beforeAll(async () => {
  const org = await service.invoke(ops.createOrg, undefined, { name: 'Link Org' });
  asOwner = (await here.client(() => ({ ownerBearer: `Bearer ${org.api_key}` }))) as Call;
  mkdirSync(join(project, 'private'));
  writeFileSync(join(project, 'private', 'salaries.csv'), 'name,salary\nAda,1\n');
  writeFileSync(join(project, 'plan.md'), '# the plan\nship on friday\n');
});
afterAll(() => here.close());

/** What a person's browser does with a link: view it, open it with the page's nonce, decrypt. */
async function openAsPerson(url: string, code?: string) {
  const linkId = new URL(url).pathname.split('/')[2]!;
  const view = await service.invoke(ops.viewLink, undefined, { link_id: linkId });
  const released = await service.invoke(ops.openLink, undefined, {
    link_id: linkId,
    nonce: view.open_nonce!,
    ...(code ? { code } : {}),
  });
  const opened = await openFromLink(new URL(url).hash, released);
  return { ...opened, text: new TextDecoder().decode(opened.content), released };
}

describe('svc_send without `to`: a link', () => {
  it('makes a link for a file the gate lets out, and its url opens with the key it carries', async () => {
    const sent = await asOwner('svc_send', { path: 'plan.md', cwd: project, code: true, from: 'Ada' });
    expect(sent.error, sent.text).toBe(false);
    expect(sent.data).toMatchObject({
      kind: 'link',
      url: expect.stringMatching(/\/s\/[A-Za-z0-9_-]{22}#[A-Za-z0-9_-]{43}$/),
      code: expect.stringMatching(/^[2-9A-Z]{4}-[2-9A-Z]{4}$/),
      max_opens: 5,
    });
    expect(sent.data.next).toMatch(/exactly as it is.*access code/);
    const opened = await openAsPerson(sent.data.url, sent.data.code);
    expect(opened.text).toBe('# the plan\nship on friday\n');
    expect(opened.name).toBe('plan.md');
    expect(opened.released.content_type).toBe('text/markdown; charset=utf-8');
  });

  it('refuses a file the read gate holds back, and sends nothing', async () => {
    const refused = await asOwner('svc_send', { path: 'private/salaries.csv', cwd: project });
    expect(refused.error).toBe(true);
    expect(refused.text).toMatch(/read gate|not allowed|denied/i);
  });

  it('refuses a file sealed in place, pointing to svc_open, and sends nothing', async () => {
    writeFileSync(join(project, 'sealed.md'), '# sealed\n');
    await protectPaths(service.ctx, [join(project, 'sealed.md')], { by: 'user:test' });
    const before = (await asOwner('svc_link_status', {})).data.links.length as number;
    const refused = await asOwner('svc_send', { path: 'sealed.md', cwd: project });
    expect(refused.error).toBe(true);
    expect(refused.text).toMatch(/^invalid_request: .*sealed\.md is a file sealed by svc_protect/);
    expect(refused.text).toContain('svc_open');
    expect((await asOwner('svc_link_status', {})).data.links).toHaveLength(before);
  });

  it('says in its schema how many opens a link may have, as the link operation does', async () => {
    const refused = await asOwner('svc_send', { text: 'x', max_opens: 101 });
    expect(refused.error).toBe(true);
    expect(refused.text).toMatch(/max_opens/);
    expect(refused.text).toMatch(/100/);
  });

  it('takes purpose for envelopes only', async () => {
    const refused = await asOwner('svc_send', { text: 'x', purpose: 'why' });
    expect(refused.text).toMatch(/purpose applies to envelopes/);
  });
});

describe('svc_deliver, svc_link_status and svc_burn', () => {
  it('delivers once, shows every attempt, and burns', async () => {
    const sent = await asOwner('svc_deliver', { text: 'the door code is 4711' });
    expect(sent.data).toMatchObject({ kind: 'link', max_opens: 1, code: null });
    const opened = await openAsPerson(sent.data.url);
    expect(opened.text).toBe('the door code is 4711');
    expect(opened.released.destroyed).toBe(true);
    const linkId = sent.data.link_id as string;
    expect(await service.invoke(ops.viewLink, undefined, { link_id: linkId })).toMatchObject({
      state: 'used_up',
      open_nonce: null,
    });
    await expect(
      service.invoke(ops.openLink, undefined, { link_id: linkId, nonce: 'none' }),
    ).rejects.toMatchObject({
      code: 'gone',
    });

    const one = await asOwner('svc_link_status', { link: sent.data.url });
    expect(one.data.link).toMatchObject({ state: 'used_up', opens_used: 1, opens_left: 0 });
    expect(one.data.link.attempts.map((a: any) => a.reason)).toEqual(['opened', 'link_used_up']);

    const other = await asOwner('svc_send', { text: 'to be burned' });
    const burned = await asOwner('svc_burn', { link: other.data.link_id });
    expect(burned.data).toMatchObject({
      state: 'burned',
      already_ended: false,
      receipt_id: expect.any(String),
    });
    expect((await asOwner('svc_burn', { link: other.data.url })).data.already_ended).toBe(true);

    const all = await asOwner('svc_link_status', {});
    expect(all.data.links.map((l: any) => l.state)).toEqual(expect.arrayContaining(['used_up', 'burned']));
    expect((await asOwner('svc_burn', { link: 'not a link' })).text).toMatch(/not a link or a link id/);
  });
});
