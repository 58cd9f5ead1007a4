// One scenario that calls every tool except svc_connect (which needs a browser: connect.test.ts),
// with the same expectations whatever the transport or backend. Each result's structuredContent
// is checked against the tool's outputSchema by the SDK client (it lists the tools first).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

export const API_SECRET = 'api-secret-5c1f0e9a7b3d';

/** A loopback API that answers only with the right bearer, and carelessly echoes it back. */
export async function startEchoApi(): Promise<{ url: string; calls: string[]; close: () => Promise<void> }> {
  const calls: string[] = [];
  const server: Server = createServer((req, res) => {
    const ok = req.headers.authorization === `Bearer ${API_SECRET}`;
    calls.push(`${req.method} ${req.url} ${ok ? 'authorized' : 'refused'}`);
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok, echo: req.headers.authorization }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const text = (r: Awaited<ReturnType<Client['callTool']>>) =>
  (r.content as { text?: string }[]).map((c) => c.text ?? '').join('\n');

export async function caller(client: Client) {
  await client.listTools();
  return async (name: string, args: Record<string, unknown> = {}) => {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError, `${name}: ${text(result)}`).toBeFalsy();
    expect(result.structuredContent, name).toBeDefined();
    // A client that shows its model the text (Gemini CLI) sees the next step too, once.
    const next = (result.structuredContent as { next?: unknown }).next;
    if (typeof next === 'string' && next) expect(text(result).split(next).length - 1, name).toBe(1);
    expect(JSON.stringify(result)).not.toContain(API_SECRET);
    return result.structuredContent as Record<string, any>;
  };
}

/**
 * Runs every tool. `client` holds an organization key and the grant token of agent `helper`
 * (columns id, region, email of the demo table) in an organization named Acme with no other agent;
 * `asAgent` opens a client holding just the given grant token.
 */
export async function runEveryTool(
  client: Client,
  asAgent: (grantToken: string) => Promise<Client>,
  options: {
    serviceKind: 'local' | 'remote';
    apiUrl: string;
    /** False over HTTP, where a request carries one bearer: svc_get_started sees only the key. */
    agentTokenVisible?: boolean;
  },
): Promise<void> {
  const call = await caller(client);
  expect(await call('svc_get_started')).toMatchObject({
    service: { kind: options.serviceKind },
    organization_key: { valid: true, org_name: 'Acme' },
    agent_token:
      options.agentTokenVisible === false
        ? { present: false }
        : { valid: true, handle: 'helper', columns: ['id', 'region', 'email'] },
    agents: 1,
    tables: [{ name: 'agent_demo_records', columns: expect.arrayContaining(['id', 'region', 'email']) }],
  });
  expect(await call('svc_node')).toMatchObject({ node: { node_id: expect.stringMatching(/^node_/) } });
  expect(await call('svc_terms')).toMatchObject({ version: expect.any(String) });
  const accepted = await call('svc_terms', { accept: true });
  expect(accepted).toMatchObject({ accepted: true, receipt_id: expect.stringMatching(/^rcpt_/) });

  expect(
    await call('svc_register_table', {
      name: 'vendors',
      columns: [
        { name: 'id', classification: 'public', storage: 'plaintext' },
        { name: 'iban', classification: 'financial', storage: 'encrypted' },
      ],
    }),
  ).toMatchObject({ name: 'vendors', next: expect.stringContaining('table load vendors --file') });
  // The decision names its receipt by id, with how to check it; the whole receipt is the API's.
  const decided = await call('svc_decide', { columns: ['id', 'phone'] });
  expect(decided).toMatchObject({
    decision: 'degrade',
    withheld: { columns: ['phone'] },
    proof_id: expect.stringMatching(/^rcpt_/),
    next: expect.stringContaining('svc_verify'),
  });
  expect(decided).not.toHaveProperty('receipt');
  expect(decided).not.toHaveProperty('cost');
  expect(await call('svc_verify', { proof_id: decided.proof_id })).toMatchObject({ authentic: true });
  const read = await call('svc_read', {
    table: 'agent_demo_records',
    columns: ['id', 'email'],
    where: { region: 'us' },
    limit: 4,
  });
  expect(read).toMatchObject({ count: 4, audit: { id: expect.stringMatching(/^aud_/) } });
  expect(await call('svc_retrieve', { columns: ['id', 'balance'], limit: 2 })).toMatchObject({
    decision: 'degrade',
    columns: ['id'],
    withheld: [{ column: 'balance', reason: 'not_granted' }],
    count: 2,
  });
  expect(await call('svc_verify', { proof_id: read.audit.id })).toMatchObject({
    authentic: true,
    chain: 'audit',
  });

  expect(
    await call('svc_connect_source', {
      name: 'crm',
      base_url: options.apiUrl,
      scheme: 'bearer',
      credential: API_SECRET,
      // The echo API listens on loopback, which a source reaches only when its owner allows it.
      allow_private_network: true,
    }),
  ).toMatchObject({ name: 'crm', credential: `set (${API_SECRET.length} characters, never shown)` });
  expect((await call('svc_api_list')).sources).toHaveLength(1);
  const fetched = await call('svc_api_read', { source: 'crm', path: 'contacts' });
  expect(fetched).toMatchObject({ status: 200 });
  expect(JSON.parse(fetched.body)).toEqual({ ok: true, echo: 'Bearer [credential]' });
  expect(
    await call('svc_api_write', {
      source: 'crm',
      path: 'contacts/1',
      method: 'PATCH',
      body: { a: 1 },
      confirmed: true,
    }),
  ).toMatchObject({
    status: 200,
  });

  const user = await call('svc_grant', {
    agent: 'Crm User',
    columns: ['id'],
    capabilities: [{ source: 'crm', methods: ['GET'], path_prefix: 'contacts' }],
  });
  expect(user.next).toMatch(/shown only in this answer.*SVC_AGENT_TOKEN/);
  const agentCall = await caller(await asAgent(user.grant_token));
  expect(await agentCall('svc_use', { source: 'crm', method: 'GET', path: 'contacts/9' })).toMatchObject({
    status: 200,
  });

  const board = await call('svc_policy');
  expect(board.agents.map((a: { handle: string }) => a.handle)).toEqual(['helper', 'crm-user']);
  expect(board.next).toContain('svc_revoke');
  const proofs = await call('svc_proofs', { limit: 2 });
  expect(proofs.proofs.map((p: { kind: string }) => p.kind)).toEqual(['api.call', 'agent.grant']);
  expect(await call('svc_revoke', { target: 'crm-user' })).toMatchObject({
    target: 'agent',
    revoked_jtis: [expect.any(String)],
  });
}
