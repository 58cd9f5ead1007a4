// Setup tools: the first call, which tells the model what this computer has and what to do next.
import { z } from 'zod';
import { CapabilityView } from '../backend/operations/governance.ts';
import { CurrentTerms, NodeRegistration } from '../backend/operations/setup.ts';
import { defineTool, type ToolDeps } from './registry.ts';
import { credentialFormProblem, ownerOf, refusedCredentialHint } from './credentials.ts';
import { ops } from '../backend/operations/index.ts';
import { ServiceError } from '../backend/errors.ts';
import { machineFacts } from '../config/machine.ts';
import { svcCommand } from '../config/command.ts';

const CredentialState = z.object({
  present: z.boolean(),
  source: z.enum(['SVC_API_KEY', 'SVC_AGENT_TOKEN', 'keychain', 'request']).nullable(),
  valid: z.boolean(),
  problem: z.string().nullable(),
});

const GettingStarted = z.object({
  service: z.object({
    kind: z.enum(['local', 'remote']),
    data_dir: z.string().nullable(),
    key_store: z.string().nullable(),
    key_store_kind: z.enum(['keychain', 'file']).nullable(),
    /** Why keys are in files rather than the OS keychain, when they are. */
    key_store_note: z.string().nullable(),
    base_url: z.string().nullable(),
  }),
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
    capabilities: z.array(CapabilityView),
  }),
  agents: z.number().int().nullable(),
  tables: z
    .array(z.object({ name: z.string(), columns: z.array(z.string()) }))
    .nullable()
    .describe(
      "the organization's tables with their column names, for svc_grant; null without a valid organization key",
    ),
  next_steps: z.array(z.string()),
});

/**
 * Who a configured credential is; a credential that does not authenticate says why, and over stdio
 * where it came from and how to change it.
 */
async function identify(deps: ToolDeps, which: 'owner' | 'agent') {
  const bearer = which === 'owner' ? deps.ownerBearer : deps.agentBearer;
  if (!bearer) return { who: undefined, problem: null };
  const form = credentialFormProblem(deps, which);
  if (form) return { who: undefined, problem: form };
  try {
    return { who: await deps.invoker.invoke(ops.whoami, bearer, {}), problem: null };
  } catch (error) {
    const message = error instanceof Error ? error.message : 'unreadable credential';
    const hint =
      error instanceof ServiceError && error.code === 'unauthorized'
        ? refusedCredentialHint(deps, which === 'owner' ? 'owner' : 'grant')
        : undefined;
    return { who: undefined, problem: hint ? `${message}. ${hint}` : message };
  }
}

export const svcGetStarted = defineTool({
  name: 'svc_get_started',
  group: 'setup',
  title: 'Get started with svc',
  description:
    'Call this first, with no arguments. It reports the state of svc for this client (the service it talks to, where its data and keys live, whether an organization key and an agent grant token are configured and valid, the agents and tables of the organization) and the next steps to take, as text and as data.',
  credential: 'none',
  inputSchema: z.object({}).strict(),
  outputSchema: GettingStarted,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (_input, deps) => {
    const owner = await identify(deps, 'owner');
    const agent = await identify(deps, 'agent');
    const org = owner.who?.kind === 'organization_key' ? owner.who : undefined;
    const me = agent.who?.kind === 'agent' ? agent.who : undefined;
    let agents: number | null = null;
    let tables: { name: string; columns: string[] }[] | null = null;
    if (org?.org_id && deps.ownerBearer) {
      try {
        agents = (await deps.invoker.invoke(ops.listAgents, deps.ownerBearer, {})).count;
        tables = (await deps.invoker.invoke(ops.listTables, deps.ownerBearer, {})).tables.map((t) => ({
          name: t.name,
          columns: t.columns.map((c) => c.name),
        }));
      } catch {
        // A key without the governance scope can still say who it is; the counts stay unknown.
      }
    }
    const next: string[] = [];
    if (!deps.ownerBearer && deps.connect) {
      next.push(
        `Link this computer to your organization with svc_connect (browser approval). No organization yet? \`${svcCommand('org', 'create', '--name', 'NAME')}\` makes one.`,
      );
    }
    if (owner.problem) next.push(`Fix the organization key: ${owner.problem}`);
    if (agent.problem) next.push(`Fix the agent token: ${agent.problem}`);
    if (org && agents === 0) next.push('Grant a first agent with svc_grant.');
    if (org && agents)
      next.push('Review agents and their reach with svc_policy; check receipts with svc_proofs.');
    if (org) next.push('Register this machine with svc_node, and show the terms with svc_terms.');
    if (me) next.push('Ask before reading with svc_decide, then read with svc_read or svc_retrieve.');
    if (!next.length) next.push('Verify any proof with svc_verify.');

    const location = deps.invoker.location;
    const source = (bearer: string | undefined, env: 'SVC_API_KEY' | 'SVC_AGENT_TOKEN') => {
      if (!bearer) return null;
      if (deps.credentialSource === 'request') return 'request' as const;
      return env === 'SVC_API_KEY' && deps.ownerSource === 'keychain' ? ('keychain' as const) : env;
    };
    const structured = {
      service: {
        kind: location.kind,
        data_dir: location.kind === 'local' ? location.data_dir : null,
        key_store: location.kind === 'local' ? location.key_store : null,
        key_store_kind: location.kind === 'local' ? location.key_store_kind : null,
        key_store_note: location.kind === 'local' ? location.key_store_note : null,
        base_url: location.kind === 'remote' ? location.base_url : null,
      },
      organization_key: {
        present: Boolean(deps.ownerBearer),
        source: source(deps.ownerBearer, 'SVC_API_KEY'),
        valid: Boolean(org),
        problem: owner.problem,
        org_id: org?.org_id ?? null,
        org_name: org?.org_name ?? null,
        scopes: org?.scopes ?? [],
      },
      agent_token: {
        present: Boolean(deps.agentBearer),
        source: source(deps.agentBearer, 'SVC_AGENT_TOKEN'),
        valid: Boolean(me),
        problem: agent.problem,
        handle: me?.handle ?? null,
        table: me?.grant.table ?? null,
        columns: me?.grant.columns ?? [],
        expires_at: me?.grant.expiresAt ?? null,
        capabilities: me?.grant.capabilities ?? [],
      },
      agents,
      tables,
      next_steps: next,
    };
    const where =
      location.kind === 'local' ? `${location.data_dir} (keys in ${location.key_store})` : location.base_url;
    const text = [
      `svc service: ${location.kind}, ${where}`,
      `Organization key: ${org ? `valid, ${org.org_name ?? 'bound to no organization'}` : deps.ownerBearer ? 'invalid' : 'not set'}`,
      `Agent token: ${me ? `valid, agent ${me.handle} on ${me.grant.table}` : deps.agentBearer ? 'invalid' : 'not set'}`,
      ...(agents !== null
        ? [
            `Agents: ${agents}; tables: ${tables?.map((t) => `${t.name} (${t.columns.join(', ')})`).join(', ')}`,
          ]
        : []),
      'Next:',
      ...next.map((step) => `- ${step}`),
    ].join('\n');
    return { text, structured };
  },
});

export const svcNode = defineTool({
  name: 'svc_node',
  group: 'setup',
  title: 'Register and describe this machine',
  description:
    "Registers this computer as a node of the organization (hostname, platform, architecture and a machine id derived by hashing, never the OS's own id), or, when it is registered already, refreshes and describes it. Takes no arguments. Call it once after setting up the organization key; svc_get_started shows the overall state.",
  credential: 'owner',
  inputSchema: z.object({}).strict(),
  outputSchema: NodeRegistration,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (_input, deps) => {
    const result = await deps.invoker.invoke(ops.registerNode, ownerOf(deps), machineFacts());
    const { node } = result;
    return {
      text: `${result.newly_registered ? 'Registered' : 'Already registered'}: ${node.hostname} (${node.platform}/${node.arch}) as ${node.node_id}; the organization has ${result.organization_nodes} node(s).`,
      structured: result,
    };
  },
});

export const svcTerms = defineTool({
  name: 'svc_terms',
  group: 'setup',
  title: 'Show and accept the terms',
  description:
    'Shows the current terms of use with their version and digest, and whether the organization has accepted them. Only when the person has read them and says they accept, call again with accept: true: the acceptance is recorded with a signed receipt (accepting twice changes nothing).',
  credential: 'owner',
  inputSchema: z.object({ accept: z.boolean().optional() }).strict(),
  outputSchema: CurrentTerms,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (input, deps) => {
    const owner = ownerOf(deps);
    // The service says which terms are in force; accepting records exactly those.
    let terms = await deps.invoker.invoke(ops.getTerms, owner, {});
    if (input.accept && !terms.accepted) {
      await deps.invoker.invoke(ops.acceptTerms, owner, { version: terms.version, text: terms.text });
      terms = await deps.invoker.invoke(ops.getTerms, owner, {});
    }
    const status = terms.accepted
      ? `Accepted on ${terms.accepted_at} (receipt ${terms.receipt_id}).`
      : 'Not accepted yet: after the person reads and accepts them, call svc_terms with accept: true.';
    return { text: `${terms.text}\n\n${status}`, structured: terms };
  },
});

const ConnectResult = z.object({
  status: z.enum(['connected', 'pending', 'denied', 'expired', 'cancelled']),
  user_code: z.string(),
  verification_uri: z.string(),
  org_id: z.string().nullable(),
  node_id: z.string().nullable(),
  key_store: z.string().nullable(),
  next: z.string(),
});

export const svcConnect = defineTool({
  name: 'svc_connect',
  group: 'setup',
  title: 'Link this computer to the organization',
  description:
    'Links this computer to the organization by browser approval (like signing in a TV): it returns a verification URL and a short code, opens the URL for the person when the client can, and waits while the person checks the machine name and code in the browser and approves with an organization key (or denies). On approval a new organization key bound to this computer is stored in the OS keychain (or the documented fallback) and never shown; the owner tools then work without SVC_API_KEY. It waits up to wait_seconds (default 45, at most 50, within the request timeouts of clients); if it returns pending, show the person the URL and code and call it again to keep waiting.',
  credential: 'none',
  inputSchema: z.object({ wait_seconds: z.number().int().min(0).max(50).optional() }).strict(),
  outputSchema: ConnectResult,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  handler: async (input, deps) => {
    if (!deps.connect) {
      throw new ServiceError(
        'forbidden',
        'svc_connect links the computer that runs `svc mcp` over stdio; run it there',
      );
    }
    const outcome = await deps.connect.flow.step(input.wait_seconds ?? 45, deps);
    const connected = outcome.status === 'connected' ? outcome : undefined;
    const next = {
      connected: 'the owner tools now use this key; call svc_get_started to see the organization',
      pending: `show the person the URL ${outcome.verification_uri} and the code ${outcome.user_code} to check there and approve; then call svc_connect again to keep waiting`,
      denied: 'nothing changed; call svc_connect again only if the person wants to link this computer',
      expired: 'call svc_connect again for a new code',
      cancelled: 'nothing changed; call svc_connect again to start over',
    }[outcome.status];
    const structured = {
      ...outcome,
      org_id: connected?.org_id ?? null,
      node_id: connected?.node_id ?? null,
      key_store: connected ? deps.connect.keyStore : null,
      next,
    };
    const text = {
      connected: `Connected: this computer is node ${structured.node_id} of organization ${structured.org_id}. Its organization key is kept in ${deps.connect.keyStore}; it is not shown.`,
      pending: 'Waiting for approval.',
      denied: 'The person denied connecting this computer.',
      expired: 'The code expired.',
      cancelled: 'Connecting was cancelled.',
    }[outcome.status];
    return { text: `${text} Next: ${next}.`, structured };
  },
});
