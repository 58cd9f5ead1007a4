// External APIs through the tools, against a real HTTP API on loopback that checks the credential
// arrived; over both backends. No tool result, and no log line, ever carries the credential.
import { text as bodyText } from 'node:stream/consumers';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { tempDir } from '../helpers.ts';
import { Service } from '../../src/backend/service.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { remoteInvoker, type Invoker } from '../../src/backend/invoke.ts';
import { startServer, type RunningServer } from '../../src/http/server.ts';
import { createMcpServer } from '../../src/tools/server.ts';

const SECRET = 'sk-live-7f3a9c1e5b2d8f60aa41';
const seen: { method: string; url: string; authorized: boolean; body: string }[] = [];
let api: Server;
let apiUrl: string;

beforeAll(async () => {
  api = createServer(async (req, res) => {
    const authorized = req.headers.authorization === `Bearer ${SECRET}`;
    seen.push({ method: req.method!, url: req.url!, authorized, body: await bodyText(req) });
    res.writeHead(authorized ? 200 : 401, { 'content-type': 'application/json' });
    // A careless API that echoes the credential back: svc must mask it.
    res.end(JSON.stringify({ ok: authorized, path: req.url, echo: req.headers.authorization }));
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}/v2/`;
});
afterAll(() => new Promise<void>((resolve) => api.close(() => resolve())));

async function client(invoker: Invoker, apiKey: string, elicit?: (message: string) => boolean) {
  const server = createMcpServer(() => ({
    invoker,
    ownerBearer: `Bearer ${apiKey}`,
    agentBearer: undefined,
    credentialSource: 'environment',
  }));
  const [c, s] = InMemoryTransport.createLinkedPair();
  await server.connect(s);
  const mcp = new Client(
    { name: 'sources', version: '1' },
    { capabilities: elicit ? { elicitation: {} } : {} },
  );
  if (elicit) {
    mcp.setRequestHandler(ElicitRequestSchema, async (request) =>
      elicit(String(request.params.message))
        ? { action: 'accept', content: { confirm: true } }
        : { action: 'decline' },
    );
  }
  await mcp.connect(c);
  await mcp.listTools();
  return mcp;
}

const text = (r: Awaited<ReturnType<Client['callTool']>>) =>
  (r.content as { text: string }[]).map((c) => c.text).join('\n');

describe.each(['local', 'remote'] as const)('external APIs over the %s backend', (kind) => {
  const home = tempDir();
  let service: Service;
  let server: RunningServer | undefined;
  let invoker: Invoker;
  let apiKey: string;
  const logged: string[] = [];

  beforeAll(async () => {
    service = new Service({ dataDir: home.dir });
    apiKey = (await service.invoke(ops.createOrg, undefined, { name: 'Acme' })).api_key;
    if (kind === 'remote') server = await startServer({ service, port: 0 });
    invoker = server ? remoteInvoker(server.url) : service.invoker;
    for (const level of ['log', 'error', 'warn', 'info'] as const) {
      vi.spyOn(console, level).mockImplementation(
        (...args: unknown[]) => void logged.push(args.map(String).join(' ')),
      );
    }
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    if (server) await server.close();
    else service.close();
    home.cleanup();
  });

  it('registers, lists, reads and writes with the credential injected, never returned', async () => {
    seen.length = 0;
    const mcp = await client(invoker, apiKey);
    const results: unknown[] = [];
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await mcp.callTool({ name, arguments: args });
      results.push(result);
      expect(result.isError, text(result)).toBeFalsy();
      return result.structuredContent as Record<string, any>;
    };
    expect(
      await call('svc_connect_source', {
        name: 'crm',
        base_url: apiUrl,
        scheme: 'bearer',
        credential: SECRET,
        // The test API listens on loopback, which a source reaches only when its owner allows it.
        allow_private_network: true,
      }),
    ).toMatchObject({
      name: 'crm',
      credential: `set (${SECRET.length} characters, never shown)`,
    });
    expect((await call('svc_api_list', {})).sources).toHaveLength(1);
    const read = await call('svc_api_read', { source: 'crm', path: 'contacts', query: { limit: '2' } });
    expect(read).toMatchObject({ status: 200, method: 'GET', url: `${apiUrl}contacts?limit=2` });
    expect(JSON.parse(read.body)).toMatchObject({ ok: true, echo: 'Bearer [credential]' });
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/v2/contacts?limit=2', authorized: true });
    const proof = await mcp.callTool({ name: 'svc_verify', arguments: { proof_id: read.receipt_id } });
    expect(proof.structuredContent).toMatchObject({ authentic: true, kind: 'api.call' });

    const write = await call('svc_api_write', {
      source: 'crm',
      path: 'contacts/7',
      method: 'PATCH',
      body: { tier: 'gold' },
      confirmed: true,
    });
    expect(write).toMatchObject({ status: 200, method: 'PATCH' });
    expect(seen.at(-1)).toMatchObject({
      method: 'PATCH',
      url: '/v2/contacts/7',
      authorized: true,
      body: '{"tier":"gold"}',
    });

    const everything = JSON.stringify(results) + logged.join('\n');
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(Buffer.from(SECRET).toString('base64'));
  });

  it('a write needs confirmation: refused without it, asked through elicitation, declined means not sent', async () => {
    const plain = await client(invoker, apiKey);
    const before = seen.length;
    const unconfirmed = await plain.callTool({
      name: 'svc_api_write',
      arguments: { source: 'crm', path: 'x', method: 'DELETE' },
    });
    expect(unconfirmed.isError).toBe(true);
    expect(text(unconfirmed)).toContain('confirmed: true');
    const asked: string[] = [];
    const yes = await client(invoker, apiKey, (m) => (asked.push(m), true));
    const confirmed = await yes.callTool({
      name: 'svc_api_write',
      arguments: { source: 'crm', path: 'x', method: 'DELETE' },
    });
    expect(confirmed.isError, text(confirmed)).toBeFalsy();
    expect(asked[0]).toContain('DELETE x on crm');
    const no = await client(invoker, apiKey, () => false);
    const declined = await no.callTool({
      name: 'svc_api_write',
      arguments: { source: 'crm', path: 'y', method: 'DELETE', confirmed: true },
    });
    expect(declined.isError).toBe(true);
    expect(text(declined)).toContain('declined');
    expect(seen.slice(before).map((r) => `${r.method} ${r.url}`)).toEqual(['DELETE /v2/x']);
  });

  it('svc_use: an agent calls what its grant allows, never seeing the secret', async () => {
    const grant = await invoker.invoke(ops.createGrant, `Bearer ${apiKey}`, {
      agent: 'Crm Reader',
      columns: ['id'],
      capabilities: [{ source: 'crm', methods: ['GET'], path_prefix: 'contacts' }],
    });
    const server = createMcpServer(() => ({
      invoker,
      ownerBearer: undefined,
      agentBearer: `Bearer ${grant.grant_token}`,
      credentialSource: 'environment',
    }));
    const [c, s] = InMemoryTransport.createLinkedPair();
    await server.connect(s);
    const agent = new Client({ name: 'use', version: '1' });
    await agent.connect(c);
    await agent.listTools();
    const started = await agent.callTool({ name: 'svc_get_started', arguments: {} });
    expect(started.structuredContent).toMatchObject({
      agent_token: { capabilities: [{ source: 'crm', methods: ['GET'], path_prefix: 'contacts' }] },
    });
    const before = seen.length;
    const used = await agent.callTool({
      name: 'svc_use',
      arguments: { source: 'crm', method: 'GET', path: 'contacts/42' },
    });
    expect(used.isError, text(used)).toBeFalsy();
    expect(used.structuredContent).toMatchObject({ status: 200, method: 'GET' });
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/v2/contacts/42', authorized: true });
    for (const args of [
      { source: 'crm', method: 'DELETE', path: 'contacts/42' },
      { source: 'crm', method: 'GET', path: 'admin/users' },
      { source: 'billing', method: 'GET', path: 'contacts' },
      { source: 'crm', method: 'GET', path: 'contacts/../admin/users' },
      { source: 'crm', method: 'GET', path: 'contacts-admin/users' },
    ]) {
      const refused = await agent.callTool({ name: 'svc_use', arguments: args });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/^scope_violation: /);
    }
    // An encoded dot is refused before any check of the grant: an upstream could decode it.
    const dotted = await agent.callTool({
      name: 'svc_use',
      arguments: { source: 'crm', method: 'GET', path: 'contacts/%2e%2e/admin/users' },
    });
    expect(dotted.isError).toBe(true);
    expect(text(dotted)).toMatch(/^invalid_request: path may not carry an encoded dot/);
    expect(seen.length - before).toBe(1);
    const receipt = JSON.parse(JSON.stringify(used.structuredContent)) as { receipt_id: string };
    const proof = await invoker.invoke(ops.verifyProof, undefined, { proof_id: receipt.receipt_id });
    expect(proof).toMatchObject({ authentic: true, kind: 'api.call' });
    expect(JSON.stringify([started, used]) + logged.join('\n')).not.toContain(SECRET);
  });

  it('paths cannot leave the base URL', async () => {
    const mcp = await client(invoker, apiKey);
    for (const path of ['../admin', '/../../etc', 'http://127.0.0.1:1/x']) {
      const result = await mcp.callTool({ name: 'svc_api_read', arguments: { source: 'crm', path } });
      expect(result.isError, path).toBe(true);
      expect(text(result)).toMatch(/path must stay under/);
    }
  });
});
