// Share links over the HTTP API (docs/SHARE.md): made with content sealed on the sender's side,
// viewed without counting, opened with the page's nonce (and code), ended by use, by the sender, by
// the organization and by time; every attempt leaves a receipt that verifies.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ops } from '../../src/backend/operations/index.ts';
import { openFromLink, sealForLink } from '../../src/proofs/link-seal.ts';
import { LINK_WRONG_CODES_MAX } from '../../src/backend/links.ts';
import { createOrg, harness, type Harness } from '../helpers.ts';

let h: Harness;
let key: string;
beforeEach(async () => {
  h = harness();
  key = (await createOrg(h.service)).api_key;
});
afterEach(() => h.close());

const TEXT = 'the deploy password is correct-horse-battery-staple\n';

async function send(extra: Record<string, unknown> = {}, content = TEXT, name?: string) {
  const bytes = new TextEncoder().encode(content);
  const sealed = await sealForLink(bytes, name);
  const { fragment, ...parts } = sealed;
  const made = await h.request('POST', '/api/v1/links', {
    token: key,
    body: { ...parts, size_bytes: bytes.length, content_type: 'text/plain; charset=utf-8', ...extra },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return { ...(made.body as { link_id: string; path: string; receipt: { receipt_id: string } }), fragment };
}

const info = async (id: string) => (await h.request('GET', `/s/${id}/info`)).body;
const open = async (id: string, body: Record<string, unknown>) =>
  await h.request('POST', `/s/${id}/open`, { body });
const verified = async (receiptId: string) =>
  await h.service.invoke(ops.verifyProof, undefined, { proof_id: receiptId });

describe('a link', () => {
  it('opens with the page nonce, releases ciphertext the fragment opens, and counts each open', async () => {
    const link = await send({ max_opens: 2 }, TEXT, 'notes.txt');
    const view = await info(link.link_id);
    expect(view).toMatchObject({
      state: 'active',
      opens_left: 2,
      needs_code: false,
      size_bytes: TEXT.length,
    });
    // Viewing counts nothing, however often.
    for (let i = 0; i < 5; i++) await info(link.link_id);
    const first = await open(link.link_id, { nonce: view.open_nonce });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ open_number: 1, opens_left: 1, destroyed: false });
    const opened = await openFromLink(link.fragment, first.body);
    expect(new TextDecoder().decode(opened.content)).toBe(TEXT);
    expect(opened.name).toBe('notes.txt');
    const second = await open(link.link_id, { nonce: view.open_nonce });
    expect(second.body).toMatchObject({ open_number: 2, opens_left: 0, destroyed: true });
    const third = await open(link.link_id, { nonce: view.open_nonce });
    expect(third.status).toBe(410);
    expect(third.body).toMatchObject({ error: 'gone', state: 'used_up' });
    expect(third.body.message).toMatch(/opened as many times as its sender allowed/);
    const status = await h.request('GET', `/api/v1/links/${link.link_id}`, { token: key });
    expect(status.body).toMatchObject({ state: 'used_up', opens_used: 2, opens_left: 0 });
    expect(status.body.attempts.map((a: any) => [a.outcome, a.reason])).toEqual([
      ['allow', 'opened'],
      ['allow', 'opened'],
      ['deny', 'link_used_up'],
    ]);
    for (const attempt of status.body.attempts) {
      expect(await verified(attempt.receipt_id)).toMatchObject({ authentic: true, unaltered: true });
    }
    expect(await verified(link.receipt.receipt_id)).toMatchObject({ authentic: true });
  });

  it('refuses an open without the nonce of a page loaded lately, and receipts it', async () => {
    const link = await send();
    const view = await info(link.link_id);
    const forged = await open(link.link_id, {
      nonce: `${Math.floor(Date.now() / 1000) + 60}.${'A'.repeat(43)}`,
    });
    expect(forged.status).toBe(403);
    expect(forged.body).toMatchObject({ error: 'stale_page', receipt_id: expect.any(String) });
    h.clock.advance(2 * 60 * 60 * 1000);
    const stale = await open(link.link_id, { nonce: view.open_nonce });
    expect(stale.body.error).toBe('stale_page');
    const fresh = await open(link.link_id, { nonce: (await info(link.link_id)).open_nonce });
    expect(fresh.status).toBe(200);
  });

  it('checks the access code, and destroys the link at the last wrong one', async () => {
    const link = await send({ code: 'K7P2-9QXM' });
    const { open_nonce: nonce, needs_code } = await info(link.link_id);
    expect(needs_code).toBe(true);
    expect((await open(link.link_id, { nonce })).body.error).toBe('code_required');
    const wrong = await open(link.link_id, { nonce, code: 'guess' });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toMatchObject({ error: 'wrong_code', attempts_left: LINK_WRONG_CODES_MAX - 1 });
    const right = await open(link.link_id, { nonce, code: 'K7P2-9QXM' });
    expect(right.status).toBe(200);
    for (let i = 1; i < LINK_WRONG_CODES_MAX; i++) await open(link.link_id, { nonce, code: `guess-${i}` });
    const after = await open(link.link_id, { nonce, code: 'K7P2-9QXM' });
    expect(after.body).toMatchObject({ error: 'gone', state: 'locked' });
    const status = await h.request('GET', `/api/v1/links/${link.link_id}`, { token: key });
    expect(status.body).toMatchObject({ state: 'locked', wrong_codes: LINK_WRONG_CODES_MAX });
  });

  it('burns after reading: one open, then nothing', async () => {
    const link = await send({ burn_after_read: true });
    const { open_nonce: nonce, opens_left, burn_after_read } = await info(link.link_id);
    expect({ opens_left, burn_after_read }).toEqual({ opens_left: 1, burn_after_read: true });
    expect((await open(link.link_id, { nonce })).body.destroyed).toBe(true);
    expect((await open(link.link_id, { nonce })).status).toBe(410);
    expect((await h.app.request(`http://127.0.0.1/s/${link.link_id}`)).status).toBe(410);
  });

  it('ends when burned by its sender, revoked by its organization, or expired', async () => {
    const burned = await send();
    const burn = await h.request('POST', `/api/v1/links/${burned.link_id}/burn`, { token: key });
    expect(burn.body).toMatchObject({
      state: 'burned',
      already_ended: false,
      receipt: { receipt_id: expect.any(String) },
    });
    expect(
      (await h.request('POST', `/api/v1/links/${burned.link_id}/burn`, { token: key })).body,
    ).toMatchObject({
      already_ended: true,
      receipt: null,
    });
    expect((await info(burned.link_id)).message).toMatch(/destroyed by its sender/);

    const revoked = await send();
    const revoke = await h.request('POST', `/api/v1/links/${revoked.link_id}/revoke`, {
      token: key,
      body: { reason: 'shared outside the team' },
    });
    expect(revoke.body.state).toBe('revoked');
    const refused = await open(revoked.link_id, { nonce: 'x' });
    expect(refused.status).toBe(410);
    expect(refused.body.message).toMatch(/revoked by its sender's organization \(shared outside the team\)/);

    const expiring = await send({ expires_hours: 1 });
    const { open_nonce: nonce } = await info(expiring.link_id);
    h.clock.advance(61 * 60 * 1000);
    expect((await info(expiring.link_id)).state).toBe('expired');
    expect((await open(expiring.link_id, { nonce })).body).toMatchObject({ error: 'gone', state: 'expired' });
  });

  it('keeps no content once ended, and sweeps expired links when a new one is made', async () => {
    const old = await send({ expires_hours: 1 });
    h.clock.advance(2 * 60 * 60 * 1000);
    await send();
    const row = await h.service.ctx.store.get<{ ciphertext: unknown; end_reason: string }>(
      'SELECT ciphertext, end_reason FROM links WHERE link_id = ?',
      old.link_id,
    );
    expect(row).toEqual({ ciphertext: null, end_reason: 'expired' });
  });

  it('opens exactly once when 50 opens of a one-open link race, each with its receipt', async () => {
    const link = await send({ max_opens: 1 });
    const { open_nonce: nonce } = await info(link.link_id);
    const answers = await Promise.all(Array.from({ length: 50 }, () => open(link.link_id, { nonce })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 410)).toHaveLength(49);
    const status = await h.request('GET', `/api/v1/links/${link.link_id}`, { token: key });
    expect(status.body.attempts).toHaveLength(50);
    expect(new Set(status.body.attempts.map((a: any) => a.receipt_id)).size).toBe(50);
  });

  it('refuses a ciphertext that does not match its stated size, and another organization’s link', async () => {
    const sealed = await sealForLink(new TextEncoder().encode('abc'));
    const bad = await h.request('POST', '/api/v1/links', {
      token: key,
      body: {
        ciphertext_b64: sealed.ciphertext_b64,
        key_check: sealed.key_check,
        size_bytes: 4,
        content_type: 'text/plain',
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/12-byte IV/);
    const link = await send();
    const other = (await createOrg(h.service, 'Other')).api_key;
    expect((await h.request('POST', `/api/v1/links/${link.link_id}/burn`, { token: other })).status).toBe(
      404,
    );
    expect((await h.request('GET', '/api/v1/links', { token: other })).body.count).toBe(0);
  });
});
