// The body limit over real sockets, where @hono/node-server serves the app: a body sent with its
// length is judged by the header, a chunked one as it arrives; both over the limit are 413
// payload_too_large, and a body under it reaches the route.
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from 'undici';
import { Service } from '../../src/backend/service.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { startServer, type RunningServer } from '../../src/http/server.ts';
import { tempDir } from '../helpers.ts';

const home = tempDir('svc-body-limit-');
let server: RunningServer;
let apiKey: string;
beforeAll(async () => {
  const service = new Service({ dataDir: home.dir });
  apiKey = (await service.invoke(ops.createOrg, undefined, { name: 'Acme' })).api_key;
  server = await startServer({ service, port: 0, closeService: true });
});
afterAll(async () => {
  await server.close();
  home.cleanup();
});

async function grant(body: string | Readable) {
  const response = await request(`${server.url}/api/v1/governance/grant`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body,
    // A connection per request: after a 413 the server closes a connection whose body it did not
    // read, and a pooled one would carry the next request into that.
    reset: true,
  });
  return {
    status: response.statusCode,
    headers: response.headers,
    body: (await response.body.json()) as { error?: string },
  };
}

/** The text in pieces, sent without a length (chunked). */
function chunked(text: string): Readable {
  const pieces: Buffer[] = [];
  for (let i = 0; i < text.length; i += 64 * 1024) pieces.push(Buffer.from(text.slice(i, i + 64 * 1024)));
  return Readable.from(pieces);
}

const large = JSON.stringify({ agent: 'a'.repeat(2 * 1024 * 1024), columns: ['id'] });
const small = JSON.stringify({ agent: 'Reporting bot', columns: ['id'] });

it('a body over the limit is 413, sent with its length or chunked', async () => {
  for (const body of [large, chunked(large)]) {
    const answer = await grant(body);
    expect(answer.status).toBe(413);
    expect(answer.body.error).toBe('payload_too_large');
  }
});

it('a body under the limit reaches the route, sent with its length or chunked', async () => {
  for (const body of [small, chunked(small)]) {
    const answer = await grant(body);
    expect(answer.status).toBe(201);
  }
});
