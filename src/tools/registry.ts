// The MCP tool registry: the catalog of all 38 svc_ tools in their five groups, one declaration
// per implemented tool, and the loop that registers them. Declarations are plain data: listing,
// snapshotting and generating the README table start nothing.
import { ServiceError } from '../backend/errors.ts';
import type { z } from 'zod';
import type { Invoker } from '../backend/invoke.ts';
import type { Operation } from '../backend/operation.ts';
import type { ConnectFlow } from '../backend/connect-flow.ts';
import type { GateCheck } from '../backend/gate-check.ts';
import type { Finder } from '../backend/scan.ts';
import type { SealFiles } from '../backend/seal-files.ts';
import type { Archive } from '../backend/archive.ts';
import type { RunOptions, RunResult } from '../backend/run.ts';
import type { FabricKeyStore } from '../backend/fabric-inbox.ts';

export const GROUPS = {
  setup: 'Setup: link this computer, describe it, accept the terms',
  'find-lock': 'Find and lock: scan for secrets and personal data, seal, redact, run with secrets',
  share: 'Share and deliver: governed links, burn-after-read, the Fabric inbox',
  govern: 'Govern and policy: grants, revocation, rules, tables, sources, proofs',
  'scoped-agent': 'Scoped agent: decide, read and use within a grant',
} as const;
export type Group = keyof typeof GROUPS;

/** Every tool of the product, in the order and groups of the specification. */
export const CATALOG: Record<Group, readonly string[]> = {
  setup: ['svc_connect', 'svc_get_started', 'svc_node', 'svc_terms'],
  'find-lock': [
    'svc_scan_folder',
    'svc_scan_feedback',
    'svc_plan',
    'svc_protect',
    'svc_open',
    'svc_redact',
    'svc_run',
    'svc_wrap',
    'svc_encrypt',
    'svc_decrypt',
  ],
  share: ['svc_send', 'svc_deliver', 'svc_burn', 'svc_link_status', 'svc_expose', 'svc_inbox'],
  govern: [
    'svc_grant',
    'svc_revoke',
    'svc_policy',
    'svc_rules',
    'svc_register_table',
    'svc_connect_source',
    'svc_api_list',
    'svc_api_read',
    'svc_api_write',
    'svc_seal_revoke',
    'svc_proofs',
    'svc_verify',
  ],
  'scoped-agent': ['svc_decide', 'svc_read', 'svc_retrieve', 'svc_use', 'svc_code_advise', 'svc_code_patch'],
};

/**
 * `none`: needs nothing; `owner`: an organization key; `grant`: an agent grant token; `owner or
 * grant`: either, by what the call does (the handler asks for the one it needs).
 */
export type CredentialTag = 'none' | 'owner' | 'grant' | 'owner or grant';

/** What `confirm` got: the person's yes or no, a form closed without either, or no form at all. */
export type Confirmation = 'accepted' | 'declined' | 'closed' | 'no_form';

/** How a refusal says the form brought no yes. */
export function noAnswer(answer: 'closed' | 'no_form'): string {
  return answer === 'closed'
    ? "svc's confirmation form was closed without an answer (a client that shows no forms in this mode, as `claude -p`, closes each at once)"
    : 'this client shows no confirmation forms';
}

/**
 * The person's yes, for a tool that may take the agent's word where the client has no forms: the
 * form's yes, or `confirmed: true` from an agent that asked them in the conversation. A form closed
 * without an answer is no yes, and the agent's word cannot stand in for it: the person may have
 * shut it. Otherwise throws the refusal, saying what to do (`instead`: what the person can run).
 * Resolves with where the yes came from.
 */
export async function personSaysYes(
  deps: Pick<ToolDeps, 'confirm'>,
  question: string,
  refusal: { needs: string; nothing: string; confirmed: boolean | undefined; instead: string },
): Promise<'form' | 'agent'> {
  const answer = await deps.confirm(question);
  if (answer === 'accepted') return 'form';
  if (answer === 'no_form' && refusal.confirmed === true) return 'agent';
  const why = {
    // A client may decline for the person (`codex exec` declines every form): the way to do it
    // without the agent is said here too.
    declined: `the person declined: ${refusal.nothing} (a client that shows no forms in this mode, as \`codex exec\`, declines each). ${refusal.instead}`,
    closed: `${refusal.needs}, and ${noAnswer('closed')}: ${refusal.nothing}. ${refusal.instead}`,
    no_form: `${refusal.needs}, and ${noAnswer('no_form')}: ${refusal.nothing}. Ask them, then call again with confirmed: true.`,
  };
  throw new ServiceError('forbidden', why[answer]);
}

/** What a handler gets when it is called (never at listing time). */
export interface ToolDeps {
  /** The service: in this process, or a remote `svc serve`. */
  invoker: Invoker;
  /** `Bearer ...` of the organization key, when this caller has one. */
  ownerBearer: string | undefined;
  /** `Bearer ...` of the agent grant token, when this caller has one. */
  agentBearer: string | undefined;
  /** Where the organization key came from, when known: the environment or the key svc_connect kept. */
  ownerSource?: 'SVC_API_KEY' | 'keychain';
  /** Where the bearers came from: this process's environment, or the HTTP request. */
  credentialSource: 'environment' | 'request';
  /**
   * Asks the person to confirm through MCP form elicitation. `closed` when the form was closed
   * without a choice (MCP's `cancel`: dismissed, or never shown, as Claude Code's `-p` cancels
   * every form at once); `no_form` when the client offers none, where a tool that takes the agent's
   * word needs `confirmed: true` (`personSaysYes`).
   */
  confirm(message: string): Promise<Confirmation>;
  /**
   * Reports progress of long work to the client, when it asked for progress (a no-op otherwise);
   * `total` when it is known.
   */
  progress(done: number, total: number | undefined, message: string): Promise<void>;
  /** Asks the client to open a URL for the person (MCP URL elicitation), when it can; answers as `confirm`. */
  openUrl(message: string, url: string): Promise<Confirmation>;
  /**
   * The client calling, as rules name clients in `who` (`claude-code`, `gemini-cli`, `codex`,
   * `cursor`; `svc` for any other, or one that gave no name): the read gate decides svc's tools for
   * it, and its decisions are recorded under it.
   */
  client: string;
  /** Linking this computer (svc_connect) and where its key is kept; absent over HTTP. */
  connect?: { flow: ConnectFlow; keyStore: string } | undefined;
  /** The read gate of the computer this server runs on: what svc's tools ask before touching a file. */
  gate?: GateCheck | undefined;
  /**
   * What svc finds on the computer this server runs on (scans, verdicts, the plan), loaded on
   * first use.
   */
  find?: (() => Promise<Finder>) | undefined;
  /** Seals, opens and revokes files of the computer this server runs on, in its store. */
  seals?: SealFiles | undefined;
  /** The archive of the computer this server runs on (svc_wrap), in its data dir. */
  archive?: Archive | undefined;
  /** Runs a command with vault secrets of the computer this server runs on (svc_run). */
  runner?: ((options: RunOptions) => Promise<RunResult>) | undefined;
  /**
   * The vault of the computer this server runs on, where the agent's Fabric private key is kept
   * (svc_inbox); absent over HTTP, where the agent's computer is not this one.
   */
  fabricKeys?: FabricKeyStore | undefined;
}

export interface ToolResult<T> {
  /** What the model reads. */
  text: string;
  /** The same answer as data, checked against the output schema. */
  structured: T;
}

export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  group: Group;
  title: string;
  /** Written for a model: what it does, when to use it, what to call next. */
  description: string;
  credential: CredentialTag;
  inputSchema: I;
  outputSchema: O;
  annotations: {
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  handler(input: z.infer<I>, deps: ToolDeps): ToolResult<z.infer<O>> | Promise<ToolResult<z.infer<O>>>;
  /**
   * The operation every call of this tool is an attempt at, when the core records refused
   * attempts (a read's audit row): input the tool's schema refuses is handed to it as sent, so it
   * is refused, and recorded, there rather than before the core ever sees it.
   */
  audits?: Operation;
}

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  tool: ToolDefinition<I, O>,
): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

export function groupOf(name: string): Group | undefined {
  return (Object.keys(CATALOG) as Group[]).find((group) => CATALOG[group].includes(name));
}
