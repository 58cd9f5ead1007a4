// `svc mcp --print-config`: ready-to-paste client configuration with absolute paths and the store
// variables set here, so the server starts the same, on the same store, from any shell and folder.
import { shellQuote, storeEnvironment, svcArgv } from '../config/command.ts';

export const MCP_CLIENTS = ['claude-code', 'claude-desktop', 'cursor', 'vscode', 'codex', 'gemini'] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

export function mcpLaunch(): { command: string; args: string[] } {
  const [command, ...args] = svcArgv('mcp');
  return { command: command!, args };
}

/**
 * The configuration text for one client, in that client's own format. The store variables set
 * here (SVC_HOME, SVC_VAULT) go in the client's environment for the server, so that it uses the
 * store this command does, whatever the client's own environment.
 */
export function mcpConfig(client: McpClient, env: NodeJS.ProcessEnv = process.env): string {
  const { command, args } = mcpLaunch();
  const variables = storeEnvironment(env);
  const named = Object.keys(variables).length > 0;
  // No credential in the config: svc_connect keeps the organization key in the OS keychain.
  const entry = named ? { command, args, env: variables } : { command, args };
  switch (client) {
    case 'claude-code':
      return [
        'claude mcp add --scope user svc',
        ...Object.entries(variables).map(([name, value]) => `-e ${shellQuote(`${name}=${value}`)}`),
        '--',
        ...[command, ...args].map(shellQuote),
      ].join(' ');
    case 'vscode':
      return JSON.stringify({ servers: { svc: { type: 'stdio', ...entry } } }, null, 2);
    case 'codex':
      return [
        '[mcp_servers.svc]',
        `command = ${JSON.stringify(command)}`,
        `args = [${args.map((a) => JSON.stringify(a)).join(', ')}]`,
        // A TOML inline table; a JSON string is a TOML basic string.
        ...(named
          ? [
              `env = { ${Object.entries(variables)
                .map(([name, value]) => `${name} = ${JSON.stringify(value)}`)
                .join(', ')} }`,
            ]
          : []),
      ].join('\n');
    case 'claude-desktop':
    case 'cursor':
    case 'gemini':
      return JSON.stringify({ mcpServers: { svc: entry } }, null, 2);
  }
}
