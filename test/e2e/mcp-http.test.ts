// MCP over `svc serve`: Streamable HTTP at /mcp and legacy SSE at /sse, with the SDK's own
// clients over real loopback HTTP; every tool is called over each. Credentials come from each
// request's bearer only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { tempDir, testClock } from '../helpers.ts';
import { Service } from '../../src/backend/service.ts';
import { ops } from '../../src/backend/operations/index.ts';
import type { RunningServer } from '../../src/http/server.ts';
import { serve } from '../../src/entry/serve.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { MAX_SESSIONS, MAX_SSE_SESSIONS, SESSION_IDLE_MS } from '../../src/tools/http.ts';
import { runEveryTool, startEchoApi } from '../tools/scenario.ts';

type Kind = 'streamable' | 'sse';

describe.each(['streamable', 'sse'] as const)('%s', (kind: Kind) => {
  const home = tempDir();
  let server: RunningServer;
  let apiKey: string;
  let agentToken: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    const service = new Service({ dataDir: home.dir });
    apiKey = (await service.invoke(ops.createOrg, undefined, { name: 'Acme' })).api_key;
    agentToken = (
      await service.invoke(ops.createGrant, `Bearer ${apiKey}`, {
        agent: 'Helper',
        columns: ['id', 'region', 'email'],
      })
    ).grant_token;
    server = await serve({ service, port: 0 });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server.close();
    home.cleanup();
  });

  /** HTTP carries one bearer per request: an organization key or a grant token. */
  async function connect(token?: string): Promise<Client> {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const transport =
      kind === 'streamable'
        ? new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } })
        : new SSEClientTransport(new URL(`${server.url}/sse`), {
            requestInit: { headers },
            eventSourceInit: {
              fetch: (url, init) => fetch(url, { ...init, headers: { ...init?.headers, ...headers } }),
            },
          });
    const client = new Client({ name: 'svc-http-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  it('initializes, answers ping, lists the tools', async () => {
    const client = await connect();
    await expect(client.request({ method: 'ping' }, EmptyResultSchema)).resolves.toEqual({});
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
  });

  it('grants nothing to a connection without a bearer, whatever the server process holds', async () => {
    // The serving process has an organization key in its environment: HTTP callers must not get it.
    const saved = process.env.SVC_API_KEY;
    process.env.SVC_API_KEY = apiKey;
    const client = await connect();
    const result = await client.callTool({ name: 'svc_policy', arguments: {} });
    expect(result.isError).toBe(true);
    const connectTool = await client.callTool({ name: 'svc_connect', arguments: {} });
    expect(connectTool.isError).toBe(true);
    if (saved === undefined) delete process.env.SVC_API_KEY;
    else process.env.SVC_API_KEY = saved;
  });

  it('calls every tool: owner tools with the organization key, agent tools with the grant token', async () => {
    const api = await startEchoApi();
    try {
      const owner = await connect(apiKey);
      const agent = await connect(agentToken);
      await owner.listTools();
      await agent.listTools();
      // One HTTP client carries one bearer, so the scenario's calls are routed by credential tag.
      const agentTools = new Set(TOOLS.filter((t) => t.credential === 'grant').map((t) => t.name));
      const router = {
        listTools: () => owner.listTools(),
        callTool: (params: { name: string; arguments?: Record<string, unknown> }) =>
          (agentTools.has(params.name) ? agent : owner).callTool(params),
      } as unknown as Client;
      await runEveryTool(router, (token) => connect(token), {
        serviceKind: 'local',
        apiUrl: api.url,
        agentTokenVisible: false,
      });
      expect(api.calls).toHaveLength(3);
    } finally {
      await api.close();
    }
  });
});

describe('Streamable HTTP guards', () => {
  const home = tempDir();
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve({ service: new Service({ dataDir: home.dir }), port: 0 });
  });
  afterAll(async () => {
    await server.close();
    home.cleanup();
  });
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body,
    });

  it('refuses a foreign Origin (DNS rebinding) with 403', async () => {
    const r = await post(JSON.stringify(initialize), { origin: 'https://evil.example' });
    expect(r.status).toBe(403);
    expect(await r.json()).toMatchObject({ error: 'forbidden_host' });
  });

  it('refuses a page on another localhost port (Origin http://localhost:9999) with 403, and accepts its own origin', async () => {
    const { port } = new URL(server.url);
    const other = String(Number(port) === 9999 ? 9998 : 9999);
    for (const origin of [
      `http://localhost:${other}`,
      `http://127.0.0.1:${other}`,
      `http://127.0.0.1`,
      `https://127.0.0.1:${port}`,
      `http://localhost:${port}`,
    ]) {
      const r = await post(JSON.stringify(initialize), { origin });
      expect(r.status, origin).toBe(403);
      expect(await r.json()).toMatchObject({ error: 'forbidden_host' });
    }
    const own = await post(JSON.stringify(initialize), { origin: server.url });
    expect(own.status).toBe(200);
    await own.body?.cancel();
  });

  it('answers a request without a session, or with an unknown one, with a JSON-RPC error', async () => {
    const noSession = await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    expect(noSession.status).toBe(400);
    const unknown = await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), {
      'mcp-session-id': 'nope',
    });
    expect(unknown.status).toBe(404);
    const broken = await post('{"jsonrpc":');
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: { code: -32700 } });
  });
});

describe('sessions nobody can hold shut', () => {
  const home = tempDir();
  const clock = testClock();
  let server: RunningServer;
  const clients: Client[] = [];
  beforeAll(async () => {
    server = await serve({ service: new Service({ dataDir: home.dir, clock }), port: 0 });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await server.close();
    home.cleanup();
  });

  async function connect(kind: Kind): Promise<Client> {
    const transport =
      kind === 'streamable'
        ? new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`))
        : new SSEClientTransport(new URL(`${server.url}/sse`));
    const client = new Client({ name: 'svc-http-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  /** An initialize request whose sender never sends `notifications/initialized`. */
  async function abandonedInitialize(): Promise<string> {
    const r = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'flood', version: '1' },
        },
      }),
    });
    expect(r.status).toBe(200);
    await r.text();
    return r.headers.get('mcp-session-id')!;
  }

  it('more than 64 initialize requests that never complete lock nobody out: a real client still connects and lists tools', async () => {
    const earlier = await connect('streamable');
    const abandoned: string[] = [];
    for (let i = 0; i < MAX_SESSIONS + 6; i++) abandoned.push(await abandonedInitialize());
    const late = await connect('streamable');
    expect((await late.listTools()).tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    // The sessions that never finished their handshake made room, the oldest first; a client
    // that did finish it kept its session.
    expect((await earlier.listTools()).tools).toHaveLength(TOOLS.length);
    const ping = (id: string) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': id,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
      });
    const oldest = await ping(abandoned[0]!);
    expect(oldest.status).toBe(404);
    await oldest.body?.cancel();
    const newest = await ping(abandoned.at(-1)!);
    expect(newest.status).toBe(200);
    await newest.body?.cancel();
  });

  it('more than 32 SSE streams opened and left idle lock nobody out: the oldest is closed, a real client connects and lists tools', async () => {
    const streams: ReadableStreamDefaultReader<Uint8Array>[] = [];
    for (let i = 0; i < MAX_SSE_SESSIONS + 2; i++) {
      const r = await fetch(`${server.url}/sse`);
      expect(r.status).toBe(200);
      const reader = r.body!.getReader();
      // The endpoint event: the session is open on the server.
      expect(new TextDecoder().decode((await reader.read()).value)).toContain('sessionId=');
      streams.push(reader);
    }
    // The first streams were closed by the server to make room.
    expect((await streams[0]!.read()).done).toBe(true);
    const client = await connect('sse');
    expect((await client.listTools()).tools).toHaveLength(TOOLS.length);
    await Promise.all(streams.map((reader) => reader.cancel()));
  });

  it.each(['streamable', 'sse'] as const)(
    'a %s session left idle for 30 minutes is closed; one used within them stays',
    async (kind) => {
      const client = await connect(kind);
      clock.advance(SESSION_IDLE_MS - 1000);
      await expect(client.listTools()).resolves.toBeDefined();
      clock.advance(SESSION_IDLE_MS - 1000);
      await expect(client.listTools()).resolves.toBeDefined();
      clock.advance(SESSION_IDLE_MS + 1);
      await expect(client.listTools()).rejects.toThrow();
      const again = await connect(kind);
      await expect(again.listTools()).resolves.toBeDefined();
    },
  );
});
