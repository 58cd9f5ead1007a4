// Setup tools: the first call, which tells the model what this computer has and what to do next.
import { z } from 'zod';
import { ServiceError } from '../backend/errors.ts';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { defineTool, type ToolDeps } from './registry.ts';
import { ownerOf } from './credentials.ts';
import { machineFacts } from '../config/machine.ts';

const CredentialState = z.object({
  present: z.boolean(),
  source: z.enum(['SVC_API_KEY', 'SVC_AGENT_TOKEN']).nullable(),
  valid: z.boolean(),
  problem: z.string().nullable(),
});

const GettingStarted = z.object({
  data_dir: z.string(),
  key_store: z.object({ kind: z.literal('file'), location: z.string() }),
  organization_key: CredentialState.extend({
    org_id: z.string().nullable(),
    org_name: z.string().nullable(),
    scopes: z.array(z.string()),
  }),
  agent_token: CredentialState.extend({
    handle: z.string().nullable(),
    table: z.string().nullable(),
    columns: z.array(z.string()),
    expires_at: z.string().nullable(),
  }),
  agents: z.number().int().nullable(),
  tables: z.array(z.string()).nullable(),
  next_steps: z.array(z.string()),
});

function check(deps: ToolDeps, bearer: string | undefined) {
  if (!bearer) return { principal: undefined, problem: null };
  try {
    return { principal: deps.service.authenticate(bearer), problem: null };
  } catch (error) {
    return {
      principal: undefined,
      problem: error instanceof ServiceError ? error.message : 'unreadable credential',
    };
  }
}

export const svcGetStarted = defineTool({
  name: 'svc_get_started',
  group: 'setup',
  title: 'Get started with svc',
  description:
    'Call this first, with no arguments. It reports the state of svc on this computer (where its data lives, where its keys are kept, whether an organization key and an agent grant token are configured and valid, the agents and tables of the organization) and the next steps to take, as text and as data.',
  credential: 'none',
  inputSchema: z.object({}).strict(),
  outputSchema: GettingStarted,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (_input, deps) => {
    const owner = check(deps, deps.ownerBearer);
    const agent = check(deps, deps.agentBearer);
    const ownerInfo = owner.principal ? deps.service.whoami(owner.principal) : undefined;
    const agentInfo = agent.principal?.kind === 'agent' ? agent.principal : undefined;
    let agents: number | null = null;
    let tables: string[] | null = null;
    if (owner.principal?.kind === 'org_key' && owner.principal.orgId) {
      try {
        agents = deps.service.listAgents(owner.principal).count;
        tables = deps.service.listTables(owner.principal).tables.map((t) => t.name);
      } catch {
        // A key without the governance scope can still say who it is; the counts stay unknown.
      }
    }
    const next: string[] = [];
    if (!deps.ownerBearer && !deps.agentBearer) {
      next.push(
        'Create an organization with `npx svc org create --name NAME` and set its key as SVC_API_KEY in this MCP server’s environment.',
      );
    }
    if (owner.problem) next.push(`Fix SVC_API_KEY: ${owner.problem}`);
    if (agent.problem) next.push(`Fix SVC_AGENT_TOKEN: ${agent.problem}`);
    if (owner.principal && agents === 0) next.push('Grant a first agent with svc_grant.');
    if (owner.principal && agents)
      next.push('Review agents and their reach with svc_policy; check receipts with svc_proofs.');
    if (agentInfo) next.push('Ask before reading with svc_decide, then read with svc_read or svc_retrieve.');
    if (!next.length) next.push('Verify any proof with svc_verify.');

    const structured = {
      data_dir: deps.dataDir,
      key_store: { kind: 'file' as const, location: deps.service.ctx.vault.location },
      organization_key: {
        present: Boolean(deps.ownerBearer),
        source: deps.ownerBearer ? ('SVC_API_KEY' as const) : null,
        valid: Boolean(owner.principal),
        problem: owner.problem,
        org_id: ownerInfo?.org_id ?? null,
        org_name: ownerInfo && 'org_name' in ownerInfo ? (ownerInfo.org_name ?? null) : null,
        scopes: ownerInfo && 'scopes' in ownerInfo ? (ownerInfo.scopes ?? []) : [],
      },
      agent_token: {
        present: Boolean(deps.agentBearer),
        source: deps.agentBearer ? ('SVC_AGENT_TOKEN' as const) : null,
        valid: Boolean(agentInfo),
        problem: agent.problem,
        handle: agentInfo?.handle ?? null,
        table: agentInfo?.grant.table ?? null,
        columns: agentInfo?.grant.columns ?? [],
        expires_at: agentInfo?.grant.expiresAt ?? null,
      },
      agents,
      tables,
      next_steps: next,
    };
    const text = [
      `svc data: ${structured.data_dir} (keys in ${structured.key_store.location})`,
      `Organization key: ${structured.organization_key.valid ? `valid, ${structured.organization_key.org_name ?? 'no organization'}` : structured.organization_key.present ? 'invalid' : 'not set'}`,
      `Agent token: ${agentInfo ? `valid, agent ${agentInfo.handle} on ${agentInfo.grant.table}` : structured.agent_token.present ? 'invalid' : 'not set'}`,
      ...(agents !== null ? [`Agents: ${agents}; tables: ${tables?.join(', ')}`] : []),
      'Next:',
      ...next.map((step) => `- ${step}`),
    ].join('\n');
    return { text, structured };
  },
});

const NodeView = z.object({
  node_id: z.string(),
  machine_id: z.string(),
  hostname: z.string(),
  platform: z.string(),
  arch: z.string(),
  registered_at: z.string(),
  last_seen_at: z.string(),
});

export const svcNode = defineTool({
  name: 'svc_node',
  group: 'setup',
  title: 'Register and describe this machine',
  description:
    "Registers this computer as a node of the organization (hostname, platform, architecture and a machine id derived by hashing, never the OS's own id), or, when it is registered already, refreshes and describes it. Takes no arguments. Call it once after setting up the organization key; svc_get_started shows the overall state.",
  credential: 'owner',
  inputSchema: z.object({}).strict(),
  outputSchema: z.object({
    node: NodeView,
    newly_registered: z.boolean(),
    organization_nodes: z.number().int(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (_input, deps) => {
    const result = deps.service.registerNode(ownerOf(deps), machineFacts());
    const { node } = result;
    return {
      text: `${result.newly_registered ? 'Registered' : 'Already registered'}: ${node.hostname} (${node.platform}/${node.arch}) as ${node.node_id}; the organization has ${result.organization_nodes} node(s).`,
      structured: result,
    };
  },
});

/** The terms live in docs/TERMS.md; their version is the date in the heading. */
function currentTerms() {
  const text = readFileSync(new URL('../../docs/TERMS.md', import.meta.url), 'utf8');
  const version = /\(version ([0-9-]+)\)/.exec(text)?.[1];
  if (!version) throw new Error('docs/TERMS.md names no version');
  return { version, text };
}

export const svcTerms = defineTool({
  name: 'svc_terms',
  group: 'setup',
  title: 'Show and accept the terms',
  description:
    'Shows the current terms of use with their version and digest, and whether the organization has accepted them. Only when the person has read them and says they accept, call again with accept: true: the acceptance is recorded with a signed receipt (accepting twice changes nothing).',
  credential: 'owner',
  inputSchema: z.object({ accept: z.boolean().optional() }).strict(),
  outputSchema: z.object({
    version: z.string(),
    sha256: z.string(),
    text: z.string(),
    accepted: z.boolean(),
    accepted_at: z.string().nullable(),
    receipt_id: z.string().nullable(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (input, deps) => {
    const terms = currentTerms();
    const owner = ownerOf(deps);
    const state = input.accept
      ? deps.service.acceptTerms(owner, terms)
      : deps.service.termsAcceptance(owner, terms.version);
    const structured = {
      version: terms.version,
      sha256: createHash('sha256').update(terms.text).digest('hex'),
      text: terms.text,
      accepted: state !== null,
      accepted_at: state?.accepted_at ?? null,
      receipt_id: state?.receipt_id ?? null,
    };
    const status = state
      ? `Accepted on ${state.accepted_at} (receipt ${state.receipt_id}).`
      : 'Not accepted yet: after the person reads and accepts them, call svc_terms with accept: true.';
    return { text: `${terms.text}\n\n${status}`, structured };
  },
});
