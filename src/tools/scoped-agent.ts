// Scoped-agent tools: decide (may I?), read within the grant, and prompt-ready retrieval.
import { z } from 'zod';
import {
  AccessDecisionSchema,
  AuditRef,
  ComputeRequest,
  ReadRequest,
  ReadResponse,
  RetrieveRequest,
} from '../backend/operations/governance.ts';
import { SourceCallResult, UseRequest } from '../backend/operations/sources.ts';
import { defineTool } from './registry.ts';
import { ops } from '../backend/operations/index.ts';
import { agentOf } from './credentials.ts';
import { ServiceError } from '../backend/errors.ts';
import type { CellValue } from '../backend/tables.ts';

/**
 * The decision as a model needs it: the signed receipt by its id (svc_verify checks it; the HTTP
 * answer carries the whole receipt), without `cost`, which only counts the withheld columns.
 */
const DecisionAnswer = AccessDecisionSchema.omit({ receipt: true, cost: true }).extend({
  proof_id: z.string().describe('the id of the signed receipt of this decision: svc_verify checks it'),
  next: z.string(),
});

const goAhead = {
  allow: 'go ahead with the allowed columns',
  degrade:
    'go ahead with the allowed columns only: the withheld ones may not be used (svc_read refuses them)',
  deny: 'do not go ahead: nothing asked for may be used',
} as const;

export const svcDecide = defineTool({
  name: 'svc_decide',
  group: 'scoped-agent',
  title: 'May I? (decide without reading)',
  description:
    'Asks whether this agent may take an action (read, send or classify) on columns of a table, without releasing any data: the answer is allow, degrade (some columns withheld) or deny, with reasons and the id of its signed receipt (proof_id). Call it before svc_read or before sending data anywhere; anyone can check the receipt with svc_verify.',
  credential: 'grant',
  inputSchema: ComputeRequest,
  outputSchema: DecisionAnswer,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async (input, deps) => {
    const {
      receipt: _receipt,
      cost: _cost,
      ...decision
    } = await deps.invoker.invoke(ops.computeDecision, agentOf(deps), { ...input, receipt: 'true' });
    // Asked with a receipt, a decision always has one: a missing one is the service's fault.
    if (!decision.proof_id) throw new ServiceError('internal', 'the decision came back without its receipt');
    const withheld = decision.withheld.columns.length
      ? `; withheld: ${decision.withheld.columns.join(', ')}`
      : '';
    const next = `${goAhead[decision.decision]}; the decision is signed as ${decision.proof_id}, which svc_verify checks`;
    return {
      text: `${decision.decision}: allowed ${decision.allowed.columns.join(', ') || 'nothing'}${withheld}${decision.reasons.length ? ` (${decision.reasons.join(', ')})` : ''}. Next: ${next}`,
      structured: { ...decision, proof_id: decision.proof_id, next },
    };
  },
});

function asTable(columns: string[], rows: Record<string, CellValue>[]): string {
  const cell = (v: CellValue) => (v === null ? '' : String(v).replace(/\|/g, '\\|').replace(/\n/g, ' '));
  return [
    `| ${columns.join(' | ')} |`,
    `| ${columns.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${columns.map((c) => cell(row[c] ?? null)).join(' | ')} |`),
  ].join('\n');
}

export const svcRead = defineTool({
  name: 'svc_read',
  group: 'scoped-agent',
  title: 'Read within the grant',
  description:
    'Reads rows of a table, releasing only the columns this agent is granted; every read, allowed or refused, appends a signed audit row. Asking for a column outside the grant refuses the whole read and names the denied columns: ask again without them, or use svc_retrieve, which leaves withheld columns out by itself. limit defaults to 50, at most 200.',
  credential: 'grant',
  inputSchema: ReadRequest,
  outputSchema: ReadResponse,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  audits: ops.readRows,
  handler: async (input, deps) => {
    const result = await deps.invoker.invoke(ops.readRows, agentOf(deps), input);
    return {
      text: `${result.count} row(s); audit ${result.audit.id}\n${asTable(input.columns, result.rows)}`,
      structured: result,
    };
  },
});

const Retrieval = z.object({
  table: z.string(),
  decision: z.enum(['allow', 'degrade', 'deny']),
  columns: z.array(z.string()),
  withheld: z.array(z.object({ column: z.string(), reason: z.string() })),
  rows: ReadResponse.shape.rows,
  count: z.number().int(),
  audit: AuditRef.nullable(),
});

export const svcRetrieve = defineTool({
  name: 'svc_retrieve',
  group: 'scoped-agent',
  title: 'Prompt-ready context within the grant',
  description:
    'Returns rows as a compact table holding only the columns this agent may see; any requested column it may not see is named as withheld, with the reason, and never read. Without `columns` it uses every column of the grant. Use it to put governed data into a prompt; the read is audited like svc_read.',
  credential: 'grant',
  inputSchema: RetrieveRequest,
  outputSchema: Retrieval,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  audits: ops.retrieve,
  handler: async (input, deps) => {
    const result = await deps.invoker.invoke(ops.retrieve, agentOf(deps), input);
    const { withheld } = result;
    const note = withheld.length
      ? `\nWithheld (not read): ${withheld.map((w) => `${w.column} (${w.reason})`).join(', ')}`
      : '';
    const body =
      result.plan.decision === 'deny'
        ? `Nothing of ${result.table} may be released for this request (${result.plan.reasons.join(', ')}).`
        : `${result.table}: ${result.count} row(s)\n${asTable(result.plan.allowed.columns, result.rows)}`;
    return {
      text: body + note,
      structured: {
        table: result.table,
        decision: result.plan.decision,
        columns: result.plan.allowed.columns,
        withheld,
        rows: result.rows,
        count: result.count,
        audit: result.audit,
      },
    };
  },
});

export const svcUse = defineTool({
  name: 'svc_use',
  group: 'scoped-agent',
  title: 'Use a capability without its secret',
  description:
    "Calls a registered external API that this agent's grant allows (source, method and path prefix), without ever receiving its secret: the service injects the credential. The answer holds the status and up to 64 KiB of body, in which the credential, and whatever the API echoes of this call's own path, query and body, appear as [credential]; the call is receipted. A call carries at most 32 KiB of path, query and body. A call outside the grant is refused as scope_violation; see the grant's capabilities with svc_get_started.",
  credential: 'grant',
  inputSchema: UseRequest,
  outputSchema: SourceCallResult,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  handler: async (input, deps) => {
    const result = await deps.invoker.invoke(ops.useCapability, agentOf(deps), input);
    return {
      text: `${result.method} ${result.url} -> ${result.status}${result.truncated ? ' (body truncated)' : ''}\n${result.body}`,
      structured: result,
    };
  },
});
