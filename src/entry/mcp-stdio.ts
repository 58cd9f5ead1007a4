// `svc mcp`: the MCP tool server over stdio, on the local store or a remote `svc serve`. In local
// mode the approval page of svc_connect is served from this process, on loopback, when needed.
// A client starts it in its critical path and lists the tools first: until the first tool call,
// only the SDK's server and the listing load (docs/MCP.md, Start-up).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from '../tools/server.ts';
import type { StdioTools } from './mcp-stdio-tools.ts';

// For the bundle's builder, which has the server answer a client's first messages (hook-bundle.ts).
export { createMcpServer };

/** Serves until stdin ends or a signal arrives; then `onStop` runs. */
export async function serveMcpOverStdio(onStop: () => void): Promise<void> {
  let tools: Promise<StdioTools> | undefined;
  const toolsOfThisComputer = () =>
    (tools ??= import('./mcp-stdio-tools.ts').then(({ stdioTools }) => stdioTools()));
  const server = createMcpServer(async () => (await toolsOfThisComputer()).deps());
  const stop = () => {
    void server.close().finally(async () => {
      if (tools) await (await tools).close();
      onStop();
    });
  };
  process.stdin.once('end', stop);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await server.connect(new StdioServerTransport());
}
