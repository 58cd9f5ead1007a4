// `svc mcp --print-config`: ready-to-paste client configuration with absolute paths, so the
// server starts the same from any shell and any working directory.
import { fileURLToPath } from 'node:url';

export const MCP_CLIENTS = ['claude-code', 'claude-desktop', 'cursor', 'vscode', 'codex', 'gemini'] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

export function mcpLaunch(): { command: string; args: string[] } {
  return {
    command: process.execPath,
    args: [fileURLToPath(new URL('../../bin/svc.js', import.meta.url)), 'mcp'],
  };
}

const quote = (s: string) => (/^[\w./@:+-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

/** The configuration text for one client, in that client's own format. */
export function mcpConfig(client: McpClient): string {
  const { command, args } = mcpLaunch();
  // No credential in the config: svc_connect keeps the organization key in the OS keychain.
  const entry = { command, args };
  switch (client) {
    case 'claude-code':
      return `claude mcp add --scope user svc -- ${[command, ...args].map(quote).join(' ')}`;
    case 'vscode':
      return JSON.stringify({ servers: { svc: { type: 'stdio', ...entry } } }, null, 2);
    case 'codex':
      return [
        '[mcp_servers.svc]',
        `command = ${JSON.stringify(command)}`,
        `args = [${args.map((a) => JSON.stringify(a)).join(', ')}]`,
      ].join('\n');
    case 'claude-desktop':
    case 'cursor':
    case 'gemini':
      return JSON.stringify({ mcpServers: { svc: entry } }, null, 2);
  }
}
