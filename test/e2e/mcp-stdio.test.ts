// The real `svc mcp` process over stdio, driven by the MCP SDK's own Client: initialize, probes
// before and after, tools/list, a call of every registered tool (structuredContent checked
// against its outputSchema by the client), credential errors and bad input as tool errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { EmptyResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers.ts';
import { Service } from '../../src/backend/service.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { serve } from '../../src/entry/serve.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { runEveryTool, startEchoApi } from '../tools/scenario.ts';

const BIN = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const home = tempDir();
let apiKey: string;
let agentToken: string;
const clients: Client[] = [];
let shared: Client | undefined;

// These children get only the variables named here, so the runner's SVC_VAULT is restated.
async function connect(env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    env: { PATH: process.env.PATH ?? '', SVC_HOME: home.dir, SVC_VAULT: 'file', ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

beforeAll(async () => {
  const service = new Service({ dataDir: home.dir });
  const org = await service.invoke(ops.createOrg, undefined, { name: 'Acme' });
  apiKey = org.api_key;
  const grant = await service.invoke(ops.createGrant, `Bearer ${apiKey}`, {
    agent: 'Helper',
    columns: ['id', 'region', 'email'],
  });
  agentToken = grant.grant_token;
  service.close();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  home.cleanup();
});

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');
}

describe('svc mcp over stdio', () => {
  it('answers ping and refuses unknown methods (-32601) after initialize, and stays alive', async () => {
    const client = await connect({ SVC_API_KEY: apiKey });
    await expect(client.request({ method: 'ping' }, EmptyResultSchema)).resolves.toEqual({});
    const unknown = await client
      .request({ method: 'server/discover' }, EmptyResultSchema)
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(McpError);
    expect((unknown as McpError).code).toBe(-32601);
    await expect(client.request({ method: 'ping' }, EmptyResultSchema)).resolves.toEqual({});
    expect(client.getServerVersion()).toMatchObject({ name: 'svc' });
  });

  it('lists every registered tool with its schemas and explicit annotations', async () => {
    const client = await connect({ SVC_API_KEY: apiKey });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    for (const tool of tools) {
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.inputSchema.type).toBe('object');
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
        expect(typeof tool.annotations?.[hint], `${tool.name}.${hint}`).toBe('boolean');
      }
    }
  });

  it('calls every tool; each structuredContent matches its outputSchema', async () => {
    const api = await startEchoApi();
    try {
      const client = await connect({ SVC_API_KEY: apiKey, SVC_AGENT_TOKEN: agentToken });
      await runEveryTool(client, (token) => connect({ SVC_AGENT_TOKEN: token }), {
        serviceKind: 'local',
        apiUrl: api.url,
      });
      expect(api.calls).toHaveLength(3);
    } finally {
      await api.close();
    }
  });

  it('with SVC_BASE_URL the same process talks to a remote svc serve', async () => {
    const remote = await serve({ service: new Service({ dataDir: home.dir }), port: 0 });
    try {
      const client = await connect({ SVC_BASE_URL: remote.url, SVC_API_KEY: apiKey });
      await client.listTools();
      const started = await client.callTool({ name: 'svc_get_started', arguments: {} });
      expect(started.structuredContent).toMatchObject({
        service: { kind: 'remote', base_url: remote.url, data_dir: null },
      });
      const policy = await client.callTool({ name: 'svc_policy', arguments: {} });
      expect(policy.isError).toBeFalsy();
      expect((policy.structuredContent as { count: number }).count).toBeGreaterThan(0);
      await client.close();
    } finally {
      await remote.close();
    }
  });

  it('a tool without its credential answers a tool error that says what to do', async () => {
    const client = await connect({});
    const owner = await client.callTool({ name: 'svc_policy', arguments: {} });
    expect(owner.isError).toBe(true);
    expect(text(owner)).toMatch(/SVC_API_KEY/);
    const agent = await client.callTool({ name: 'svc_decide', arguments: {} });
    expect(agent.isError).toBe(true);
    expect(text(agent)).toMatch(/SVC_AGENT_TOKEN/);
    const open = await client.callTool({
      name: 'svc_verify',
      arguments: { proof_id: 'rcpt_1_00000000000000000000000000000000' },
    });
    expect(open.isError).toBeFalsy();
    expect(open.structuredContent).toMatchObject({ authentic: false, found: false });
  });

  it('refusals from the core are tool errors with their code and details', async () => {
    const client = await connect({ SVC_AGENT_TOKEN: agentToken });
    const refused = await client.callTool({
      name: 'svc_read',
      arguments: { table: 'agent_demo_records', columns: ['id', 'balance'] },
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^scope_violation: .*balance/);
    expect(text(refused)).toContain('"denied_columns":["balance"]');
  });

  it('a `__proto__` key nested in svc_grant’s where, a lone surrogate or a 100-deep value is a tool error before any schema: no agent is made', async () => {
    const client = await connect({ SVC_API_KEY: apiKey });
    const before = (await client.callTool({ name: 'svc_policy', arguments: {} })).structuredContent as {
      count: number;
    };
    for (const [args, says] of [
      ['{"agent":"Narrow","columns":["id"],"where":{"__proto__":{"region":"eu"}}}', /where\.__proto__/],
      ['{"agent":"Bad \\ud800 text","columns":["id"]}', /agent: is not well-formed Unicode/],
      [
        `{"agent":"Deep","columns":["id"],"where":{"region":${'['.repeat(100)}${']'.repeat(100)}}}`,
        /deeper than 64/,
      ],
    ] as const) {
      // Parsed from JSON text, as a client's message is: `__proto__` is an own key here.
      const result = await client.callTool({ name: 'svc_grant', arguments: JSON.parse(args) as never });
      expect(result.isError, JSON.stringify(result).slice(0, 300)).toBe(true);
      expect(text(result)).toMatch(/^invalid_request: /);
      expect(text(result)).toMatch(says);
    }
    const after = (await client.callTool({ name: 'svc_policy', arguments: {} })).structuredContent as {
      count: number;
    };
    expect(after.count).toBe(before.count);
  });

  it.each(TOOLS.filter((t) => Object.keys(t.inputSchema.shape).length > 0).map((t) => [t.name]))(
    '%s: unknown, ill-typed and oversized arguments are tool errors; the session lives on',
    async (name) => {
      shared ??= await connect({ SVC_API_KEY: apiKey, SVC_AGENT_TOKEN: agentToken });
      const huge = 'x'.repeat(200_000);
      const tool = TOOLS.find((t) => t.name === name)!;
      const keys = Object.keys(tool.inputSchema.shape);
      for (const args of [
        { __unknown: 1 },
        Object.fromEntries(keys.map((k) => [k, { not: 'the right type' }])),
        // Oversized values under the tool's own argument names: the length limits must hold.
        Object.fromEntries(keys.map((k) => [k, huge])),
      ]) {
        const result = await shared.callTool({ name, arguments: args });
        expect(result.isError, JSON.stringify(result).slice(0, 200)).toBe(true);
        expect(text(result).length).toBeGreaterThan(10);
      }
      await expect(shared.request({ method: 'ping' }, EmptyResultSchema)).resolves.toEqual({});
    },
  );

  it('before initialize: ping answers an empty result and unknown methods -32601', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp'], {
      env: { PATH: process.env.PATH ?? '', SVC_HOME: home.dir, SVC_VAULT: 'file' },
    });
    const lines: Record<string, unknown>[] = [];
    // Settled by the stdout handler as the third answer line arrives; the timer is only a deadline.
    const threeAnswers = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('svc mcp did not answer three requests in 10 s')),
        10_000,
      );
      let buffer = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
          lines.push(JSON.parse(buffer.slice(0, at)) as Record<string, unknown>);
          buffer = buffer.slice(at + 1);
        }
        if (lines.length >= 3) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`svc mcp exited (code ${code}, signal ${signal}) after ${lines.length} answers`));
      });
    });
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({ jsonrpc: '2.0', id: 1, method: 'server/discover' });
    send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    send({
      jsonrpc: '2.0',
      id: 3,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    try {
      await threeAnswers;
      expect(lines.find((l) => l.id === 1)).toMatchObject({ error: { code: -32601 } });
      expect(lines.find((l) => l.id === 2)).toMatchObject({ result: {} });
      expect(lines.find((l) => l.id === 3)).toMatchObject({ result: { serverInfo: { name: 'svc' } } });
    } finally {
      child.kill();
    }
  });
});
