// Govern tools: grant and revoke agents, the policy board, tables, the organization's proofs,
// and verifying any proof. Thin: each parses, calls the service core, and formats.
import { z } from 'zod';
import {
  GrantRequest,
  GrantResponse,
  PolicyBoardSchema,
  ProofListSchema,
  RevokeRequest,
  RevokeResponse,
  TableSchema,
} from '../backend/operations/governance.ts';
import { VerifyRequest, VerifyResponse } from '../backend/operations/proofs.ts';
import { PROOFS_PAGE_MAX } from '../backend/vocabulary.ts';
import { defineTool } from './registry.ts';
import { ops } from '../backend/operations/index.ts';
import { ownerOf } from './credentials.ts';
import { svcCommand } from '../config/command.ts';

const Next = z.string().describe('what to do with this answer');

export const svcGrant = defineTool({
  name: 'svc_grant',
  group: 'govern',
  title: 'Grant an agent scoped access',
  description:
    'Creates an agent and its grant in one step: which table, which readable columns, optional classifications, an optional equality filter on plaintext columns, and a lifetime (ttl_seconds, at least 60; default one day). Returns the grant token once: hand it to the agent as SVC_AGENT_TOKEN; it is never shown again. Use svc_policy to see every agent afterwards and svc_revoke to end access.',
  credential: 'owner',
  inputSchema: GrantRequest,
  outputSchema: GrantResponse.extend({ next: Next }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async (input, deps) => {
    const grant = await deps.invoker.invoke(ops.createGrant, ownerOf(deps), input);
    const next = `grant_token is shown only in this answer: give it to agent ${grant.handle} as SVC_AGENT_TOKEN in the environment of its MCP server; svc_policy shows the grant, svc_revoke ends it`;
    return {
      text: `Agent \`${grant.handle}\` may read ${input.columns.join(', ')} of ${input.table ?? 'agent_demo_records'} until ${grant.expires_at}. Grant token: ${grant.grant_token}\nReceipt: ${grant.receipt_id}\nNext: ${next}`,
      structured: { ...grant, next },
    };
  },
});

export const svcRevoke = defineTool({
  name: 'svc_revoke',
  group: 'govern',
  title: 'Revoke an agent or one grant',
  description:
    'Ends access at once. Give an agent handle to end every active credential of that agent, or a grant jti to end just that grant. Revoking what is already revoked changes nothing and signs no receipt. Use svc_policy to find handles and jtis.',
  credential: 'owner',
  inputSchema: RevokeRequest,
  outputSchema: RevokeResponse,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  handler: async (input, deps) => {
    const result = await deps.invoker.invoke(ops.revokeAgent, ownerOf(deps), input);
    return {
      text: result.receipt_id
        ? `Revoked ${result.target} ${result.handle}: ${result.revoked_jtis.length} grant(s) ended. Receipt: ${result.receipt_id}`
        : `Nothing to revoke: ${result.handle} had no active grant left.`,
      structured: result,
    };
  },
});

export const svcPolicy = defineTool({
  name: 'svc_policy',
  group: 'govern',
  title: 'The policy board',
  description:
    'Shows every agent of the organization: its status, its grants (table, columns, classifications, filter, expiry, status) and its last read. Read-only. Use it before svc_grant to avoid duplicates and before svc_revoke to find a handle or jti.',
  credential: 'owner',
  inputSchema: z.object({}).strict(),
  outputSchema: PolicyBoardSchema.extend({ next: Next }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (_input, deps) => {
    const board = await deps.invoker.invoke(ops.getPolicyBoard, ownerOf(deps), {});
    const lines = board.agents.map((a) => {
      const active = a.grants.filter((g) => g.status === 'active');
      const reach = active.map((g) => `${g.table}(${g.columns.join(', ')})`).join('; ') || 'no active grant';
      return `- ${a.handle} [${a.status}] ${reach}; last read: ${a.last_read ? a.last_read.at : 'never'}`;
    });
    const next = board.count
      ? 'svc_revoke ends an agent (by handle) or one grant (by jti); svc_grant adds one'
      : 'no agents yet: create one with svc_grant';
    return {
      text: board.count ? `${lines.join('\n')}\nNext: ${next}` : `No agents yet: create one with svc_grant.`,
      structured: { ...board, next },
    };
  },
});

export const svcRegisterTable = defineTool({
  name: 'svc_register_table',
  group: 'govern',
  title: 'Register a table',
  description:
    "Registers a table and its columns: each column has a classification (for example public, pii, financial, confidential) and a storage kind, plaintext (usable in where filters) or encrypted (sealed at rest; a denied column is never decrypted). Rows are loaded afterwards from a CSV or JSON file (the answer's `next` says how); then grant agents with svc_grant.",
  credential: 'owner',
  inputSchema: TableSchema,
  outputSchema: TableSchema.extend({ next: Next }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async (input, deps) => {
    const table = await deps.invoker.invoke(ops.registerTable, ownerOf(deps), input);
    // No tool loads rows: they are a file the person has, loaded by the command line or the API.
    const next = `the person loads its rows from a .csv (header row) or .json file in a terminal, with the organization key in SVC_API_KEY: \`${svcCommand('table', 'load', table.name, '--file', 'ROWS.csv')}\` (or POST /api/v1/tables/${table.name}/rows); then grant agents with svc_grant`;
    return {
      text: `Registered ${table.name}: ${table.columns.map((c) => `${c.name} (${c.classification}, ${c.storage})`).join(', ')}.\nNext: ${next}`,
      structured: { ...table, next },
    };
  },
});

export const svcProofs = defineTool({
  name: 'svc_proofs',
  group: 'govern',
  title: "The organization's signed proofs",
  description:
    "Lists the organization's signed receipts (grants, revocations, decisions, Fabric sends and fetches), newest first. Page back with `before` = the previous page's next_before. Check any of them with svc_verify.",
  credential: 'owner',
  inputSchema: z
    .object({
      limit: z.number().int().min(1).max(PROOFS_PAGE_MAX).optional(),
      before: z.number().int().min(1).optional(),
    })
    .strict(),
  outputSchema: ProofListSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (input, deps) => {
    const page = await deps.invoker.invoke(ops.listProofs, ownerOf(deps), input);
    return {
      text: page.count
        ? page.proofs.map((p) => `${p.signed_at} ${p.kind} ${p.id}`).join('\n')
        : 'No signed proofs yet.',
      structured: page,
    };
  },
});

export const svcVerify = defineTool({
  name: 'svc_verify',
  group: 'govern',
  title: 'Verify a proof',
  description:
    'Re-checks a proof by its id (a receipt `rcpt_...` or a read audit row `aud_...`): its signature, its hash and its links in the chain. Needs no credential. An unknown or altered proof is never reported authentic.',
  credential: 'none',
  inputSchema: VerifyRequest,
  outputSchema: VerifyResponse,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (input, deps) => {
    const verdict = await deps.invoker.invoke(ops.verifyProof, undefined, input);
    return {
      text: verdict.found
        ? `${input.proof_id}: authentic=${verdict.authentic}, unaltered=${verdict.unaltered}${verdict.signer ? `, signed by ${verdict.signer.signing_kid}` : ''}`
        : `${input.proof_id}: no such proof (not authentic).`,
      structured: verdict,
    };
  },
});
