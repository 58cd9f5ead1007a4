// MCP over HTTP for `svc serve`: Streamable HTTP at /mcp and the legacy HTTP+SSE transport at
// /sse (+ /messages). The app's Host/Origin guard and body limits apply. Credentials come only
// from each request's bearer, never from the server's environment: any local process can reach
// a loopback port, so the port itself must grant nothing.
import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Invoker } from '../backend/invoke.ts';
import type { Clock } from '../backend/context.ts';
import { API_KEY_PREFIX, AGENT_TOKEN_PREFIX } from '../backend/credentials.ts';
import { createMcpServer } from './server.ts';
import type { GateCheck } from '../backend/gate-check.ts';
import type { ToolDeps } from './registry.ts';

function bearerOf(header: string | undefined): AuthInfo | undefined {
  const token = /^Bearer (\S+)$/i.exec(header?.trim() ?? '')?.[1];
  return token ? { token, clientId: 'bearer', scopes: [] } : undefined;
}

function depsFor(invoker: Invoker, gate: GateCheck | undefined, find: ToolDeps['find']) {
  return (token: string | undefined): Omit<ToolDeps, 'confirm' | 'openUrl' | 'progress' | 'client'> => ({
    invoker,
    gate,
    find,
    credentialSource: 'request',
    ownerBearer: token?.startsWith(API_KEY_PREFIX) ? `Bearer ${token}` : undefined,
    agentBearer: token?.startsWith(AGENT_TOKEN_PREFIX) ? `Bearer ${token}` : undefined,
  });
}

/** Open Streamable HTTP sessions a server keeps at most (docs/MCP.md): any local client can open them. */
export const MAX_SESSIONS = 64;
/** Open legacy SSE streams kept at most: each holds a connection and about 58 KB of memory. */
export const MAX_SSE_SESSIONS = 32;
/** A session that has had no request for this long is closed; its client must initialize again. */
export const SESSION_IDLE_MS = 30 * 60 * 1000;

export interface McpMountOptions {
  /** The time sessions' idleness is measured by: the service's clock, so tests can move it. */
  clock?: Clock;
  /** The read gate of the machine the server runs on. */
  gate?: GateCheck;
  /** Scans on the machine the server runs on. */
  find?: ToolDeps['find'];
}

interface Session<T> {
  transport: T;
  server: Server;
  lastSeen: number;
  /** The client finished the handshake: it sent `notifications/initialized`. */
  settled: boolean;
}

/**
 * The open sessions of one transport, at most `max`. Nothing unauthenticated may hold the service
 * shut: idle sessions close when next looked at or when a session opens, and a session opening at
 * the limit closes another, one that never finished its handshake first (the oldest such), else the
 * one idle longest. Closing a session closes its transport, which ends its streams.
 */
class Sessions<T> {
  private readonly open = new Map<string, Session<T>>();
  private readonly max: number;
  private readonly now: () => number;

  constructor(max: number, now: () => number) {
    this.max = max;
    this.now = now;
  }

  /** The session, marked as used now; undefined when unknown or idle too long (it is closed then). */
  use(id: string): Session<T> | undefined {
    const session = this.open.get(id);
    if (!session) return undefined;
    if (this.now() - session.lastSeen > SESSION_IDLE_MS) {
      this.close(id);
      return undefined;
    }
    session.lastSeen = this.now();
    return session;
  }

  /** Keeps a new session, closing idle ones and, at the limit, the one that matters least. */
  add(id: string, transport: T, server: Server): Session<T> {
    const now = this.now();
    for (const [other, session] of this.open) {
      if (now - session.lastSeen > SESSION_IDLE_MS) this.close(other);
    }
    while (this.open.size >= this.max) this.close(this.leastNeeded()!);
    const session: Session<T> = { transport, server, lastSeen: now, settled: false };
    this.open.set(id, session);
    return session;
  }

  forget(id: string): void {
    this.open.delete(id);
  }

  private leastNeeded(): string | undefined {
    let pick: [string, Session<T>] | undefined;
    for (const entry of this.open) {
      // Map order is opening order: the first unsettled session is the oldest of them.
      if (!entry[1].settled) return entry[0];
      if (!pick || entry[1].lastSeen < pick[1].lastSeen) pick = entry;
    }
    return pick?.[0];
  }

  private close(id: string): void {
    const session = this.open.get(id);
    this.open.delete(id);
    // Closing the server closes its transport, which ends the session's streams.
    void session?.server.close().catch(() => undefined);
  }
}

const jsonRpcError = (code: number, message: string) => ({
  jsonrpc: '2.0',
  error: { code, message },
  id: null,
});

/** The MCP transports as routes of an HTTP app: `svc serve` mounts them beside the API. */
export function mountMcp(
  app: Hono,
  invoker: Invoker,
  { clock = () => new Date(), gate, find }: McpMountOptions = {},
): void {
  const deps = depsFor(invoker, gate, find);
  const now = () => clock().getTime();
  const streams = new Sessions<WebStandardStreamableHTTPServerTransport>(MAX_SESSIONS, now);
  const sse = new Sessions<SSEServerTransport>(MAX_SSE_SESSIONS, now);

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
    const existing = sessionId ? streams.use(sessionId) : undefined;
    if (existing) return existing.transport.handleRequest(c.req.raw, options);
    if (sessionId || c.req.method !== 'POST' || !isInitializeRequest(body)) {
      return c.json(
        jsonRpcError(
          -32000,
          sessionId
            ? 'No such session (sessions close after 30 minutes without a request): initialize again'
            : 'No valid session: start with an initialize request',
        ),
        sessionId ? 404 : 400,
      );
    }
    const server = createMcpServer(deps);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        const session = streams.add(id, transport, server);
        server.oninitialized = () => {
          session.settled = true;
        };
      },
      onsessionclosed: (id) => {
        streams.forget(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) streams.forget(transport.sessionId);
    };
    await server.connect(transport);
    return transport.handleRequest(c.req.raw, options);
  });

  // Legacy HTTP+SSE: the stream is a long-lived node response, so these use the node bindings.
  app.get('/sse', async (c) => {
    const { outgoing } = c.env as HttpBindings;
    const transport = new SSEServerTransport('/messages', outgoing);
    const server = createMcpServer(deps);
    const session = sse.add(transport.sessionId, transport, server);
    server.oninitialized = () => {
      session.settled = true;
    };
    transport.onclose = () => sse.forget(transport.sessionId);
    await server.connect(transport);
    return RESPONSE_ALREADY_SENT;
  });

  app.post('/messages', async (c) => {
    const transport = sse.use(c.req.query('sessionId') ?? '')?.transport;
    if (!transport) {
      return c.json(
        jsonRpcError(
          -32000,
          'No such SSE session (they close after 30 minutes without a message): open GET /sse',
        ),
        404,
      );
    }
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
