// One contract for the tools, run against both backends: the service in this process over the
// local store, and a remote `svc serve` over real loopback HTTP (what SVC_BASE_URL selects).
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { tempDir } from '../helpers.ts';
import { Service } from '../../src/backend/service.ts';
import type { RunningServer } from '../../src/http/server.ts';
import { serve } from '../../src/entry/serve.ts';
import { createMcpServer } from '../../src/tools/server.ts';
import { remoteInvoker, type Invoker } from '../../src/backend/invoke.ts';
import { OPERATIONS, ops } from '../../src/backend/operations/index.ts';
import { ROUTES } from '../../src/backend/routes.ts';
import { ServiceError } from '../../src/backend/errors.ts';
import { SAMPLES, type Ids } from '../operation-samples.ts';
import { runEveryTool, startEchoApi } from './scenario.ts';

interface World {
  service: Service;
  invoker: Invoker;
  apiKey: string;
  agentToken: string;
  close(): Promise<void>;
}

async function world(kind: 'local' | 'remote'): Promise<World> {
  const home = tempDir();
  const service = new Service({ dataDir: home.dir });
  const apiKey = (await service.invoke(ops.createOrg, undefined, { name: 'Acme' })).api_key;
  const agentToken = (
    await service.invoke(ops.createGrant, `Bearer ${apiKey}`, {
      agent: 'Helper',
      columns: ['id', 'region', 'email'],
    })
  ).grant_token;
  let server: RunningServer | undefined;
  if (kind === 'remote') server = await serve({ service, port: 0 });
  return {
    service,
    invoker: server ? remoteInvoker(server.url) : service.invoker,
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
    invoker: w.invoker,
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
    invoker: w.invoker,
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

  it('a read with input its schema refuses is refused by the core and leaves its audit row', async () => {
    const client = await clientFor(w, { agent: true });
    for (const [name, args] of [
      ['svc_read', { table: 'agent_demo_records', columns: ['id'], limit: 0 }],
      ['svc_retrieve', { table: 'agent_demo_records', limit: 'ten' }],
    ] as const) {
      const before = await w.service.ctx.chains.length('audit');
      const refused = await client.callTool({ name, arguments: args });
      expect(refused.isError, name).toBe(true);
      expect(text(refused), name).toMatch(/^invalid_request: .*`limit`/);
      expect(await w.service.ctx.chains.length('audit'), name).toBe(before + 1);
    }
    // Input no read could take from anyone (no credential): refused before the core, as any tool's.
    const anonymous = await clientFor(w, {});
    const before = await w.service.ctx.chains.length('audit');
    const refused = await anonymous.callTool({ name: 'svc_read', arguments: { table: 1 } });
    expect(refused.isError).toBe(true);
    expect(await w.service.ctx.chains.length('audit')).toBe(before);
  });

  it('refuses input a tool schema does not take in words that name each field and what it takes', async () => {
    const client = await clientFor(w, {});
    const refused = await client.callTool({ name: 'svc_grant', arguments: { agent: 7 } });
    expect(refused.isError).toBe(true);
    // Not zod's "Invalid input: expected string, received number": the HTTP API's own messages.
    expect(text(refused)).toContain(
      'Input validation error: Invalid arguments for tool svc_grant: `agent` must be a string, not number; `columns` is required: an array of strings',
    );
  });

  /** A client whose server's environment holds these credentials, as `svc mcp` reads them. */
  async function withEnvironment(owner: string | undefined, agent?: string): Promise<Client> {
    const server = createMcpServer(() => ({
      invoker: w.invoker,
      ownerBearer: owner && `Bearer ${owner}`,
      ownerSource: 'SVC_API_KEY',
      agentBearer: agent && `Bearer ${agent}`,
      credentialSource: 'environment',
    }));
    const [c, s] = InMemoryTransport.createLinkedPair();
    await server.connect(s);
    const client = new Client({ name: 'contract', version: '1' });
    await client.connect(c);
    return client;
  }

  it('a bad credential is named in svc_get_started and refused by the tools', async () => {
    const client = await withEnvironment(`ndp_${'A'.repeat(43)}`);
    const started = await client.callTool({ name: 'svc_get_started', arguments: {} });
    expect(started.structuredContent).toMatchObject({ organization_key: { present: true, valid: false } });
    const policy = await client.callTool({ name: 'svc_policy', arguments: {} });
    expect(policy.isError).toBe(true);
    expect(text(policy)).toMatch(/^unauthorized: unknown or revoked organization key/);
    // Over stdio the key is the server's environment: the refusal says which variable to change.
    expect(text(policy)).toContain('The organization key is SVC_API_KEY in the MCP server environment');
  });

  it.each([
    [
      'not a credential',
      'not-a-key',
      /^SVC_API_KEY in the MCP server environment is not an organization key/,
    ],
    [
      'an agent grant token',
      `ndca-${'A'.repeat(43)}`,
      /holds an agent grant token \(ndca-\), not an organization key/,
    ],
  ])(
    'over stdio, a SVC_API_KEY that is %s is named by its variable, in the words of the environment',
    async (_name, key, problem) => {
      const client = await withEnvironment(key);
      const started = await client.callTool({ name: 'svc_get_started', arguments: {} });
      const { organization_key, next_steps } = started.structuredContent as {
        organization_key: { valid: boolean; problem: string };
        next_steps: string[];
      };
      expect(organization_key).toMatchObject({ valid: false, problem: expect.stringMatching(problem) });
      expect(JSON.stringify(started)).not.toContain('Authorization');
      expect(next_steps.join('\n')).toContain('SVC_API_KEY');
      const policy = await client.callTool({ name: 'svc_policy', arguments: {} });
      expect(policy.isError).toBe(true);
      expect(text(policy)).toMatch(/^unauthorized: SVC_API_KEY in the MCP server environment /);
      expect(text(policy)).not.toContain('Authorization');
    },
  );

  it('over stdio, an organization key in SVC_AGENT_TOKEN is named by its variable', async () => {
    const client = await withEnvironment(undefined, w.apiKey);
    const read = await client.callTool({ name: 'svc_decide', arguments: {} });
    expect(read.isError).toBe(true);
    expect(text(read)).toMatch(
      /^unauthorized: SVC_AGENT_TOKEN in the MCP server environment holds an organization key \(ndp_\)/,
    );
  });

  it('a grant of an unknown column names the columns the table has', async () => {
    const client = await clientFor(w, { owner: true });
    const refused = await client.callTool({
      name: 'svc_grant',
      arguments: { agent: 'Typo', columns: ['id', 'name'] },
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(
      /^invalid_request: columns not registered on `agent_demo_records`: name; its columns are id, .*email/,
    );
    expect(text(refused)).toContain('"registered_columns":["id",');
  });

  it('an organization without agents: svc_policy says to grant one, in its answer', async () => {
    const empty = (await w.service.invoke(ops.createOrg, undefined, { name: 'Empty' })).api_key;
    const client = await withEnvironment(empty);
    await client.listTools();
    const board = await client.callTool({ name: 'svc_policy', arguments: {} });
    expect(board.structuredContent).toMatchObject({ count: 0, next: expect.stringContaining('svc_grant') });
  });
});

/** What an operation answered, reduced to what both backends must agree on. */
async function outcome(w: World, name: string, bearer: string | undefined, input: unknown) {
  const op = OPERATIONS.find((o) => o.name === name)!;
  try {
    const result = await w.invoker.invoke(op, bearer, input as never);
    const parsed = op.output.safeParse(result);
    return { ok: true, valid: parsed.success ? true : parsed.error.issues.slice(0, 3) };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return { ok: false, error: error.code };
  }
}

describe('every operation, walked from the registry', () => {
  it('answers the same over both backends: same success or the same error code, output in its schema', async () => {
    const seen: Record<string, Record<string, unknown>> = { local: {}, remote: {} };
    for (const kind of ['local', 'remote'] as const) {
      const w = await world(kind);
      try {
        const owner = `Bearer ${w.apiKey}`;
        const agentBearer = `Bearer ${w.agentToken}`;
        const me = await w.invoker.invoke(ops.whoami, agentBearer, {});
        const capsule = await w.invoker.invoke(ops.createCapsule, owner, { name: 'c' });
        const fabricGrant = await w.invoker.invoke(ops.createFabricGrant, owner, {
          subject_kid: 'dddddddddddddddd',
        });
        const disposable = await w.invoker.invoke(ops.createGrant, owner, {
          agent: 'Disposable',
          columns: ['id'],
        });
        const rule = await w.invoker.invoke(ops.addRules, owner, {
          rules: [{ effect: 'ask', paths: ['*.pem'] }],
        });
        const ids: Ids = {
          handle: me.kind === 'agent' ? me.handle : '',
          disposable: disposable.handle,
          capsule: capsule.id,
          fabricGrant: fabricGrant.grant_id,
          blob: '00000000-0000-4000-8000-000000000001',
          proof: disposable.receipt_id,
          rule: rule.rules[0]!.rule_id,
        };
        for (const op of OPERATIONS) {
          const sample = SAMPLES[op.name];
          expect(sample, `${op.name} has no sample in test/operation-samples.ts`).toBeDefined();
          // In-process operations have no route: the remote backend refuses them by name.
          if (kind === 'remote' && !ROUTES.some((r) => r.operation === op)) continue;
          const bearer =
            op.caller.kind === 'agent'
              ? agentBearer
              : op.caller.kind === 'none' || op.caller.kind === 'local'
                ? undefined
                : owner;
          seen[kind]![op.name] = await outcome(w, op.name, bearer, sample!.input(ids));
        }
        // Every receipt and audit row the registry's operations left checks out, field by field.
        for (const chain of ['service', 'audit'] as const) {
          expect(w.service.ctx.chains.verifyAll(chain), `${kind} ${chain} chain`).toMatchObject({ ok: true });
        }
      } finally {
        await w.close();
      }
    }
    for (const [name, answer] of Object.entries(seen.local!)) {
      if (answer && (answer as { ok: boolean }).ok) expect(answer, name).toEqual({ ok: true, valid: true });
      if (name in seen.remote!) expect([name, seen.remote![name]]).toEqual([name, answer]);
    }
  });
});

describe('a named handle reaches the route that checks it', () => {
  it.each(['local', 'remote'] as const)('%s: reading as another agent’s handle is refused', async (kind) => {
    const w = await world(kind);
    try {
      const read = w.invoker.invoke(ops.readRows, `Bearer ${w.agentToken}`, {
        handle: 'someone-else',
        table: 'agent_demo_records',
        columns: ['id'],
      });
      await expect(read).rejects.toMatchObject({ code: 'forbidden' });
    } finally {
      await w.close();
    }
  });
});
