// Where a tool's credential comes from, and the tool errors that say what to do without one, with
// one of the wrong form, or with one the service refused.
import type { CredentialTag, ToolDeps } from './registry.ts';
import { svcCommand } from '../config/command.ts';
import { credentialKind } from '../backend/credential-form.ts';
import { ServiceError } from '../backend/errors.ts';

export class MissingCredential extends Error {}

type Which = 'owner' | 'agent';

/**
 * Over stdio a credential is what the person set in the server's environment, so a refusal names
 * that variable: the service's own message is written for every caller and cannot.
 */
function origin(deps: ToolDeps, which: Which): string {
  if (which === 'agent') return 'SVC_AGENT_TOKEN in the MCP server environment';
  return deps.ownerSource === 'keychain'
    ? 'the key svc_connect kept'
    : 'SVC_API_KEY in the MCP server environment';
}

/**
 * What to do about a credential of this server that is not one, or that the service refused, by
 * where it came from. A key of the wrong form may be the first one ever set, so that remedy also
 * says how to make an organization.
 */
function remedy(deps: ToolDeps, which: Which, firstKey = false): string {
  if (which === 'agent') return 'set SVC_AGENT_TOKEN to the grant_token that svc_grant returned';
  if (deps.ownerSource === 'keychain') {
    return 'call svc_connect to link this computer again, or set SVC_API_KEY to a current organization key';
  }
  const made = firstKey
    ? ` (\`${svcCommand('org', 'create', '--name', 'NAME')}\` makes an organization and prints its key)`
    : '';
  return `set SVC_API_KEY to a current organization key${made}, or remove it and link this computer with svc_connect`;
}

/**
 * Why a credential of this server cannot be the one asked for, by its form alone: over stdio it
 * is refused here, naming its variable, before any call. Over HTTP the request's bearer is the
 * caller's, refused by the service in the words of HTTP.
 */
export function credentialFormProblem(deps: ToolDeps, which: Which): string | undefined {
  const bearer = which === 'owner' ? deps.ownerBearer : deps.agentBearer;
  if (!bearer || deps.credentialSource !== 'environment') return undefined;
  const kind = credentialKind(bearer.replace(/^Bearer /, ''));
  const wanted = which === 'owner' ? 'org_key' : 'agent_token';
  if (kind === wanted) return undefined;
  const from = origin(deps, which);
  if (kind === 'agent_token') {
    return `${from} holds an agent grant token (ndca-), not an organization key: an agent's token goes in SVC_AGENT_TOKEN; ${remedy(deps, which)}`;
  }
  if (kind === 'org_key') {
    return `${from} holds an organization key (ndp_), not an agent grant token: the key goes in SVC_API_KEY; ${remedy(deps, which)}`;
  }
  return which === 'owner'
    ? `${from} is not an organization key (ndp_ and 43 letters, digits, - or _): ${remedy(deps, which, true)}`
    : `${from} is not an agent grant token (ndca- and 43 letters, digits, - or _): ${remedy(deps, which)}`;
}

/**
 * The line a tool error adds when the service refused this server's credential (`unauthorized`):
 * over stdio, where the credential came from and how to change it; nothing over HTTP.
 */
export function refusedCredentialHint(deps: ToolDeps, tag: CredentialTag): string | undefined {
  if (deps.credentialSource !== 'environment') return undefined;
  const carried: Which[] =
    tag === 'owner'
      ? ['owner']
      : tag === 'grant'
        ? ['agent']
        : (['owner', 'agent'] as const).filter((w) => (w === 'owner' ? deps.ownerBearer : deps.agentBearer));
  if (carried.length === 0) return undefined;
  return carried
    .map(
      (w) =>
        `The ${w === 'owner' ? 'organization key' : 'agent grant token'} is ${origin(deps, w)}: ${remedy(deps, w)}.`,
    )
    .join(' ');
}

/** A credential of this server refused for its form, before any call: it names its own remedy. */
export class MalformedCredential extends ServiceError {
  constructor(message: string) {
    super('unauthorized', message);
  }
}

const refuseForm = (problem: string | undefined) => {
  if (problem) throw new MalformedCredential(problem);
};

/** The organization key's bearer, or the tool error that says how to configure one. */
export function ownerOf(deps: ToolDeps): string {
  if (!deps.ownerBearer) {
    throw new MissingCredential(
      `This tool needs an organization key. Run svc_connect to link this computer to your organization, or set SVC_API_KEY in the MCP server environment to a key that \`${svcCommand('org', 'create', '--name', 'NAME')}\` printed.`,
    );
  }
  refuseForm(credentialFormProblem(deps, 'owner'));
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
  refuseForm(credentialFormProblem(deps, 'agent'));
  return deps.agentBearer;
}
