// Share links in a real browser (headless Debian `chromium`, driven by playwright-core) against a real
// `svc serve`, with links made by the real `svc send` and `svc deliver`: text and an image render;
// a wrong code then the right one; expired, used-up and burned links refuse; view-only offers no
// download; burn-after-read opens once. Link unfurlers fetching the page open nothing, and after it
// all no file of the data dir holds a plaintext or a key, nor did any request the browser made.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './browser.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.ts';
import { childEnv, killAll, runSvc, startServe, type ServeProcess } from './procs.ts';

const home = tempDir('svc-share-');
const files = tempDir('svc-share-files-');
let env: NodeJS.ProcessEnv;
let serve: ServeProcess;
let browser: Browser;
/** Everything the browser sent: request lines, headers and bodies. */
const sent: string[] = [];
/** Every plaintext and every link key used, to look for afterwards. */
const plaintexts: string[] = [];
const keys: string[] = [];
/** What the pages reported: script errors and policy violations would show here. */
const pageErrors: string[] = [];

const CODE_TEXT = [
  'const region = "eu-west-1";',
  'function greet(name) {',
  '  return `hello ${name}`;',
  '}',
  '',
].join('\n');
// A 1x1 PNG: the smallest image a browser decodes.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

beforeAll(async () => {
  env = childEnv({ SVC_HOME: home.dir });
  const org = await runSvc(['org', 'create', '--name', 'Share Org', '--json'], env);
  env.SVC_API_KEY = (org.json() as { api_key: string }).api_key;
  serve = await startServe(env);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await killAll();
  home.cleanup();
  files.cleanup();
});

interface Sent {
  url: string;
  link_id: string;
  code: string | null;
}

/** `svc send` (or `deliver`) of a file holding `content`, as a person runs it. */
async function send(
  name: string,
  content: string | Buffer,
  args: string[] = [],
  command = 'send',
): Promise<Sent> {
  const path = join(files.dir, name);
  writeFileSync(path, content);
  if (typeof content === 'string') plaintexts.push(content.trim());
  const result = await runSvc([command, path, '--json', ...args], env);
  expect(result.code, result.stderr).toBe(0);
  const link = result.json() as Sent;
  expect(link.url.startsWith(`${serve.url}/s/${link.link_id}#`)).toBe(true);
  keys.push(link.url.split('#')[1]!);
  return link;
}

async function newPage(): Promise<Page> {
  const page = await browser.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  page.on('request', (request) => {
    sent.push(
      `${request.method()} ${request.url()}`,
      JSON.stringify(request.headers()),
      request.postData() ?? '',
    );
  });
  return page;
}

/** Opens the link in a new page and presses Open; answers the page once the content or an error shows. */
async function openInBrowser(url: string, code?: string): Promise<Page> {
  const page = await newPage();
  await page.goto(url);
  // Selectors, not page functions: the page's policy forbids evaluating text as script.
  await page.waitForSelector('#open:enabled');
  if (code !== undefined) await page.fill('#code', code);
  await page.click('#open');
  await page.waitForSelector('#content:not([hidden]), #status.error');
  return page;
}

const statusOf = (page: Page) => page.textContent('#status');
const linkState = async (link: Sent) => (await runSvc(['links', link.link_id, '--json'], env)).json() as any;

describe('the link page in Chromium', { timeout: 60_000 }, () => {
  it('renders a text file with numbered lines, and offers its download', async () => {
    const link = await send('greet.js', CODE_TEXT);
    const page = await openInBrowser(link.url);
    expect(await page.textContent('pre.lines')).toBe(CODE_TEXT.slice(0, -1));
    expect(await page.textContent('pre.gutter')).toBe('1\n2\n3\n4');
    expect(await page.textContent('#content-title')).toBe('greet.js');
    expect(await page.getAttribute('#download', 'download')).toBe('greet.js');
    expect(await statusOf(page)).toMatch(/4 more times/);
    await page.close();
  });

  it('renders an image', async () => {
    const link = await send('dot.png', PNG);
    const page = await openInBrowser(link.url);
    const size = await page.$eval('img.shared', (img: any) => [img.complete, img.naturalWidth]);
    expect(size).toEqual([true, 1]);
    await page.close();
  });

  it('refuses a wrong access code, then opens with the right one', async () => {
    const link = await send('note.txt', 'meet at the north door at nine', ['--code']);
    expect(link.code).toMatch(/^[2-9A-Z]{4}-[2-9A-Z]{4}$/);
    const page = await openInBrowser(link.url, 'WRONG-CODE');
    expect(await statusOf(page)).toMatch(/wrong access code: 4 more wrong codes/);
    await page.fill('#code', link.code!);
    await page.click('#open');
    await page.waitForSelector('#content:not([hidden])');
    expect(await page.textContent('pre.lines')).toContain('meet at the north door at nine');
    await page.close();
    const attempts = (await linkState(link)).attempts.map((a: any) => a.reason);
    expect(attempts).toEqual(['wrong_code', 'opened']);
  });

  it('says an expired link has expired', async () => {
    const link = await send('old.txt', 'an expired plan for the spring offsite');
    // The service's clock cannot be moved from here: the link's expiry is moved instead.
    const db = new DatabaseSync(join(home.dir, 'svc.db'));
    db.prepare('UPDATE links SET expires_at = ? WHERE link_id = ?').run(
      '2020-01-01T00:00:00.000Z',
      link.link_id,
    );
    db.close();
    const page = await newPage();
    const response = await page.goto(link.url);
    expect(response!.status()).toBe(410);
    expect(await page.textContent('#status')).toBe('This link has expired.');
    await page.close();
  });

  it('says a used-up link was used up, and a burned one was destroyed', async () => {
    const once = await send('once.txt', 'a one-open note about the quarterly numbers', ['--max-opens', '1']);
    const page = await openInBrowser(once.url);
    expect(await statusOf(page)).toMatch(/last open/);
    await page.reload();
    expect(await page.textContent('#status')).toMatch(/opened as many times as its sender allowed/);
    await page.close();

    const burned = await send('burned.txt', 'a note its sender regretted sending');
    const burn = await runSvc(['burn', burned.url], env);
    expect(burn.stdout).toMatch(/burned: its content is gone/);
    const gone = await newPage();
    expect((await gone.goto(burned.url))!.status()).toBe(410);
    expect(await gone.textContent('#status')).toMatch(/destroyed by its sender/);
    await gone.close();
  });

  it('offers no download of a view-only link', async () => {
    const link = await send('view.txt', 'look, do not keep: the vendor shortlist', ['--view-only']);
    const page = await openInBrowser(link.url);
    expect(await page.textContent('pre.lines')).toContain('the vendor shortlist');
    expect(await page.locator('#download').count()).toBe(0);
    await page.close();
  });

  it('opens a burn-after-read link once, and never again', async () => {
    const link = await send('burn.txt', 'the one-time recovery word is marmalade', [], 'deliver');
    const page = await openInBrowser(link.url);
    expect(await page.textContent('pre.lines')).toContain('marmalade');
    expect(await statusOf(page)).toMatch(/deleted its copy/);
    const again = await newPage();
    expect((await again.goto(link.url))!.status()).toBe(410);
    await page.close();
    await again.close();
    expect((await linkState(link)).state).toBe('used_up');
  });
});

describe('bot safety and what the service keeps', { timeout: 60_000 }, () => {
  const UNFURLERS = [
    'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
    'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    'Twitterbot/1.0',
    'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
    'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
    'WhatsApp/2.23.20.0',
    'TelegramBot (like TwitterBot)',
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Mozilla/5.0 (Macintosh) AppleWebKit/605.1.15 (KHTML, like Gecko) Applebot/0.1',
    'Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5',
  ];

  it('20 GET and HEAD fetches by link unfurlers, and a plain fetch, count no open and release no ciphertext', async () => {
    const link = await send('bots.txt', 'the staging database password is lantern-owl-42', [
      '--max-opens',
      '1',
    ]);
    const db = new DatabaseSync(join(home.dir, 'svc.db'), { readOnly: true });
    const stored = db.prepare('SELECT ciphertext FROM links WHERE link_id = ?').get(link.link_id) as {
      ciphertext: Uint8Array;
    };
    db.close();
    const ciphertext = Buffer.from(stored.ciphertext).toString('base64').slice(0, 40);
    const page = link.url.split('#')[0]!;
    const fetches = UNFURLERS.flatMap((agent) =>
      ['GET', 'HEAD'].map((method) => fetch(page, { method, headers: { 'user-agent': agent } })),
    );
    fetches.push(fetch(page), fetch(`${page}/info`));
    const answers = await Promise.all(fetches);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(await answer.text()).not.toContain(ciphertext);
    }
    const state = await linkState(link);
    expect(state).toMatchObject({ state: 'active', opens_used: 0, opens_left: 1, attempts: [] });
    // The person's own open still works after all that.
    const opened = await openInBrowser(link.url);
    expect(await opened.textContent('pre.lines')).toContain('lantern-owl-42');
    await opened.close();
  });

  it('signs every attempt with a receipt that POST /access/verify accepts', async () => {
    const all = (await runSvc(['links', '--json'], env)).json() as { links: { link_id: string }[] };
    let checked = 0;
    for (const { link_id } of all.links) {
      for (const attempt of (await linkState({ link_id } as Sent)).attempts) {
        const verdict = await fetch(`${serve.url}/access/verify`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ proof_id: attempt.receipt_id }),
        });
        expect(await verdict.json()).toMatchObject({ authentic: true, unaltered: true });
        checked++;
      }
    }
    // Each open attempt made above: 8 of them, every one verified.
    expect(checked).toBeGreaterThanOrEqual(8);
  });

  it('keeps no plaintext and no key in any file of the data dir, and the browser never sent a key', async () => {
    const everyFile = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? everyFile(path) : [path];
      });
    const stored = everyFile(home.dir).map((path) => ({ path, bytes: readFileSync(path) }));
    expect(stored.map((f) => f.path).some((p) => p.endsWith('svc.db'))).toBe(true);
    for (const { path, bytes } of stored) {
      for (const text of plaintexts) expect(bytes.includes(text), `${path} holds a plaintext`).toBe(false);
      for (const key of keys) {
        const raw = Buffer.from(key, 'base64url');
        expect(bytes.includes(key) || bytes.includes(raw), `${path} holds a link key`).toBe(false);
      }
    }
    expect(sent.length).toBeGreaterThan(20);
    // No script error and no policy violation on any page; the refusals the pages met (410 pages,
    // a wrong code's 403) are the only errors the console saw.
    expect(pageErrors.filter((e) => !/status of (403|410)/.test(e))).toEqual([]);
    const everything = sent.join('\n');
    for (const key of keys) expect(everything).not.toContain(key);
  });
});
