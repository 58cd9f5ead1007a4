// One contract for the tools, run against both backends: the service in this process over the
// local store, and a remote `svc serve` over real loopback HTTP (what SVC_BASE_URL selects).
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { tempDir } from '../helpers.ts';
import { Service } from '../../src/backend/service.ts';
import { startServer, type RunningServer } from '../../src/backend/http/server.ts';
import { createMcpServer } from '../../src/tools/server.ts';
import { localBackend, remoteBackend, type Backend } from '../../src/tools/backend.ts';
import { runEveryTool, startEchoApi } from './scenario.ts';

interface World {
  backend: Backend;
  apiKey: string;
  agentToken: string;
  close(): Promise<void>;
}

async function world(kind: 'local' | 'remote'): Promise<World> {
  const home = tempDir();
  const service = new Service({ dataDir: home.dir });
  const apiKey = service.createOrg('Acme').api_key;
  const agentToken = service.createGrant(service.authenticate(`Bearer ${apiKey}`), {
    agent: 'Helper',
    columns: ['id', 'region', 'email'],
  }).grant_token;
  let server: RunningServer | undefined;
  if (kind === 'remote') server = await startServer({ service, port: 0 });
  return {
    backend: server ? remoteBackend(server.url) : localBackend(service),
    apiKey,
    agentToken,
    async close() {
      if (server) await server.close();
      else service.close();
      home.cleanup();
    },
  };
}

async function clientFor(w: World, credentials: { owner?: boolean; agent?: boolean }): Promise<Client> {
  const server = createMcpServer(() => ({
    backend: w.backend,
    ownerBearer: credentials.owner ? `Bearer ${w.apiKey}` : undefined,
    agentBearer: credentials.agent ? `Bearer ${w.agentToken}` : undefined,
    credentialSource: 'environment',
  }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'contract', version: '1' });
  await client.connect(clientSide);
  await client.listTools(); // so the client checks every structuredContent against its schema
  return client;
}

async function clientForToken(w: World, token: string): Promise<Client> {
  const server = createMcpServer(() => ({
    backend: w.backend,
    ownerBearer: undefined,
    agentBearer: `Bearer ${token}`,
    credentialSource: 'environment',
  }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'contract-agent', version: '1' });
  await client.connect(clientSide);
  return client;
}

const text = (r: Awaited<ReturnType<Client['callTool']>>) =>
  (r.content as { text: string }[]).map((c) => c.text).join('\n');

describe.each(['local', 'remote'] as const)('tools over the %s backend', (kind) => {
  let w: World;
  afterAll(() => w?.close());

  it('runs every tool with the same answers', async () => {
    w = await world(kind);
    const api = await startEchoApi();
    try {
      const client = await clientFor(w, { owner: true, agent: true });
      await runEveryTool(client, (token) => clientForToken(w, token), { serviceKind: kind, apiUrl: api.url });
      expect(api.calls).toEqual([
        'GET /api/contacts authorized',
        'PATCH /api/contacts/1 authorized',
        'GET /api/contacts/9 authorized',
      ]);
    } finally {
      await api.close();
    }
  });

  it('reports refusals as tool errors with the same code and details', async () => {
    const client = await clientFor(w, { agent: true });
    const refused = await client.callTool({
      name: 'svc_read',
      arguments: { table: 'agent_demo_records', columns: ['notes'] },
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^scope_violation: /);
    expect(text(refused)).toContain('"denied_columns":["notes"]');
    const noOwner = await client.callTool({ name: 'svc_policy', arguments: {} });
    expect(noOwner.isError).toBe(true);
    expect(text(noOwner)).toContain('SVC_API_KEY');
  });

  it('a bad credential is named in svc_get_started and refused by the tools', async () => {
    const bad = createMcpServer(() => ({
      backend: w.backend,
      ownerBearer: `Bearer ndp_${'A'.repeat(43)}`,
      agentBearer: undefined,
      credentialSource: 'environment',
    }));
    const [c, s] = InMemoryTransport.createLinkedPair();
    await bad.connect(s);
    const client = new Client({ name: 'contract', version: '1' });
    await client.connect(c);
    const started = await client.callTool({ name: 'svc_get_started', arguments: {} });
    expect(started.structuredContent).toMatchObject({ organization_key: { present: true, valid: false } });
    const policy = await client.callTool({ name: 'svc_policy', arguments: {} });
    expect(policy.isError).toBe(true);
    expect(text(policy)).toMatch(/^unauthorized: /);
  });
});
