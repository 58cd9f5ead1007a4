// MCP over HTTP for `svc serve`: Streamable HTTP at /mcp and the legacy HTTP+SSE transport at
// /sse (+ /messages). The app's Host/Origin guard and body limits apply. Credentials come only
// from each request's bearer, never from the server's environment: any local process can reach
// a loopback port, so the port itself must grant nothing.
import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Invoker } from '../backend/invoke.ts';
import { API_KEY_PREFIX, AGENT_TOKEN_PREFIX } from '../backend/credentials.ts';
import { createMcpServer } from './server.ts';
import type { ToolDeps } from './registry.ts';

function bearerOf(header: string | undefined): AuthInfo | undefined {
  const token = /^Bearer (\S+)$/i.exec(header?.trim() ?? '')?.[1];
  return token ? { token, clientId: 'bearer', scopes: [] } : undefined;
}

function depsFor(invoker: Invoker) {
  return (token: string | undefined): Omit<ToolDeps, 'confirm' | 'openUrl' | 'progress'> => ({
    invoker,
    credentialSource: 'request',
    ownerBearer: token?.startsWith(API_KEY_PREFIX) ? `Bearer ${token}` : undefined,
    agentBearer: token?.startsWith(AGENT_TOKEN_PREFIX) ? `Bearer ${token}` : undefined,
  });
}

/** Open Streamable HTTP sessions a server keeps at most: any local client can open them. */
const MAX_SESSIONS = 64;

const jsonRpcError = (code: number, message: string) => ({
  jsonrpc: '2.0',
  error: { code, message },
  id: null,
});

/** The MCP transports as routes of an HTTP app: `svc serve` mounts them beside the API. */
export function mountMcp(app: Hono, invoker: Invoker): void {
  const deps = depsFor(invoker);
  const streams = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();

  app.all('/mcp', async (c) => {
    let body: unknown;
    if (c.req.method === 'POST') {
      try {
        body = await c.req.json();
      } catch {
        return c.json(jsonRpcError(-32700, 'Parse error: the body is not JSON'), 400);
      }
    }
    const options = { parsedBody: body, authInfo: bearerOf(c.req.header('authorization')) };
    const sessionId = c.req.header('mcp-session-id');
    const existing = sessionId ? streams.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(c.req.raw, options);
    if (!sessionId && streams.size >= MAX_SESSIONS) {
      return c.json(jsonRpcError(-32000, 'Too many open sessions: close one and retry'), 503);
    }
    if (sessionId || c.req.method !== 'POST' || !isInitializeRequest(body)) {
      return c.json(
        jsonRpcError(-32000, 'No valid session: start with an initialize request'),
        sessionId ? 404 : 400,
      );
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        streams.set(id, transport);
      },
      onsessionclosed: (id) => {
        streams.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) streams.delete(transport.sessionId);
    };
    await createMcpServer(deps).connect(transport);
    return transport.handleRequest(c.req.raw, options);
  });

  // Legacy HTTP+SSE: the stream is a long-lived node response, so these use the node bindings.
  app.get('/sse', async (c) => {
    const { outgoing } = c.env as HttpBindings;
    const transport = new SSEServerTransport('/messages', outgoing);
    sse.set(transport.sessionId, transport);
    transport.onclose = () => sse.delete(transport.sessionId);
    await createMcpServer(deps).connect(transport);
    return RESPONSE_ALREADY_SENT;
  });

  app.post('/messages', async (c) => {
    const transport = sse.get(c.req.query('sessionId') ?? '');
    if (!transport) return c.json(jsonRpcError(-32000, 'No such SSE session: open GET /sse first'), 404);
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json(jsonRpcError(-32700, 'Parse error: the body is not JSON'), 400);
    }
    const { incoming, outgoing } = c.env as HttpBindings;
    (incoming as IncomingMessage & { auth?: AuthInfo }).auth = bearerOf(c.req.header('authorization'));
    await transport.handlePostMessage(incoming, outgoing, body);
    return RESPONSE_ALREADY_SENT;
  });
}
