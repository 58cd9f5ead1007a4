// The MCP server: registers every implemented tool on the SDK's McpServer, with its credential
// check and one mapping from core errors to tool errors.
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { ServiceError } from '../backend/errors.ts';
import { checkJsonShape } from '../backend/json-shape.ts';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { MissingCredential, agentOf, ownerOf, ownerOrAgent } from './credentials.ts';
import { VaultError } from '../vault/index.ts';
import { TOOLS } from './index.ts';
import type { ToolDeps } from './registry.ts';

export const SERVER_NAME = 'svc';
export const SERVER_VERSION = '0.1.0';

/** What the SDK hands a tool callback besides its arguments (the parts svc uses). */
interface ToolExtra {
  authInfo?: { token?: string };
  _meta?: { progressToken?: string | number };
  sendNotification(notification: ServerNotification): Promise<void>;
}

/** A tool error is a result the model reads: what went wrong and what to do next. */
function toolError(error: unknown): CallToolResult {
  let text: string;
  if (error instanceof MissingCredential) text = error.message;
  else if (error instanceof ServiceError) {
    // Local refusals and a remote service's error bodies arrive as the same typed error.
    const { error: code, message, ...details } = error.toBody();
    const extra = Object.keys(details).length ? `\n${JSON.stringify(details)}` : '';
    text = `${String(code)}: ${String(message)}${extra}`;
  } else if (error instanceof VaultError) {
    text = `key_store_unavailable: ${error.message}`;
  } else {
    console.error('[svc mcp] tool failed:', error);
    text = 'internal: the tool failed unexpectedly; it was logged on the server';
  }
  return { isError: true, content: [{ type: 'text', text }] };
}

/**
 * One MCP server with every implemented tool. `deps` is called per tool call with the bearer the
 * transport authenticated, if any (HTTP transports); stdio passes none and reads its environment.
 */
export function createMcpServer(
  deps: (bearerToken: string | undefined) => Omit<ToolDeps, 'confirm' | 'openUrl' | 'progress'>,
): McpServer {
  const server = new McpServer({ name: SERVER_NAME, version: SERVER_VERSION });
  const confirm: ToolDeps['confirm'] = async (message) => {
    // A client that declares elicitation without naming modes does forms (the original mode).
    const elicitation = server.server.getClientCapabilities()?.elicitation as
      { form?: object; url?: object } | undefined;
    if (!elicitation || (!elicitation.form && elicitation.url)) return 'unsupported';
    const answer = await server.server.elicitInput({
      message,
      requestedSchema: {
        type: 'object',
        properties: { confirm: { type: 'boolean', title: 'Go ahead', description: message } },
        required: ['confirm'],
      },
    });
    return answer.action === 'accept' && answer.content?.confirm === true ? 'accepted' : 'declined';
  };
  const openUrl: ToolDeps['openUrl'] = async (message, url) => {
    const elicitation = server.server.getClientCapabilities()?.elicitation as { url?: object } | undefined;
    if (!elicitation?.url) return 'unsupported';
    const answer = await server.server.elicitInput({
      mode: 'url',
      message,
      url,
      elicitationId: randomUUID(),
    });
    return answer.action === 'accept' ? 'accepted' : 'declined';
  };
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
      async (input: unknown, extra: ToolExtra): Promise<CallToolResult> => {
        const token = extra._meta?.progressToken;
        const progress: ToolDeps['progress'] = async (done, total, message) => {
          if (token === undefined) return;
          await extra.sendNotification({
            method: 'notifications/progress',
            params: {
              progressToken: token,
              progress: done,
              ...(total === undefined ? {} : { total }),
              message,
            },
          });
        };
        try {
          const toolDeps: ToolDeps = { ...deps(extra.authInfo?.token), confirm, openUrl, progress };
          // The credential tag is enforced here, for every tool, before its handler runs.
          if (tool.credential === 'owner') ownerOf(toolDeps);
          if (tool.credential === 'grant') agentOf(toolDeps);
          if (tool.credential === 'owner or grant') ownerOrAgent(toolDeps);
          const result = await tool.handler(input as never, toolDeps);
          return {
            content: [{ type: 'text', text: result.text }],
            structuredContent: result.structured as Record<string, unknown>,
          };
        } catch (error) {
          return toolError(error);
        }
      },
    );
  }
  guardArguments(server);
  return server;
}

/**
 * Tool arguments are checked for shape as they arrive, before the SDK's schemas see them: a schema
 * drops a `__proto__` key without a word (a grant's `where` filter would silently vanish), so the
 * check that every other adapter makes in the core (json-shape.ts) must happen here, on the
 * message. A refused call is a tool error like any other, and nothing runs.
 */
function guardArguments(server: McpServer): void {
  const connect = server.connect.bind(server);
  server.connect = async (transport: Transport) => {
    await connect(transport);
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if ('method' in message && message.method === 'tools/call' && 'id' in message) {
        try {
          checkJsonShape(message.params?.arguments);
        } catch (error) {
          void transport.send(
            { jsonrpc: '2.0', id: message.id, result: toolError(error) },
            { relatedRequestId: message.id },
          );
          return;
        }
      }
      deliver?.(message, extra);
    };
  };
}
