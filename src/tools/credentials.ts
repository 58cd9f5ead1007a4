// Where a tool's credential comes from, and the tool error that says what to do without one.
import type { ToolDeps } from './registry.ts';
import { svcCommand } from '../config/command.ts';

export class MissingCredential extends Error {}

/** The organization key's bearer, or the tool error that says how to configure one. */
export function ownerOf(deps: ToolDeps): string {
  if (!deps.ownerBearer) {
    throw new MissingCredential(
      `This tool needs an organization key. Run svc_connect to link this computer to your organization, or set SVC_API_KEY in the MCP server environment to a key that \`${svcCommand('org', 'create', '--name', 'NAME')}\` printed.`,
    );
  }
  return deps.ownerBearer;
}

/** Either credential is present, or the tool error that says how to configure one. */
export function ownerOrAgent(deps: ToolDeps): void {
  if (!deps.ownerBearer && !deps.agentBearer) {
    throw new MissingCredential(
      `This tool needs an organization key (links) or an agent grant token (envelopes to a Fabric address). Run svc_connect or set SVC_API_KEY in the MCP server environment for the key; set SVC_AGENT_TOKEN to the token svc_grant returned for the agent.`,
    );
  }
}

/** The agent grant token's bearer, or the tool error that says how to configure one. */
export function agentOf(deps: ToolDeps): string {
  if (!deps.agentBearer) {
    throw new MissingCredential(
      'This tool needs an agent grant token. Set SVC_AGENT_TOKEN in the MCP server environment to the token svc_grant returned.',
    );
  }
  return deps.agentBearer;
}
