// svc_connect while nobody has approved yet: it reports progress while it waits, returns pending
// with the URL and code, and a second call keeps waiting on the same code. (The browser flows are
// in test/e2e/connect.test.ts.)
import { afterAll, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { tempDir } from '../helpers.ts';
import { Service } from '../../src/backend/service.ts';
import { ConnectFlow } from '../../src/backend/connect-flow.ts';
import { machineFacts } from '../../src/config/machine.ts';
import { startServer, type RunningServer } from '../../src/http/server.ts';
import { mountConnectPages } from '../../src/http/connect-pages.ts';
import { createMcpServer } from '../../src/tools/server.ts';

const home = tempDir();
const service = new Service({ dataDir: home.dir });
let pages: Promise<RunningServer> | undefined;
afterAll(async () => {
  if (pages) await (await pages).close();
  service.close();
  home.cleanup();
});

it('waits with progress, then answers pending; calling again resumes the same code', async () => {
  // The approval page is served on loopback on first need, as `svc mcp` does in local mode.
  let pageStarts = 0;
  const kept: string[] = [];
  const flow = new ConnectFlow({
    invoker: service.invoker,
    machine: machineFacts,
    pageBase: async () => {
      pageStarts++;
      pages ??= startServer({
        service,
        port: 0,
        closeService: false,
        mounts: [(app) => mountConnectPages(app, service.invoker)],
      });
      return (await pages).url;
    },
    keepKey: (apiKey) => void kept.push(apiKey),
  });
  const server = createMcpServer(() => ({
    invoker: service.invoker,
    ownerBearer: undefined,
    agentBearer: undefined,
    credentialSource: 'environment',
    connect: { flow, keyStore: service.ctx.vault.location },
  }));
  const [c, s] = InMemoryTransport.createLinkedPair();
  await server.connect(s);
  const client = new Client({ name: 'pending', version: '1' });
  await client.connect(c);
  await client.listTools();
  const progress: number[] = [];
  const first = await client.callTool({ name: 'svc_connect', arguments: { wait_seconds: 2 } }, undefined, {
    onprogress: (p) => void progress.push(p.progress),
  });
  expect(first.structuredContent).toMatchObject({
    status: 'pending',
    user_code: expect.stringMatching(/^[B-Z]{4}-[B-Z]{4}$/),
    verification_uri: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/connect\?code=/),
  });
  // What to do next is in the answer itself: show the URL and the code, then call again.
  const pending = first.structuredContent as { next: string; user_code: string; verification_uri: string };
  expect(pending.next).toContain(pending.verification_uri);
  expect(pending.next).toContain(pending.user_code);
  expect(pending.next).toContain('call svc_connect again');
  expect(progress.length).toBeGreaterThan(0);
  const again = await client.callTool({ name: 'svc_connect', arguments: { wait_seconds: 0 } });
  expect((again.structuredContent as { user_code: string }).user_code).toBe(
    (first.structuredContent as { user_code: string }).user_code,
  );
  // Resuming neither starts a second request nor asks for the page again; nothing was approved.
  expect(pageStarts).toBe(1);
  expect(kept).toEqual([]);
  const page = await fetch((first.structuredContent as { verification_uri: string }).verification_uri);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain((first.structuredContent as { user_code: string }).user_code);
});
