// `svc serve`: the HTTP API on a loopback port, with a graceful shutdown.
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { Service } from '../service.ts';
import { createApp } from './app.ts';

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

export async function startServer(options: {
  service: Service;
  host?: string;
  port?: number;
  allowedHosts?: string[];
}): Promise<RunningServer> {
  const app = createApp({ service: options.service, allowedHosts: options.allowedHosts ?? [] });
  const host = options.host ?? '127.0.0.1';
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 8787 }, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${port}`,
    close() {
      // Stop accepting, let requests in flight finish, then release the store.
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
      }).then(() => options.service.close());
      return closing;
    },
  };
}
