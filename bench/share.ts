// Benchmarks of share links (docs/SHARE.md), against a real `svc serve`:
// - `share-page`: the link page's weight (HTML, script and style) and, in headless Chromium, the
//   time from navigation to a rendered 1 MB text with numbered lines; beside it, the same browser
//   loading the same text as a plain page from a bare node:http server, in the same run.
// - `link-opens`: opens per second through the HTTP API, each with its receipt, against compute
//   with a receipt on the same server in the same run, with the same client and concurrency.
//   Clients come from many loopback addresses (127.0.1.2, .3, ... 127.0.2.x) so the per-address
//   limit on opens (200 at once, then 20 a second), which is there for floods, is not what gets
//   measured: 400 addresses leave room for 80,000 opens at once and 8,000 a second after.
import { createServer } from 'node:http';
import { request, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { launchChromium } from '../test/e2e/browser.ts';
import { Service } from '../src/backend/service.ts';
import { ops } from '../src/backend/operations/index.ts';
import { sealForLink } from '../src/proofs/link-seal.ts';
import {
  atLeast,
  median,
  progress,
  REPO_ROOT,
  spawnServer,
  withTempDir,
  type Benchmark,
  type ChildServer,
} from './lib.ts';

const ROUNDS = 5;

/** About 1 MB of code-like text: 20,000 numbered lines. */
function megabyteOfText(): string {
  const lines: string[] = [];
  for (let i = 0; i < 20_000; i++) lines.push(`const value_${i} = compute(${i}, "row ${i % 97}"); // step`);
  return `${lines.join('\n')}\n`;
}

async function serveOn(dataDir: string): Promise<ChildServer> {
  return await spawnServer([join(REPO_ROOT, 'bin', 'svc.js'), 'serve', '--port', '0'], {
    env: { ...process.env, SVC_HOME: dataDir },
    urlPattern: /^svc is serving on (\S+)/,
  });
}

async function makeLinks(
  dataDir: string,
  content: Uint8Array,
  name: string,
  count: number,
  maxOpens: number,
) {
  const service = new Service({ dataDir });
  try {
    const { api_key: apiKey } = await service.invoke(ops.createOrg, undefined, { name: 'Bench Org' });
    const grant = await service.invoke(ops.createGrant, `Bearer ${apiKey}`, {
      agent: 'bench',
      columns: ['id'],
    });
    const links: { id: string; fragment: string }[] = [];
    for (let i = 0; i < count; i++) {
      const { fragment, ...sealed } = await sealForLink(content, name);
      const made = await service.invoke(ops.createLink, `Bearer ${apiKey}`, {
        ...sealed,
        size_bytes: content.byteLength,
        content_type: 'text/x-typescript; charset=utf-8',
        max_opens: maxOpens,
      });
      links.push({ id: made.link_id, fragment });
    }
    return { links, grantToken: grant.grant_token };
  } finally {
    service.close();
  }
}

export const sharePage: Benchmark = {
  name: 'share-page',
  description: 'link page weight, and navigation to a rendered 1 MB text in Chromium vs a plain page',
  async run() {
    const text = megabyteOfText();
    const bytes = new TextEncoder().encode(text);
    return await withTempDir('share-page', async (dir) => {
      const { links } = await makeLinks(dir, bytes, 'big.ts', ROUNDS + 1, 1);
      const server = await serveOn(dir);
      const plain = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(text);
      });
      await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
      const plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/`;
      const browser = await launchChromium();
      try {
        const weigh = async (path: string) =>
          (await (await fetch(server.url + path)).arrayBuffer()).byteLength;
        const html = await weigh(`/s/${links[0]!.id}`);
        const script = await weigh('/s/assets/link.js');
        const style = await weigh('/s/assets/link.css');
        const svcMs: number[] = [];
        const plainMs: number[] = [];
        // The first link warms the browser and the server; the rounds after it are measured.
        for (let round = 0; round <= ROUNDS; round++) {
          const link = links[round]!;
          const page = await browser.newPage();
          const start = performance.now();
          await page.goto(`${server.url}/s/${link.id}#${link.fragment}`);
          await page.waitForSelector('#open:enabled');
          await page.click('#open');
          await page.waitForSelector('pre.lines', { timeout: 60_000 });
          // Laid out and painted: the next animation frame comes after the text is on screen.
          await page.evaluate(
            'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))',
          );
          const svc = performance.now() - start;
          await page.close();
          const other = await browser.newPage();
          const plainStart = performance.now();
          await other.goto(plainUrl, { waitUntil: 'load' });
          const bare = performance.now() - plainStart;
          await other.close();
          if (round > 0) {
            svcMs.push(svc);
            plainMs.push(bare);
          }
        }
        const svc = median(svcMs);
        const bare = median(plainMs);
        progress(
          `page ${html} B, script ${script} B, style ${style} B; 1 MB text rendered in ${svc.toFixed(0)} ms (plain page ${bare.toFixed(0)} ms)`,
        );
        return {
          metrics: [
            {
              key: 'page_bytes',
              label: 'link page: HTML + script + style',
              value: html + script + style,
              unit: 'B',
            },
            { key: 'html_bytes', label: 'HTML', value: html, unit: 'B' },
            { key: 'script_bytes', label: 'script', value: script, unit: 'B' },
            { key: 'style_bytes', label: 'style', value: style, unit: 'B' },
            {
              key: 'render_ms',
              label: 'navigation to a shown 1 MB text (open, decrypt, 20,000 numbered lines), median',
              value: svc,
              unit: 'ms',
            },
            {
              key: 'plain_ms',
              label: 'the same text as a plain page from bare node:http, median',
              value: bare,
              unit: 'ms',
            },
            { key: 'ratio', label: 'svc link page / plain page', value: svc / bare, unit: 'x' },
          ],
          checks: [],
          notes: [
            `median of ${ROUNDS} rounds after one warm-up, each round a new link (one open) and a new page; the svc time includes pressing Open, the POST, decryption, building all 20,000 numbered lines and painting the first screen (blocks out of view are laid out as they scroll in)`,
          ],
        };
      } finally {
        await browser.close();
        await server.stop();
        await new Promise((resolve) => plain.close(resolve));
      }
    });
  },
};

const CONCURRENCY = 10;
const DURATION_MS = 3000;
const ADDRESSES = 400;

/** POSTs `body` to `url` from a rotating loopback source address; resolves with the status. */
function post(agent: Agent, url: URL, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

/** `CONCURRENCY` callers for `DURATION_MS`; every answer must be 200. */
async function rate(next: () => Promise<number>): Promise<number> {
  const end = performance.now() + DURATION_MS;
  let done = 0;
  let bad = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        if ((await next()) === 200) done++;
        else bad++;
      }
    }),
  );
  if (bad) throw new Error(`${bad} answers were not 200`);
  return done / ((performance.now() - start) / 1000);
}

export const linkOpens: Benchmark = {
  name: 'link-opens',
  description: 'link opens per second over HTTP, each receipted, vs compute with a receipt',
  async run() {
    const content = new TextEncoder().encode('a short secret to share: correct-horse-battery-staple\n');
    return await withTempDir('link-opens', async (dir) => {
      // Enough opens for two rounds of 3 s at up to about 16,000 a second: 1,000 links of 100 opens.
      const { links, grantToken } = await makeLinks(dir, content, 'note.txt', 1000, 100);
      const server = await serveOn(dir);
      const agents = Array.from(
        { length: ADDRESSES },
        (_, i) =>
          new Agent({ keepAlive: true, localAddress: `127.0.${1 + Math.floor(i / 250)}.${(i % 250) + 2}` }),
      );
      try {
        const nonces = await Promise.all(
          links.map(
            async (l) =>
              ((await (await fetch(`${server.url}/s/${l.id}/info`)).json()) as { open_nonce: string })
                .open_nonce,
          ),
        );
        let opened = 0;
        const open = () => {
          const i = opened++;
          const link = links[Math.floor(i / 100)]!;
          if (!link) throw new Error('the benchmark ran out of link opens: make more links in makeLinks');
          return post(
            agents[i % ADDRESSES]!,
            new URL(`${server.url}/s/${link.id}/open`),
            JSON.stringify({ nonce: nonces[Math.floor(i / 100)] }),
            {},
          );
        };
        let computed = 0;
        const computeBody = JSON.stringify({ columns: ['id'], purpose: 'benchmark' });
        const compute = () =>
          post(
            agents[computed++ % ADDRESSES]!,
            new URL(`${server.url}/api/access/compute?receipt=true`),
            computeBody,
            {
              authorization: `Bearer ${grantToken}`,
            },
          );
        const opensPerS: number[] = [];
        const computePerS: number[] = [];
        for (let round = 0; round < 2; round++) {
          computePerS.push(await rate(compute));
          opensPerS.push(await rate(open));
          progress(
            `round ${round + 1}: opens ${opensPerS.at(-1)!.toFixed(0)}/s, compute ${computePerS.at(-1)!.toFixed(0)}/s`,
          );
        }
        const opens = median(opensPerS);
        const computes = median(computePerS);
        return {
          metrics: [
            {
              key: 'opens_per_s',
              label: 'link opens per second (HTTP, receipt each, ciphertext released)',
              value: opens,
              unit: '/s',
            },
            {
              key: 'compute_per_s',
              label: 'compute with a receipt per second, same server and client',
              value: computes,
              unit: '/s',
            },
            { key: 'ratio', label: 'opens / compute', value: opens / computes, unit: 'x' },
          ],
          checks: [atLeast('ratio', 'opens keep up with compute with a receipt', opens / computes, 0.5)],
          notes: [
            `${CONCURRENCY} concurrent callers, ${DURATION_MS / 1000} s per measurement, two rounds alternating, from ${ADDRESSES} loopback addresses; the content is ${content.byteLength} bytes`,
          ],
        };
      } finally {
        for (const agent of agents) agent.destroy();
        await server.stop();
      }
    });
  },
};
