// Exposures in a real browser (headless Debian `chromium`, driven by playwright-core) against a real
// `svc serve`, with the folder offered by the real `svc expose`: the partner's page lists only the
// files the read gate lets out; a clean copy shown in the page, or answered to a plain fetch
// client, holds no planted value; every copy is receipted and verifies; a denied file is refused
// as a missing one; an ended exposure serves nothing.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './browser.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.ts';
import { childEnv, killAll, runSvc, startServe, type ServeProcess } from './procs.ts';

const home = tempDir('svc-expose-');
const project = tempDir('svc-expose-folder-');
let env: NodeJS.ProcessEnv;
let serve: ServeProcess;
let browser: Browser;
/** What the pages reported: script errors and policy violations would show here. */
const pageErrors: string[] = [];

const pick = (alphabet: string, n: number) =>
  Array.from({ length: n }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');
// Built at test time: the repository holds no credential-looking literal.
const awsKey = `AKIA${pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`;
const email = `${pick('abcdefghij', 6)}.${pick('klmnopqrst', 5)}@${pick('uvwxyzab', 6)}-mail.io`;
const phone = '+44 7911 123456';
const PLANTED = [awsKey, email, phone];
const DENIED_TEXT = 'the acquisition closes on the first of May';

interface Exposed {
  url: string;
  exposure_id: string;
  code: string | null;
}

let exposed: Exposed;

beforeAll(async () => {
  const folder = project.dir;
  mkdirSync(join(folder, '.svc'));
  writeFileSync(
    join(folder, '.svc', 'rules.json'),
    JSON.stringify([{ effect: 'deny', paths: ['private.txt'], reason: 'the deal' }]),
  );
  writeFileSync(join(folder, 'config.env'), `AWS_ACCESS_KEY_ID=${awsKey}\nREGION=eu-west-1\n`);
  writeFileSync(join(folder, 'contacts.txt'), `Support: ${email}\nOn call: ${phone}\n`);
  writeFileSync(join(folder, 'notes.md'), '# Notes\nNothing secret here.\n');
  writeFileSync(join(folder, 'private.txt'), `${DENIED_TEXT}\n`);
  env = childEnv({ SVC_HOME: home.dir });
  serve = await startServe(env);
  const result = await runSvc(['expose', folder, '--max-copies', '10', '--json'], env);
  expect(result.code, result.stderr).toBe(0);
  exposed = result.json() as Exposed;
  expect(exposed.url).toBe(`${serve.url}/x/${exposed.exposure_id}`);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await killAll();
  home.cleanup();
  project.cleanup();
});

async function newPage(): Promise<Page> {
  const page = await browser.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  return page;
}

/** Presses a file's button and answers once the page says copy number `n` was made. */
async function askFor(page: Page, file: string, n: number): Promise<void> {
  await page.click(`li:has(.file:text-is("${file}")) button.copy`);
  // A selector, not a page function: the page's policy forbids evaluating strings.
  await page.locator('#status', { hasText: `Clean copy ${n}:` }).waitFor();
}

const verify = async (receiptId: string) =>
  (await (
    await fetch(`${serve.url}/access/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ proof_id: receiptId }),
    })
  ).json()) as Record<string, unknown>;

describe('an exposure in Chromium and over JSON', { timeout: 60_000 }, () => {
  it('lists only what the gate lets out, and shows clean copies with no planted value', async () => {
    const page = await newPage();
    const response = await page.goto(exposed.url);
    expect(response!.status()).toBe(200);
    expect(await page.locator('ul.files .file').allTextContents()).toEqual([
      'config.env',
      'contacts.txt',
      'notes.md',
    ]);
    // The denied file is not even named, nor are the rules that deny it.
    const html = await page.content();
    expect(html).not.toMatch(/private|the deal|rules\.json/);

    await askFor(page, 'contacts.txt', 1);
    expect(await page.textContent('#content-title')).toBe('contacts.txt');
    expect(await page.locator('#copy-text li').allTextContents()).toEqual([
      'Support: [EMAIL_1]',
      expect.stringMatching(/^On call: \[PHONE\w*_1\]$/),
    ]);
    expect(await page.textContent('#status')).toMatch(/^Clean copy 1: 2 value\(s\) replaced/);

    await askFor(page, 'config.env', 2);
    expect(await page.locator('#copy-text li').allTextContents()).toEqual([
      'AWS_ACCESS_KEY_ID=[AWS_ACCESS_KEY_1]',
      'REGION=eu-west-1',
    ]);
    const shown = await page.content();
    for (const value of [...PLANTED, DENIED_TEXT]) expect(shown).not.toContain(value);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('answers a plain fetch client with the same files and clean copies', async () => {
    const listing = (await (await fetch(`${exposed.url}/files`)).json()) as {
      files: { file: string }[];
      nonce: string;
    };
    expect(listing.files.map((f) => f.file)).toEqual(['config.env', 'contacts.txt', 'notes.md']);
    const ask = async (file: string) => {
      const response = await fetch(`${exposed.url}/copy`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ nonce: listing.nonce, file }),
      });
      return { status: response.status, text: await response.text() };
    };
    const copy = await ask('contacts.txt');
    expect(copy.status).toBe(200);
    const body = JSON.parse(copy.text) as {
      text: string;
      tokens_by_type: Record<string, number>;
      receipt_id: string;
    };
    expect(body.text).toMatch(/^Support: \[EMAIL_1\]\n/);
    expect(Object.keys(body.tokens_by_type)).toEqual(expect.arrayContaining(['EMAIL']));
    for (const value of PLANTED) expect(copy.text).not.toContain(value);
    expect(await verify(body.receipt_id)).toMatchObject({ authentic: true, unaltered: true });

    // A denied file is refused exactly as one that is not there, and neither says more.
    const denied = JSON.parse((await ask('private.txt')).text) as Record<string, unknown>;
    const missing = JSON.parse((await ask('nothing.txt')).text) as Record<string, unknown>;
    expect([denied.error, denied.reason]).toEqual(['not_found', 'unknown_file']);
    expect([missing.error, missing.reason]).toEqual(['not_found', 'unknown_file']);
    expect(JSON.stringify(denied)).not.toContain(DENIED_TEXT);
  });

  it('receipts every copy and every refusal, and each receipt verifies and holds no value', async () => {
    const db = new DatabaseSync(join(home.dir, 'svc.db'), { readOnly: true });
    const rows = db
      .prepare(
        'SELECT outcome, reason, file, receipt_id FROM exposure_copies WHERE exposure_id = ? ORDER BY rowid',
      )
      .all(exposed.exposure_id) as { outcome: string; reason: string; file: string; receipt_id: string }[];
    db.close();
    expect(rows.map((r) => [r.outcome, r.reason, r.file])).toEqual([
      ['allow', 'copied', 'contacts.txt'],
      ['allow', 'copied', 'config.env'],
      ['allow', 'copied', 'contacts.txt'],
      ['deny', 'unknown_file', 'private.txt'],
      ['deny', 'unknown_file', 'nothing.txt'],
    ]);
    for (const row of rows) {
      expect(await verify(row.receipt_id)).toMatchObject({ authentic: true, unaltered: true });
      const proof = await (await fetch(`${serve.url}/access/proofs/${row.receipt_id}`)).text();
      for (const value of PLANTED) expect(proof).not.toContain(value);
    }
    const listed = await runSvc(['expose', 'list', '--json'], env);
    expect((listed.json() as { exposures: unknown[] }).exposures).toEqual([
      expect.objectContaining({ exposure_id: exposed.exposure_id, state: 'active', copies_used: 3 }),
    ]);
  });

  it('serves nothing once its owner ends it', async () => {
    const listing = (await (await fetch(`${exposed.url}/files`)).json()) as { nonce: string };
    const ended = await runSvc(['expose', 'end', exposed.url], env);
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stdout).toMatch(/ended after 3 copies \(receipt rcpt_/);
    const page = await newPage();
    const response = await page.goto(exposed.url);
    expect(response!.status()).toBe(410);
    expect(await page.textContent('#status')).toMatch(/was ended by its owner/);
    await page.close();
    expect((await fetch(`${exposed.url}/files`)).status).toBe(410);
    const copy = await fetch(`${exposed.url}/copy`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ nonce: listing.nonce, file: 'notes.md' }),
    });
    expect(copy.status).toBe(410);
    const text = await copy.text();
    expect(JSON.parse(text)).toMatchObject({ error: 'gone', reason: 'exposure_ended' });
    expect(text).not.toContain('Nothing secret here');
  });
});
