// SVC_PUBLIC_URL: the public host reaches the share pages and their endpoints only; every other
// path answers 403 forbidden_host on it, while loopback keeps serving everything.
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import { PUBLIC_PATHS, mountLinkPages } from '../../src/http/link-pages.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { sealForLink } from '../../src/proofs/link-seal.ts';
import { harness } from '../helpers.ts';

const h = harness();
afterAll(() => h.close());
const app = createApp({
  service: h.service,
  publicHosts: ['share.example.com'],
  publicPaths: PUBLIC_PATHS,
  mounts: [(a) => mountLinkPages(a, h.service.invoker)],
});

const get = (host: string, path: string, init: RequestInit = {}) =>
  app.request(`http://${host}${path}`, { ...init, headers: { host, ...(init.headers as object) } });

describe('a public host', () => {
  it('serves a link page, its info and its open, and nothing else', async () => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Public Org' });
    const { fragment: _fragment, ...sealed } = await sealForLink(new TextEncoder().encode('hello'));
    const link = await h.service.invoke(ops.createLink, `Bearer ${org.api_key}`, {
      ...sealed,
      size_bytes: 5,
      content_type: 'text/plain',
    });
    expect((await get('share.example.com', `/s/${link.link_id}`)).status).toBe(200);
    expect((await get('share.example.com', '/s/assets/link.js')).status).toBe(200);
    const info = await get('share.example.com', `/s/${link.link_id}/info`);
    const { open_nonce } = (await info.json()) as { open_nonce: string };
    const opened = await get('share.example.com', `/s/${link.link_id}/open`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://share.example.com' },
      body: JSON.stringify({ nonce: open_nonce }),
    });
    expect(opened.status).toBe(200);
    for (const path of ['/api/v1/links', '/openapi.json', '/connect', '/mcp', '/.well-known/svc-keys.json']) {
      const refused = await get('share.example.com', path, {
        headers: { authorization: `Bearer ${org.api_key}` },
      });
      expect(refused.status, path).toBe(403);
      expect(((await refused.json()) as { error: string }).error).toBe('forbidden_host');
    }
    expect((await get('127.0.0.1', '/openapi.json')).status).toBe(200);
    expect((await get('other.example.com', `/s/${link.link_id}`)).status).toBe(403);
  });

  it('takes requests from its own origin only', async () => {
    const refused = await get('share.example.com', '/s/AAAAAAAAAAAAAAAAAAAAAA/open', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example.net' },
      body: JSON.stringify({ nonce: 'x' }),
    });
    expect(refused.status).toBe(403);
  });
});
