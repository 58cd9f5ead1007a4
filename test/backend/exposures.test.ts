// Exposures (docs/SHARE.md, Exposures): the owner offers a folder in process; a partner lists, over
// the HTTP API with no credential, only the files the read gate lets out, and gets clean copies of
// them, each counted and receipted with its token types; ending, expiry, use and wrong codes end
// it, and an ended exposure serves nothing.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ops } from '../../src/backend/operations/index.ts';
import { EXPOSURE_WRONG_CODES_MAX } from '../../src/backend/exposures.ts';
import { harness, tempDir, type Harness } from '../helpers.ts';

const pick = (alphabet: string, n: number) =>
  Array.from({ length: n }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');
// Built at test time: the repository holds no credential-looking literal.
const awsKey = `AKIA${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`;
const email = `${pick('abcdefghij', 6)}.${pick('klmnopqrst', 5)}@${pick('uvwxyzab', 6)}-mail.io`;

let h: Harness;
let folder: string;
let cleanupFolder: () => void;
beforeEach(() => {
  h = harness();
  const made = tempDir('svc-expose-');
  folder = made.dir;
  cleanupFolder = made.cleanup;
  mkdirSync(join(folder, '.svc'));
  mkdirSync(join(folder, 'docs'));
  writeFileSync(
    join(folder, '.svc', 'rules.json'),
    JSON.stringify([
      { effect: 'deny', paths: ['private/'] },
      { effect: 'redact', paths: ['docs/'] },
      { effect: 'ask', paths: ['*.csv'] },
    ]),
  );
  writeFileSync(join(folder, '.gitignore'), 'build/\n');
  writeFileSync(join(folder, 'config.env'), `AWS_ACCESS_KEY_ID=${awsKey}\nCONTACT=${email}\n`);
  writeFileSync(join(folder, 'docs', 'guide.md'), `Ask ${email} for access.\n`);
  mkdirSync(join(folder, 'private'));
  writeFileSync(join(folder, 'private', 'plan.txt'), 'the plan\n');
  writeFileSync(join(folder, 'people.csv'), 'name\nJane\n');
  mkdirSync(join(folder, 'build'));
  writeFileSync(join(folder, 'build', 'out.txt'), 'built\n');
});
afterEach(() => {
  h.close();
  cleanupFolder();
});

const start = (extra: Record<string, unknown> = {}) =>
  h.service.invoke(ops.startExposure, undefined, { folder, by: 'test', ...extra });
const files = (id: string) => h.request('GET', `/x/${id}/files`);
const copy = (id: string, body: Record<string, unknown>) => h.request('POST', `/x/${id}/copy`, { body });
const verified = (receiptId: string) =>
  h.request('POST', '/access/verify', { body: { proof_id: receiptId } });

describe('an exposure', () => {
  it('lists only what the gate lets a partner have, and serves receipted clean copies', async () => {
    const exposure = await start({ max_copies: 3 });
    expect(exposure).toMatchObject({
      state: 'active',
      path: `/x/${exposure.exposure_id}`,
      folder,
      max_copies: 3,
      copies_left: 3,
      has_code: false,
      created_by: 'test',
    });
    const listed = await files(exposure.exposure_id);
    expect(listed.status).toBe(200);
    // Denied, asked-about and ignored files are not named; the rules file is allowed like any file.
    expect(listed.body.files.map((f: { file: string }) => f.file)).toEqual([
      '.gitignore',
      'config.env',
      'docs/guide.md',
    ]);
    expect(JSON.stringify(listed.body)).not.toMatch(/private|plan\.txt|people\.csv|build/);
    expect(listed.body).toMatchObject({ needs_code: false, copies_left: 3, truncated: false });

    const got = await copy(exposure.exposure_id, { nonce: listed.body.nonce, file: 'config.env' });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body).toMatchObject({
      file: 'config.env',
      values_replaced: 2,
      tokens_by_type: { AWS_ACCESS_KEY: 1, EMAIL: 1 },
      copy_number: 1,
      copies_left: 2,
      used_up: false,
    });
    expect(got.body.text).toBe('AWS_ACCESS_KEY_ID=[AWS_ACCESS_KEY_1]\nCONTACT=[EMAIL_1]\n');
    const all = JSON.stringify(got.body);
    expect(all).not.toContain(awsKey);
    expect(all).not.toContain(email);
    // The receipt names the file and the token types, never a value, and verifies.
    expect(got.body.receipt.payload).toMatchObject({
      kind: 'exposure.copy',
      exposure_id: exposure.exposure_id,
      outcome: 'allow',
      reason: 'copied',
      file: 'config.env',
      copy_number: 1,
      tokens_by_type: { AWS_ACCESS_KEY: 1, EMAIL: 1 },
    });
    expect(JSON.stringify(got.body.receipt)).not.toMatch(new RegExp(`${awsKey}|${email}`));
    expect((await verified(got.body.receipt_id)).body).toMatchObject({ authentic: true, unaltered: true });

    // A clean-copy-only file is let out clean too, and the last copy ends the exposure.
    const second = await copy(exposure.exposure_id, { nonce: listed.body.nonce, file: 'docs/guide.md' });
    expect(second.body.text).toBe('Ask [EMAIL_1] for access.\n');
    const third = await copy(exposure.exposure_id, { nonce: listed.body.nonce, file: '.gitignore' });
    expect(third.body).toMatchObject({ copy_number: 3, copies_left: 0, used_up: true });
    const fourth = await copy(exposure.exposure_id, { nonce: listed.body.nonce, file: 'config.env' });
    expect(fourth.status).toBe(410);
    expect(fourth.body).toMatchObject({ error: 'gone', state: 'used_up', reason: 'exposure_used_up' });
    expect((await files(exposure.exposure_id)).status).toBe(410);
    const [status] = (await h.service.invoke(ops.listExposures, undefined, {})).exposures;
    expect(status).toMatchObject({ state: 'used_up', copies_used: 3, copies_left: 0 });
  });

  it('refuses a denied file exactly as a missing one, and re-checks the gate at copy time', async () => {
    const exposure = await start();
    const { nonce } = (await files(exposure.exposure_id)).body;
    const denied = await copy(exposure.exposure_id, { nonce, file: 'private/plan.txt' });
    const missing = await copy(exposure.exposure_id, { nonce, file: 'private/none.txt' });
    expect(denied.status).toBe(404);
    const strip = (b: Record<string, unknown>) => ({ ...b, message: undefined, receipt_id: undefined });
    expect(strip(denied.body)).toEqual(strip({ ...missing.body }));
    expect(denied.body.message.replace('plan', 'none')).toBe(missing.body.message);
    // A path out of the folder is a file not listed either.
    expect((await copy(exposure.exposure_id, { nonce, file: '../outside.txt' })).status).toBe(404);
    // A rule added after the listing holds for the next copy.
    writeFileSync(
      join(folder, '.svc', 'rules.json'),
      JSON.stringify([{ effect: 'deny', paths: ['config.env'], who: ['partner'] }]),
    );
    const after = await copy(exposure.exposure_id, { nonce, file: 'config.env' });
    expect(after.status).toBe(404);
    expect(after.body.reason).toBe('unknown_file');
    for (const r of [denied, missing, after]) {
      expect((await verified(r.body.receipt_id)).body).toMatchObject({ authentic: true });
    }
  });

  it('ends at its owner’s word, with a receipt, and then serves nothing', async () => {
    const exposure = await start();
    const { nonce } = (await files(exposure.exposure_id)).body;
    const ended = await h.service.invoke(ops.endExposure, undefined, {
      exposure_id: exposure.exposure_id,
      by: 'test',
    });
    expect(ended).toMatchObject({ state: 'ended', already_ended: false, ended_by: 'test' });
    expect(ended.receipt!.payload).toMatchObject({ kind: 'exposure.end' });
    const again = await h.service.invoke(ops.endExposure, undefined, { exposure_id: exposure.exposure_id });
    expect(again).toMatchObject({ already_ended: true, receipt: null });
    expect((await files(exposure.exposure_id)).status).toBe(410);
    const refused = await copy(exposure.exposure_id, { nonce, file: 'config.env' });
    expect(refused.status).toBe(410);
    expect(refused.body).toMatchObject({ state: 'ended', reason: 'exposure_ended' });
    expect(JSON.stringify(refused.body)).not.toContain('AWS_ACCESS_KEY_ID');
  });

  it('expires, and serves nothing after', async () => {
    const exposure = await start({ expires_hours: 1 });
    const { nonce } = (await files(exposure.exposure_id)).body;
    h.clock.advance(3_600_000 + 1);
    expect((await files(exposure.exposure_id)).status).toBe(410);
    const refused = await copy(exposure.exposure_id, { nonce, file: 'config.env' });
    expect(refused.body).toMatchObject({ error: 'gone', state: 'expired' });
  });

  it('needs its code, and ends after too many wrong ones', async () => {
    const exposure = await start({ code: 'K7P2-9QXM' });
    const listed = (await files(exposure.exposure_id)).body;
    expect(listed.needs_code).toBe(true);
    expect(
      (await copy(exposure.exposure_id, { nonce: listed.nonce, file: 'config.env' })).body,
    ).toMatchObject({
      error: 'code_required',
    });
    const right = await copy(exposure.exposure_id, {
      nonce: listed.nonce,
      file: 'config.env',
      code: 'K7P2-9QXM',
    });
    expect(right.status).toBe(200);
    for (let i = 1; i <= EXPOSURE_WRONG_CODES_MAX; i++) {
      const wrong = await copy(exposure.exposure_id, {
        nonce: listed.nonce,
        file: 'config.env',
        code: 'nope',
      });
      expect(wrong.body.error).toBe('wrong_code');
    }
    const locked = await copy(exposure.exposure_id, {
      nonce: listed.nonce,
      file: 'config.env',
      code: 'K7P2-9QXM',
    });
    expect(locked.body).toMatchObject({ error: 'gone', state: 'locked' });
  });

  it('refuses a folder that is not there or not a folder, and a relative path, writing nothing', async () => {
    const before = await h.service.ctx.chains.length('service');
    await expect(start({ folder: join(folder, 'none') })).rejects.toMatchObject({ code: 'not_found' });
    await expect(start({ folder: join(folder, 'config.env') })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(start({ folder: 'docs' })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(start({ max_copies: 101 })).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await h.service.ctx.chains.length('service')).toBe(before);
    expect((await h.service.invoke(ops.listExposures, undefined, {})).count).toBe(0);
  });

  it('answers an unknown id with 404 and a malformed one with 400', async () => {
    expect((await files('A'.repeat(22))).status).toBe(404);
    expect((await files('short')).status).toBe(400);
    expect((await copy('A'.repeat(22), { nonce: 'x', file: 'a' })).status).toBe(404);
  });
});
