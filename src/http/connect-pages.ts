// The approval page of svc_connect: shows the machine asking and its code, with Approve (needs an
// organization key) and Deny. Plain HTML served by svc, no scripts; the app's Host/Origin guard
// stops other sites from posting to it.
import type { Context, Hono } from 'hono';
import { ServiceError } from '../backend/errors.ts';
import type { Invoker } from '../backend/invoke.ts';
import { ops } from '../backend/operations/index.ts';
import type { Clock } from '../backend/context.ts';
import { Buckets, clientOf, type Rate } from './limits.ts';

/**
 * Wrong user codes one client address may try: 10, then one more a minute. A person mistyping
 * never gets there; a guesser is held to about 20 tries in a code's 10 minutes.
 */
export const WRONG_CODES_PER_CLIENT: Rate = { burst: 10, refillSeconds: 60 };
/** Wrong user codes this page takes from all clients together: 60, then one more every 10 s. */
export const WRONG_CODES_IN_ALL: Rate = { burst: 60, refillSeconds: 10 };

export interface ConnectPagesOptions {
  /** The clock the limits run on: the service's, so tests can move it. */
  clock?: Clock;
}

const escape = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · svc</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1b1f24}
h1{font-size:1.4rem}.code{font:600 1.8rem ui-monospace,monospace;letter-spacing:.15em}
.machine{background:#f3f4f6;border-radius:.5rem;padding:.75rem 1rem}
label{display:block;margin:1rem 0 .25rem}input{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
.actions{display:flex;gap:1rem;margin-top:1.25rem}button{padding:.6rem 1.4rem;font:inherit;border-radius:.4rem;border:1px solid #888;cursor:pointer}
button[value=approve]{background:#1f6feb;color:#fff;border-color:#1f6feb}.note{color:#57606a;font-size:.9rem}
</style></head><body>${body}</body></html>`;
}

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'cache-control': 'no-store',
  // same-origin, not no-referrer: with no-referrer browsers send `Origin: null` on the form post,
  // which the Origin guard refuses.
  'referrer-policy': 'same-origin',
};

export function mountConnectPages(
  app: Hono,
  invoker: Invoker,
  { clock = () => new Date() }: ConnectPagesOptions = {},
): void {
  const perClient = new Buckets(WRONG_CODES_PER_CLIENT, clock);
  const inAll = new Buckets(WRONG_CODES_IN_ALL, clock);
  /**
   * Every look-up of a code takes a token from its client's bucket and from the shared one, and a
   * code that matched gives them back: so only wrong codes count, yet requests sent all at once
   * cannot overrun the limit. When either bucket is empty the code is not looked up at all, right or
   * wrong, so a refusal tells a guesser nothing. The answer names the wait.
   */
  const lookUp = async (c: Context, run: () => Promise<Response>): Promise<Response> => {
    const client = clientOf(c);
    const wait = perClient.take(client);
    const waitAll = wait ? 0 : inAll.take('all');
    if (wait || waitAll) {
      if (!wait) perClient.giveBack(client);
      const seconds = Math.max(wait, waitAll);
      return c.body(
        page(
          'Too many attempts',
          `<h1 id="result">Too many attempts</h1><p>Too many wrong codes were tried${wait ? ' from this computer' : ''}. Try again in ${seconds} seconds, with the code your assistant shows.</p>`,
        ),
        429,
        { ...HEADERS, 'retry-after': String(seconds) },
      );
    }
    const response = await run();
    if (response.status !== 404) {
      perClient.giveBack(client);
      inAll.giveBack('all');
    }
    return response;
  };

  app.get('/connect', async (c) => {
    const code = c.req.query('code') ?? '';
    if (!code) {
      return c.body(
        page(
          'Connect a computer',
          `<h1>Connect a computer</h1><form method="get"><label for="code">The code your assistant shows</label>
<input id="code" name="code" autocomplete="off" required><div class="actions"><button>Continue</button></div></form>`,
        ),
        200,
        HEADERS,
      );
    }
    return lookUp(c, async () => {
      let request;
      try {
        request = await invoker.invoke(ops.describeConnect, undefined, { user_code: code });
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        return c.body(
          page('Unknown code', `<h1>Unknown code</h1><p>${escape(error.message)}</p>`),
          404,
          HEADERS,
        );
      }
      if (request.status !== 'pending') {
        const said = { approved: 'was approved', denied: 'was denied', expired: 'has expired' }[
          request.status
        ];
        return c.body(
          page(
            'Code used',
            `<h1>This code ${said}</h1><p>Ask your assistant to run svc_connect again for a new code.</p>`,
          ),
          410,
          HEADERS,
        );
      }
      return c.body(
        page(
          'Connect this computer?',
          `<h1>Connect this computer to your organization?</h1>
<div class="machine"><div>Computer: <strong id="machine">${escape(request.hostname)}</strong> (${escape(request.platform)})</div>
<div>Code: <span class="code" id="user-code">${escape(request.user_code)}</span></div></div>
<p class="note">Approve only if your assistant shows this same code. The code expires at ${escape(request.expires_at)}.</p>
<form method="post" action="/connect"><input type="hidden" name="code" value="${escape(request.user_code)}">
<label for="api_key">Organization key (ndp_…), to approve</label>
<input id="api_key" name="api_key" type="password" autocomplete="off">
<div class="actions"><button name="decision" value="approve">Approve</button><button name="decision" value="deny">Deny</button></div></form>`,
        ),
        200,
        HEADERS,
      );
    });
  });

  app.post('/connect', async (c) => {
    const form = await c.req.parseBody();
    const code = typeof form.code === 'string' ? form.code : '';
    const decision = form.decision === 'approve' ? 'approve' : form.decision === 'deny' ? 'deny' : undefined;
    const apiKey = typeof form.api_key === 'string' ? form.api_key.trim() : '';
    if (!decision || !code)
      return c.body(page('Bad request', '<h1>Choose Approve or Deny</h1>'), 400, HEADERS);
    return lookUp(c, async () => {
      try {
        const outcome =
          decision === 'approve'
            ? await invoker.invoke(ops.approveConnect, `Bearer ${apiKey}`, { user_code: code })
            : await invoker.invoke(ops.denyConnect, undefined, { user_code: code });
        const message =
          outcome.status === 'approved'
            ? `<h1 id="result">Approved</h1><p>${escape(outcome.hostname)} is connected. You can close this page; your assistant continues.</p>`
            : '<h1 id="result">Denied</h1><p>Nothing was connected. You can close this page.</p>';
        return c.body(page(outcome.status === 'approved' ? 'Approved' : 'Denied', message), 200, HEADERS);
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        return c.body(
          page('Not approved', `<h1 id="result">Not approved</h1><p>${escape(error.message)}</p>`),
          error.status as 400,
          HEADERS,
        );
      }
    });
  });
}
