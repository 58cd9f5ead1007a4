// `svc serve`: the HTTP API on a loopback port, with a graceful shutdown.
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { Service } from '../backend/service.ts';
import { createApp, type Mount } from './app.ts';

/** How long requests in flight may take to finish after a shutdown begins. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

export async function startServer(options: {
  service: Service;
  host?: string;
  port?: number;
  allowedHosts?: string[];
  publicHosts?: string[];
  publicPaths?: RegExp;
  mounts?: Mount[];
  /** Whether close() also closes the service (default); false when the caller keeps using it. */
  closeService?: boolean;
}): Promise<RunningServer> {
  const app = createApp({
    service: options.service,
    allowedHosts: options.allowedHosts ?? [],
    publicHosts: options.publicHosts ?? [],
    ...(options.publicPaths ? { publicPaths: options.publicPaths } : {}),
    mounts: options.mounts ?? [],
  });
  const host = options.host ?? '127.0.0.1';
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 8787 }, () => resolve(s));
    s.once('error', reject);
  });
  // Once stopping, no kept-alive connection outlives its last response, so clients cannot hold the
  // server open; a deadline ends any connection still open after the grace period.
  let stopping = false;
  // Opt-in (docs/CLI.md): a test that must act while a request is in flight waits for this line
  // instead of guessing a delay. The path only, as a query string may carry a credential.
  const traceRequests = process.env.SVC_DEBUG_REQUESTS === '1';
  server.on('request', (request, response: import('node:http').ServerResponse) => {
    if (traceRequests) process.stderr.write(`svc: request ${request.method} ${request.url?.split('?')[0]}\n`);
    if (stopping) response.setHeader('connection', 'close');
    // A request that began before the shutdown leaves its connection idle when it finishes: close it.
    response.once('finish', () => {
      if (stopping)
        setImmediate(() => (server as unknown as import('node:http').Server).closeIdleConnections());
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${port}`,
    close() {
      // Stop accepting, let requests in flight finish, then release the store.
      stopping = true;
      closing ??= new Promise<void>((resolve) => {
        const http = server as unknown as import('node:http').Server;
        server.close(() => resolve());
        http.closeIdleConnections();
        setTimeout(() => http.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
      }).then(() => {
        if (options.closeService !== false) options.service.close();
      });
      return closing;
    },
  };
}
