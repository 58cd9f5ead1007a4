// The server answers tools/list from src/tools/tool-list.json and loads the tools with the first
// call: the file must be what the declarations produce, and the server must list, check input and
// check structuredContent as the SDK's McpServer.registerTool would for the same tools (refused
// input in its form, in the core's words for each field).
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import prettier from 'prettier';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ToolDefinition } from '../../src/tools/registry.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { createMcpServer } from '../../src/tools/server.ts';
import { toolListJson } from '../../src/tools/tool-list.ts';

// Two tools whose answers break their output schema, to compare how the answer check words it.
vi.mock('../../src/tools/index.ts', async (importOriginal) => {
  const { TOOLS: real } = await importOriginal<{ TOOLS: ToolDefinition[] }>();
  const answers: Record<string, unknown> = { svc_get_started: { unexpected: true }, svc_connect: undefined };
  return {
    TOOLS: real.map((tool) =>
      tool.name in answers
        ? { ...tool, handler: () => ({ text: 'answered', structured: answers[tool.name] }) }
        : tool,
    ),
  };
});

/** The same tools registered the way the SDK documents, as the reference. */
function registeredTheSdkWay(): McpServer {
  const server = new McpServer({ name: 'svc', version: '0.1.0' });
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        annotations: { title: tool.title, ...tool.annotations },
      },
      async (input: unknown) => {
        const result = await tool.handler(input as never, undefined as never);
        return {
          content: [{ type: 'text' as const, text: result.text }],
          structuredContent: result.structured as Record<string, unknown>,
        };
      },
    );
  }
  return server;
}

async function clientOf(server: Server | McpServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'tool-list', version: '1' });
  await client.connect(clientSide);
  return client;
}

// No real handler runs in these cases, so the tools get no service.
const svc = () =>
  clientOf(
    createMcpServer(() => ({
      invoker: undefined as never,
      ownerBearer: undefined,
      agentBearer: undefined,
      credentialSource: 'environment',
    })),
  );

describe('tool-list.json', () => {
  it('is what the declarations list (run `npm run docs:tools` after changing tools)', async () => {
    const file = new URL('../../src/tools/tool-list.json', import.meta.url);
    const options = { ...(await prettier.resolveConfig(file)), parser: 'json' };
    expect(readFileSync(file, 'utf8')).toBe(await prettier.format(toolListJson(TOOLS), options));
  });

  it('is served as McpServer.registerTool lists the same tools, byte for byte', async () => {
    const [ours, reference] = await Promise.all([svc(), clientOf(registeredTheSdkWay())]);
    const listed = await ours.listTools();
    expect(JSON.stringify(listed)).toBe(JSON.stringify(await reference.listTools()));
    expect(listed.tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    expect(ours.getServerCapabilities()).toEqual(reference.getServerCapabilities());
  });
});

describe('tools/call checks as McpServer does', () => {
  type Call = { name: string; arguments?: Record<string, unknown> };
  const cases: [string, Call][] = [
    ['an unknown tool', { name: 'svc_nothing', arguments: {} }],
    ['an answer that breaks the output schema', { name: 'svc_get_started', arguments: {} }],
    ['an answer without structured content', { name: 'svc_connect', arguments: {} }],
  ];
  it.each(cases)('%s', async (_, call) => {
    const [ours, reference] = await Promise.all([svc(), clientOf(registeredTheSdkWay())]);
    const expected = await reference.callTool(call);
    expect(expected.isError).toBe(true);
    expect(await ours.callTool(call)).toEqual(expected);
  });

  // Refused input is answered in the same form, with the core's words for what each field takes
  // (src/backend/input-messages.ts) where McpServer gives zod's.
  const refusedInput: [string, Call, string][] = [
    [
      'input of the wrong type',
      { name: 'svc_decide', arguments: { columns: 5 } },
      '`columns` must be an array',
    ],
    ['no arguments where some are required', { name: 'svc_revoke' }, '`target` is required'],
    [
      'an argument the schema does not know',
      { name: 'svc_connect', arguments: { extra: 1 } },
      'unknown field `extra`: remove it',
    ],
  ];
  it.each(refusedInput)('%s', async (_, call, words) => {
    const [ours, reference] = await Promise.all([svc(), clientOf(registeredTheSdkWay())]);
    const expected = await reference.callTool(call);
    const answer = await ours.callTool(call);
    expect(expected.isError).toBe(true);
    const form = (text: string) => text.slice(0, text.indexOf(`tool ${call.name}: `));
    const [ourText, theirText] = [answer, expected].map((a) => (a.content as { text: string }[])[0]!.text);
    expect(answer).toEqual({ ...expected, content: [{ type: 'text', text: ourText }] });
    expect(form(ourText!)).toBe(form(theirText!));
    expect(ourText).toContain(words);
  });
});
