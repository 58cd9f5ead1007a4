// `svc serve`: the HTTP API with its mounts, the MCP transports and the approval page.
import type { Service } from '../backend/service.ts';
import { startServer, type RunningServer } from '../http/server.ts';
import { mountConnectPages } from '../http/connect-pages.ts';
import { mountMcp } from '../tools/http.ts';
import { GateCheck } from '../backend/gate-check.ts';

export function serve(options: {
  service: Service;
  host?: string;
  port?: number;
  allowedHosts?: string[];
  closeService?: boolean;
}): Promise<RunningServer> {
  const { invoker, ctx, dataDir } = options.service;
  // The gate of this machine, for svc's own tools served here; it watches rule files while it runs.
  const gate = new GateCheck({ dataDir, core: () => ctx });
  return startServer({
    ...options,
    mounts: [
      (app) =>
        mountMcp(app, invoker, {
          clock: ctx.clock,
          gate,
          scan: async (path, options) => (await import('../backend/scan.ts')).scanPath(ctx, path, options),
          redact: async (path, options) =>
            (await import('../backend/redact.ts')).redactPath(ctx, path, options),
        }),
      (app) => mountConnectPages(app, invoker, { clock: ctx.clock }),
    ],
  });
}
