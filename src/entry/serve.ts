// `svc serve`: the HTTP API with its mounts, the MCP transports and the approval page.
import type { Service } from '../backend/service.ts';
import { startServer, type RunningServer } from '../http/server.ts';
import { mountConnectPages } from '../http/connect-pages.ts';
import { mountMcp } from '../tools/http.ts';

export function serve(options: {
  service: Service;
  host?: string;
  port?: number;
  allowedHosts?: string[];
  closeService?: boolean;
}): Promise<RunningServer> {
  const { invoker, ctx } = options.service;
  return startServer({
    ...options,
    mounts: [
      (app) => mountMcp(app, invoker, { clock: ctx.clock }),
      (app) => mountConnectPages(app, invoker, { clock: ctx.clock }),
    ],
  });
}
