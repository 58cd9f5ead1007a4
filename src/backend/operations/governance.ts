// Governance operations: grants and their revocation, decisions, reads within a grant, the policy
// board, the organization's proofs, and who a credential is.
import { z } from 'zod';
import * as S from '../schemas.ts';
import { defineOperation } from '../operation.ts';
import * as governance from '../governance.ts';
import * as tables from '../tables.ts';
import { requireAgent } from '../credentials.ts';

export const createGrant = defineOperation({
  name: 'createGrant',
  summary: 'Create an agent and its scoped grant',
  caller: { kind: 'org', scope: 'governance' },
  input: S.GrantRequest,
  output: S.GrantResponse,
  run: (ctx, caller, input) => governance.createGrant(ctx, caller, input),
});

export const listAgents = defineOperation({
  name: 'listAgents',
  summary: 'The roster of agents',
  caller: { kind: 'org', scope: 'governance' },
  input: z.object({}),
  output: S.AgentsResponse,
  run: (ctx, caller) => governance.roster(ctx, caller),
});

export const revokeAgent = defineOperation({
  name: 'revokeAgent',
  summary: 'Revoke an agent (by handle) or one grant (by jti)',
  caller: { kind: 'org', scope: 'governance' },
  input: S.RevokeRequest,
  output: S.RevokeResponse,
  run: (ctx, caller, input) => governance.revoke(ctx, caller, input.target),
});

export const computeDecision = defineOperation({
  name: 'computeDecision',
  summary: 'Plan: may this agent do this? No data released, no keys derived',
  caller: { kind: 'agent' },
  input: S.ComputeRequest.extend(S.ComputeQuery.shape),
  output: S.AccessDecisionSchema,
  run: (ctx, agent, { receipt, ...input }) => governance.compute(ctx, agent, input, receipt === 'true'),
});

export const readRows = defineOperation({
  name: 'readRows',
  summary: 'Execute: release the granted columns; every attempt appends an audit row',
  caller: { kind: 'agent' },
  // The handle is the path's; in process it defaults to the calling agent's own.
  input: S.ReadRequest.extend(S.HandleParam.partial().shape),
  output: S.ReadResponse,
  run: (ctx, agent, { handle, ...input }) => governance.read(ctx, requireAgent(agent, handle), input),
});

export const retrieve = defineOperation({
  name: 'retrieve',
  summary: 'Read only what the grant allows; name what is withheld',
  caller: { kind: 'agent' },
  input: S.RetrieveRequest,
  output: S.RetrieveResponse,
  run: (ctx, agent, input) => governance.retrieve(ctx, agent, input),
});

export const getPolicyBoard = defineOperation({
  name: 'getPolicyBoard',
  summary: 'Every agent with its grants, their reach and its last read',
  caller: { kind: 'org', scope: 'governance' },
  input: z.object({}),
  output: S.PolicyBoardSchema,
  run: (ctx, caller) => governance.policyBoard(ctx, caller),
});

export const listProofs = defineOperation({
  name: 'listProofs',
  summary: "The organization's signed receipts, newest first",
  caller: { kind: 'org', scope: 'governance' },
  input: S.ProofsQuery,
  output: S.ProofListSchema,
  run: (ctx, caller, input) => governance.listProofs(ctx, caller, input),
});

export const whoami = defineOperation({
  name: 'whoami',
  summary: 'Who this credential is (never the credential itself)',
  caller: { kind: 'any' },
  input: z.object({}),
  output: S.WhoamiSchema,
  run: (ctx, principal) => governance.whoami(ctx, principal),
});

export const listTables = defineOperation({
  name: 'listTables',
  summary: 'Registered tables and their columns',
  caller: { kind: 'org', scope: 'governance' },
  input: z.object({}),
  output: S.TablesResponse,
  run: (ctx, caller) => {
    const found = tables.listTables(ctx, caller.orgId);
    return { ok: true, count: found.length, tables: found };
  },
});

export const registerTable = defineOperation({
  name: 'registerTable',
  summary: 'Register a table: columns with classification and storage',
  caller: { kind: 'org', scope: 'governance' },
  input: S.TableSchema,
  output: S.TableSchema,
  run: (ctx, caller, input) => tables.registerTable(ctx, caller.orgId, input),
});

export const loadRows = defineOperation({
  name: 'loadRows',
  summary: 'Load rows from JSON or CSV',
  caller: { kind: 'org', scope: 'governance' },
  input: z.object({
    name: S.TableParam.shape.name,
    rows: z.array(z.record(z.string(), z.unknown())).min(1).max(50_000),
  }),
  output: S.LoadRowsResponse,
  run: (ctx, caller, input) => tables.loadRows(ctx, caller.orgId, input.name, input.rows),
});
