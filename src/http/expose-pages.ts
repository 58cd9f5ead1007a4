// The partner's page of an exposure (docs/SHARE.md, Exposures): the files the read gate lets a
// partner have, each with a button that asks for its clean copy and shows it. Served under the
// share pages' policy (nothing but svc's own script and style); a GET of the page lists, counts
// nothing and releases nothing: a copy is a POST the script makes with the listing's nonce.
import { readFileSync } from 'node:fs';
import type { Context, Hono } from 'hono';
import { ServiceError } from '../backend/errors.ts';
import type { Invoker } from '../backend/invoke.ts';
import { ops } from '../backend/operations/index.ts';
import { ExposureIdParam } from '../backend/operations/exposures.ts';
import type { ResultOf } from '../backend/operation.ts';
import { PAGE_HEADERS, escapeHtml, jsonBlock, sharePage, sizeText, timeText } from './link-pages.ts';

type Listing = ResultOf<typeof ops.listExposedFiles>;

function listingPage(listing: Listing): string {
  const rows = listing.files
    .map(
      (f, i) =>
        `<li><span class="file">${escapeHtml(f.file)}</span> <span class="size">${sizeText(f.bytes)}</span> <button type="button" class="copy" data-index="${i}">Clean copy</button></li>`,
    )
    .join('');
  const about = [
    ['Expires', timeText(listing.expires_at)],
    ['Copies left', String(listing.copies_left)],
  ]
    .map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`)
    .join('');
  const code = listing.needs_code
    ? '<label for="code">Access code (the owner gives it to you separately)</label><input id="code" name="code" autocomplete="off">'
    : '';
  const none =
    listing.files.length === 0 ? '<p class="note" id="empty">No file here is offered to you.</p>' : '';
  const more = listing.truncated
    ? '<p class="note">The folder holds more files than one page lists.</p>'
    : '';
  // The script reads the data from a JSON block, which the policy never runs.
  const data = {
    exposure_id: listing.exposure_id,
    nonce: listing.nonce,
    files: listing.files.map((f) => f.file),
  };
  return sharePage(
    'Files offered to you',
    `<h1 id="title">Files offered to you</h1>
<dl class="about" id="about">${about}</dl>
<p class="note">Each copy is made for you when you ask: every secret or personal value in it is replaced by a token such as [EMAIL_1].</p>
${code}<ul class="files" id="files">${rows}</ul>${none}${more}
<p class="status" id="status" role="status" aria-live="polite"></p>
<section id="content" aria-labelledby="content-title" hidden></section>
<script type="application/json" id="expose-data">${jsonBlock(data)}</script>`,
    'expose.js',
  );
}

function messagePage(title: string, message: string): string {
  return sharePage(
    title,
    `<h1 id="title">${escapeHtml(title)}</h1><p id="status">${escapeHtml(message)}</p>`,
  );
}

export function mountExposePages(app: Hono, invoker: Invoker): void {
  const script = readFileSync(new URL('./assets/expose.js', import.meta.url), 'utf8');
  // Beside the link page's assets, which the page's style comes from.
  app.get('/s/assets/expose.js', (c) =>
    c.body(script, 200, {
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-cache',
      'content-type': 'text/javascript; charset=utf-8',
    }),
  );
  app.get('/x/:exposure_id', async (c: Context) => {
    const parsed = ExposureIdParam.safeParse({ exposure_id: c.req.param('exposure_id') });
    if (!parsed.success) {
      return c.body(
        messagePage('Not a link', 'This address is not a whole link: check that it was copied in full.'),
        404,
        PAGE_HEADERS,
      );
    }
    try {
      const listing = await invoker.invoke(ops.listExposedFiles, undefined, parsed.data);
      return c.body(listingPage(listing), 200, PAGE_HEADERS);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      if (error.code === 'not_found') {
        return c.body(
          messagePage('No such link', 'Nothing is offered at this address: ask its owner for a new link.'),
          404,
          PAGE_HEADERS,
        );
      }
      if (error.code === 'gone') {
        return c.body(messagePage('Nothing more is offered', error.message), 410, PAGE_HEADERS);
      }
      return c.body(messagePage('Not available', error.message), error.status as 403, PAGE_HEADERS);
    }
  });
}
