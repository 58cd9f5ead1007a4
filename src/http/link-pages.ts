// The page of a share link (docs/SHARE.md): what is waiting and an Open button. The page and its
// script and style are served by svc itself, under a policy that allows nothing else: no other
// origin, no inline script, no framing. A GET or HEAD of the page counts nothing and releases
// nothing; its script opens the link with a POST carrying the page's nonce when the person asks.
import { readFileSync } from 'node:fs';
import type { Context, Hono } from 'hono';
import { ServiceError } from '../backend/errors.ts';
import type { Invoker } from '../backend/invoke.ts';
import { ops } from '../backend/operations/index.ts';
import { LinkIdParam } from '../backend/operations/links.ts';
import type { ResultOf } from '../backend/operation.ts';

const asset = (name: string) => readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');

/** The paths a public host (SVC_PUBLIC_URL) may reach: the link pages and their endpoints only. */
export const PUBLIC_PATHS = /^\/(s|x)\//;

/**
 * The page's policy: its own script, style and requests, images only from the blobs it decrypts.
 * `same-origin` rather than `no-referrer`: the page links nowhere, and with `no-referrer` browsers
 * send `Origin: null` on the page's own POST, which the Host/Origin guard refuses.
 */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex, nofollow',
};

const ASSET_HEADERS = {
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-cache',
};

export const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** JSON inside a `<script type="application/json">` block: `<` escaped so no text can end the block. */
export const jsonBlock = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export const timeText = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** A whole page around `body`, with the link page's own style and, when given, its script. */
export function sharePage(title: string, body: string, script?: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow"><title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/s/assets/link.css">${script ? `<script src="/s/assets/${script}" defer></script>` : ''}
</head><body><main>${body}</main></body></html>`;
}

type View = ResultOf<typeof ops.viewLink>;

function waitingPage(view: View): string {
  const rows: [string, string][] = [
    ['What', `${escapeHtml(view.content_type.split(';')[0]!)}, ${sizeText(view.size_bytes)}`],
    ['Expires', timeText(view.expires_at)],
    [
      'Opens',
      view.burn_after_read
        ? 'once: it is destroyed when opened'
        : `${view.opens_left} more time${view.opens_left === 1 ? '' : 's'}`,
    ],
  ];
  if (view.sender_name) rows.unshift(['From', escapeHtml(view.sender_name)]);
  if (view.view_only) rows.push(['Download', 'no: the sender allowed viewing only']);
  const about = rows.map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`).join('');
  const code = view.needs_code
    ? '<label for="code">Access code (the sender gives it to you separately)</label><input id="code" name="code" autocomplete="off" required>'
    : '';
  // The page's data travels in a JSON block, which the policy lets the script read but never runs.
  const data = {
    link_id: view.link_id,
    open_nonce: view.open_nonce,
    key_check: view.key_check,
  };
  return sharePage(
    'Something was shared with you',
    `<h1 id="title">Something was shared with you</h1>
<dl class="about" id="about">${about}</dl>
<p class="note">It opens in this browser: the key is in the link after #, which is never sent to the service.</p>
<form id="open-form">${code}<button id="open" type="submit" disabled>Open</button></form>
<p class="status" id="status" role="status" aria-live="polite"></p>
<section id="content" aria-labelledby="content-title" hidden></section>
<script type="application/json" id="link-data">${jsonBlock(data)}</script>`,
    'link.js',
  );
}

function messagePage(title: string, message: string): string {
  return sharePage(
    title,
    `<h1 id="title">${escapeHtml(title)}</h1><p id="status">${escapeHtml(message)}</p>`,
  );
}

export function mountLinkPages(app: Hono, invoker: Invoker): void {
  const script = asset('link.js');
  const style = asset('link.css');
  app.get('/s/assets/link.js', (c) =>
    c.body(script, 200, { ...ASSET_HEADERS, 'content-type': 'text/javascript; charset=utf-8' }),
  );
  app.get('/s/assets/link.css', (c) =>
    c.body(style, 200, { ...ASSET_HEADERS, 'content-type': 'text/css; charset=utf-8' }),
  );
  app.get('/s/:link_id', async (c: Context) => {
    const parsed = LinkIdParam.safeParse({ link_id: c.req.param('link_id') });
    if (!parsed.success) {
      return c.body(
        messagePage('Not a link', 'This address is not a whole link: check that it was copied in full.'),
        404,
        PAGE_HEADERS,
      );
    }
    let view: View;
    try {
      view = await invoker.invoke(ops.viewLink, undefined, parsed.data);
    } catch (error) {
      if (!(error instanceof ServiceError) || error.code !== 'not_found') throw error;
      return c.body(
        messagePage('No such link', 'Nothing is shared at this address: ask its sender for a new link.'),
        404,
        PAGE_HEADERS,
      );
    }
    if (view.state !== 'active') {
      return c.body(
        messagePage('Nothing to open', view.message ?? 'This link has ended.'),
        410,
        PAGE_HEADERS,
      );
    }
    return c.body(waitingPage(view), 200, PAGE_HEADERS);
  });
}
