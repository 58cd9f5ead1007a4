// `svc serve`: the HTTP API with its mounts, the MCP transports, the approval page and the share
// pages (links and exposures).
import type { Service } from '../backend/service.ts';
import { startServer, type RunningServer } from '../http/server.ts';
import { mountConnectPages } from '../http/connect-pages.ts';
import { PUBLIC_PATHS, mountLinkPages } from '../http/link-pages.ts';
import { mountExposePages } from '../http/expose-pages.ts';
import { mountMcp } from '../tools/http.ts';
import { GateCheck } from '../backend/gate-check.ts';

export function serve(options: {
  service: Service;
  host?: string;
  port?: number;
  allowedHosts?: string[];
  /** Where people outside this machine reach the share pages (SVC_PUBLIC_URL), when they can. */
  publicUrl?: string | undefined;
  closeService?: boolean;
}): Promise<RunningServer> {
  const { invoker, ctx, dataDir } = options.service;
  // The gate of this machine, for svc's own tools served here; it watches rule files while it runs.
  const gate = new GateCheck({ dataDir, core: () => ctx });
  return startServer({
    ...options,
    publicHosts: options.publicUrl ? [new URL(options.publicUrl).hostname] : [],
    publicPaths: PUBLIC_PATHS,
    mounts: [
      (app) =>
        mountMcp(app, invoker, {
          clock: ctx.clock,
          gate,
          find: async () => (await import('../backend/scan.ts')).finderOf(ctx),
        }),
      (app) => mountConnectPages(app, invoker, { clock: ctx.clock }),
      (app) => mountLinkPages(app, invoker),
      (app) => mountExposePages(app, invoker),
    ],
  });
}
