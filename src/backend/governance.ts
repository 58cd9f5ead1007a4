// Data governance: create an agent with a scoped grant, plan (may I?), read (execute), revoke.
import { ServiceError } from './errors.ts';
import { evaluateGrant, reasonText, type Action, type Reason, type ReasonCode } from './policy.ts';
import { hasPassed, newId, nowIso, type Context } from './context.ts';
import {
  issueAgentToken,
  type AgentPrincipal,
  type Principal,
  type Capability,
  type GrantScope,
  type OrgCaller,
  type WhereValue,
} from './credentials.ts';
import { DEMO_TABLE, columnsByName, getTable, selectRows, type CellValue, type TableInfo } from './tables.ts';
import { countDecision } from './usage.ts';
import type { Receipt } from './chains.ts';
import { MAX_GRANT_TTL_SECONDS, READ_LIMIT_MAX } from './vocabulary.ts';
import { PROOFS_PAGE_MAX } from './vocabulary.ts';

export { PROOFS_PAGE_MAX };

export { MAX_GRANT_TTL_SECONDS, READ_LIMIT_MAX };

/** What a refusal's receipt records besides `org_id`: the caller, what was asked and `reason`. */
export interface RefusalRecord {
  kind: string;
  org_id: string | null;
  body: Record<string, unknown>;
}

/**
 * The refusal of an authenticated caller's request: the error it answers and the receipt it
 * leaves. Core functions throw it and `receiptRefusals` turns it into the receipted error.
 */
export class Refusal extends ServiceError {
  readonly record: RefusalRecord;

  constructor(
    code: ServiceError['code'],
    message: string,
    details: Record<string, unknown>,
    record: RefusalRecord,
  ) {
    super(code, message, details);
    this.record = record;
  }
}

/**
 * Runs `work`; a `Refusal` it throws is receipted on the service chain and rethrown as the same
 * error with `receipt_id` in its details. The receipt is appended after `work`'s own writes have
 * ended (a refusal thrown inside one rolls that write back), in a write of its own, so it is
 * committed although the request fails. Never call it inside a write: the receipt would join that
 * write and roll back with the failure.
 */
export async function receiptRefusals<T>(ctx: Context, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    const receipt = await ctx.chains.append('service', {
      kind: error.record.kind,
      org_id: error.record.org_id,
      signed_at: nowIso(ctx),
      body: { org_id: error.record.org_id, ...error.record.body },
    });
    throw new ServiceError(error.code, error.message, { ...error.details, receipt_id: receipt.receipt_id });
  }
}

/** Who asked, as a receipt names them: an organization key by its id, an agent by id, handle and grant. */
export function actorOf(principal: Principal): Record<string, string> {
  return principal.kind === 'agent'
    ? { agent_id: principal.agentId, handle: principal.handle, jti: principal.jti }
    : { key_id: principal.keyId };
}

export const DEFAULT_GRANT_TTL_SECONDS = 24 * 60 * 60;
export const READ_LIMIT_DEFAULT = 50;
export interface GrantInput {
  agent: string;
  columns: string[];
  table?: string | undefined;
  classifications?: string[] | undefined;
  where?: Record<string, WhereValue> | undefined;
  ttl_seconds?: number | undefined;
  /** Extension: registered sources the agent may call with svc_use, never seeing their secret. */
  capabilities?:
    { source: string; methods?: string[] | undefined; path_prefix?: string | undefined }[] | undefined;
}

export interface GrantResult {
  grant_token: string;
  handle: string;
  agent_id: string;
  jti: string;
  expires_at: string;
  read_url: string;
  receipt_id: string;
}

/** The handle is the label in lower case with runs of other characters turned into `-`. */
export function handleFromLabel(label: string): string {
  const slug = label
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/g, '');
  return slug || 'agent';
}

export async function createGrant(ctx: Context, caller: OrgCaller, input: GrantInput): Promise<GrantResult> {
  return await receiptRefusals(ctx, () => grant(ctx, caller, input));
}

async function grant(ctx: Context, caller: OrgCaller, input: GrantInput): Promise<GrantResult> {
  const tableName = input.table ?? DEMO_TABLE;
  const where = input.where ?? {};
  /** A grant that names what the organization has not registered: refused, with what was asked. */
  const refuse = (message: string, details: Record<string, unknown>, reason: string, denied: string[]) =>
    new Refusal('invalid_request', message, details, {
      kind: 'agent.grant.deny',
      org_id: caller.orgId,
      body: {
        ...actorOf(caller),
        agent: input.agent,
        table: tableName,
        columns: input.columns,
        classifications: input.classifications ?? null,
        where,
        sources: (input.capabilities ?? []).map((c) => c.source),
        reason,
        denied,
      },
    });
  const table = await getTable(ctx, caller.orgId, tableName);
  if (!table) {
    throw refuse(
      `table \`${tableName}\` is not registered for this organization`,
      { field: 'table' },
      'unknown_table',
      [tableName],
    );
  }
  const scope = columnsOutOfScope(table, input.columns, input.classifications);
  if (scope) throw refuse(scope.message, scope.details, scope.reason, scope.denied);
  const badWhere = Object.keys(where).filter((key) => columnsByName(table).get(key)?.storage !== 'plaintext');
  if (badWhere.length) {
    throw refuse(
      `where filters registered plaintext columns only; \`${badWhere[0]}\` is not one`,
      { field: 'where' },
      'invalid_where',
      badWhere,
    );
  }
  const capabilities = (input.capabilities ?? []).map((c) => ({
    source: c.source,
    methods: [...new Set(c.methods ?? ['GET'])],
    path_prefix: (c.path_prefix ?? '').replace(/^\/+/, ''),
  }));
  const unknownSources: string[] = [];
  for (const { source } of capabilities) {
    const known = await ctx.store.get(
      'SELECT 1 AS x FROM sources WHERE org_id = ? AND name = ?',
      caller.orgId,
      source,
    );
    if (!known) unknownSources.push(source);
  }
  if (unknownSources.length) {
    throw refuse(
      `capabilities name unregistered sources: ${unknownSources.join(', ')}`,
      { field: 'capabilities' },
      'unknown_sources',
      unknownSources,
    );
  }
  const ttl = input.ttl_seconds ?? DEFAULT_GRANT_TTL_SECONDS;
  const now = ctx.clock();
  const expiresAt = new Date(now.getTime() + ttl * 1000).toISOString();
  const token = issueAgentToken();
  const agentId = newId('agt');

  return ctx.store.write(async () => {
    const handle = await uniqueHandle(ctx, caller.orgId, handleFromLabel(input.agent));
    await ctx.store.run(
      'INSERT INTO agents (id, org_id, handle, name, status, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      agentId,
      caller.orgId,
      handle,
      input.agent,
      'active',
      now.toISOString(),
    );
    await ctx.store.run(
      `INSERT INTO agent_grants (jti, agent_id, org_id, token_hash, table_name, columns, classifications, where_json, created_at, expires_at, capabilities)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      token.jti,
      agentId,
      caller.orgId,
      token.tokenHash,
      tableName,
      JSON.stringify(input.columns),
      input.classifications ? JSON.stringify(input.classifications) : null,
      JSON.stringify(where),
      now.toISOString(),
      expiresAt,
      capabilities.length ? JSON.stringify(capabilities) : null,
    );
    const receipt = await ctx.chains.append('service', {
      kind: 'agent.grant',
      org_id: caller.orgId,
      signed_at: now.toISOString(),
      body: {
        org_id: caller.orgId,
        agent_id: agentId,
        handle,
        jti: token.jti,
        table: tableName,
        columns: input.columns,
        classifications: input.classifications ?? null,
        where,
        expires_at: expiresAt,
        capabilities,
      },
    });
    return {
      grant_token: token.token,
      handle,
      agent_id: agentId,
      jti: token.jti,
      expires_at: expiresAt,
      read_url: `/api/agents/${handle}/read`,
      receipt_id: receipt.receipt_id,
    };
  });
}

/**
 * A handle free in the organization: the base, else `-2`, `-3` and so on. Only the organization's
 * own agents are looked at, so the handle it gets says nothing of any other organization's. Its
 * paths need no more: an agent's token names it, and the handle in a path must be that agent's.
 */
async function uniqueHandle(ctx: Context, orgId: string, base: string): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    const taken = await ctx.store.get(
      'SELECT 1 AS x FROM agents WHERE org_id = ? AND handle = ?',
      orgId,
      candidate,
    );
    if (!taken) return candidate;
  }
}

/** Why the grant's columns fall outside the table or its classifications, if they do. */
function columnsOutOfScope(
  table: TableInfo,
  columns: string[],
  classifications: string[] | undefined,
): { message: string; details: Record<string, unknown>; reason: string; denied: string[] } | undefined {
  const byName = columnsByName(table);
  const unknown = columns.filter((c) => !byName.has(c));
  if (unknown.length) {
    return {
      message: `columns not registered on \`${table.name}\`: ${unknown.join(', ')}; its columns are ${[...byName.keys()].join(', ')}`,
      details: { field: 'columns', out_of_scope_columns: unknown, registered_columns: [...byName.keys()] },
      reason: 'unknown_columns',
      denied: unknown,
    };
  }
  if (classifications) {
    const outside = columns.filter((c) => !classifications.includes(byName.get(c)!.classification));
    if (outside.length) {
      return {
        message: `columns outside the granted classifications (${classifications.join(', ')}): ${outside.join(', ')}`,
        details: { field: 'columns', out_of_scope_columns: outside },
        reason: 'columns_outside_classifications',
        denied: outside,
      };
    }
  }
  return undefined;
}

export async function roster(ctx: Context, caller: OrgCaller) {
  const agents = (
    await ctx.store.all<{
      id: string;
      handle: string;
      name: string;
      status: string;
      fabric_kid: string | null;
      created_at: string;
    }>(
      'SELECT id, handle, name, status, fabric_kid, created_at FROM agents WHERE org_id = ? ORDER BY created_at, handle',
      caller.orgId,
    )
  ).map((a) => ({
    agent_id: a.id,
    handle: a.handle,
    name: a.name,
    status: a.status as AgentStatus,
    fabric_enrolled: a.fabric_kid !== null,
    fabric_address: a.fabric_kid,
    created_at: a.created_at,
  }));
  return { ok: true, count: agents.length, agents };
}

// ---------------------------------------------------------------- compute (plan)

export interface ComputeInput {
  action?: 'classify' | 'read' | 'send' | undefined;
  table?: string | undefined;
  resource?: string | undefined;
  columns?: string[] | undefined;
  where?: Record<string, WhereValue> | undefined;
  purpose?: string | undefined;
  destination?:
    | { channel?: string | undefined; recipientCount?: number | undefined; external?: boolean | undefined }
    | undefined;
}

export interface AccessDecision {
  decision: 'allow' | 'degrade' | 'deny';
  allowed: { columns: string[] };
  withheld: { columns: string[] };
  cost: { distance: number | null };
  proof_id: string | null;
  reasons: string[];
  action: 'classify' | 'read' | 'send';
  table: string;
  classifications?: Record<string, string>;
  receipt?: Receipt;
}

/**
 * The plan: which requested columns this grant releases, and why the rest are held, from the one
 * grant policy (src/backend/policy.ts). `held` keeps each held column's reason typed, for the
 * core's own use; the answer's `reasons` are the reasons' wire text.
 */
export function decide(table: TableInfo, grant: GrantScope, input: ComputeInput) {
  const action = input.action ?? 'read';
  const evaluation = evaluateGrant(table, grant, { ...input, action });
  const { requested, allowed, withheld } = evaluation;
  /** Nothing released, for one reason about the whole request. */
  const nothing = (reasons: Reason[]) =>
    finish(
      action,
      table.name,
      [],
      reasons,
      requested.map((column) => ({ column, reason: reasons[0]! })),
      null,
    );
  if (!evaluation.tableGranted) return nothing([{ code: 'table_not_granted' }]);
  if (action === 'classify') {
    return finish(action, table.name, allowed, [], withheld, withheld.length, evaluation.classifications);
  }
  // A filter the grant does not allow releases nothing: it could probe values or reach past it.
  if (evaluation.filters.length) return nothing(evaluation.filters.map((f) => f.reason));
  const whole: Reason[] = requested.length === 0 ? [{ code: 'no_columns_requested' }] : [];
  return finish(action, table.name, allowed, whole, withheld, withheld.length);
}

function finish(
  action: Action,
  table: string,
  allowed: string[],
  /** Reasons about the whole request, listed first. */
  whole: Reason[],
  held: { column: string; reason: Reason }[],
  distance: number | null,
  classifications?: Record<string, string>,
) {
  const decision: AccessDecision['decision'] =
    allowed.length === 0 ? 'deny' : held.length === 0 ? 'allow' : 'degrade';
  // Each reason once, in order: a whole-request reason is not repeated for every held column.
  const reasons = [...new Set([...whole, ...held.map((h) => h.reason)].map(reasonText))];
  return {
    decision,
    allowed: { columns: allowed },
    withheld: { columns: held.map((h) => h.column) },
    cost: { distance },
    reasons,
    action,
    table,
    ...(classifications ? { classifications } : {}),
    held,
  };
}

/** Plan: decides without releasing data or deriving keys; with `receipt`, signs the decision. */
export async function compute(
  ctx: Context,
  agent: AgentPrincipal,
  input: ComputeInput,
  withReceipt: boolean,
): Promise<AccessDecision> {
  const tableName = input.table ?? agent.grant.table;
  const table = await getTable(ctx, agent.orgId, tableName);
  if (!table) {
    // No plan is made, so nothing is counted; the refusal is receipted whatever `receipt` says.
    const receipt = await ctx.chains.append('service', {
      kind: 'access.compute.deny',
      org_id: agent.orgId,
      signed_at: nowIso(ctx),
      body: {
        org_id: agent.orgId,
        ...actorOf(agent),
        action: input.action ?? 'read',
        table: tableName,
        resource: input.resource ?? null,
        purpose: input.purpose ?? null,
        columns: input.columns ?? null,
        reason: 'unknown_table',
      },
    });
    throw new ServiceError('unknown_table', `no table \`${tableName}\` is registered for this organization`, {
      receipt_id: receipt.receipt_id,
    });
  }
  // The typed reasons stay in the core; the answer carries their wire text.
  const { held: _held, ...result } = decide(table, agent.grant, input);
  return ctx.store.write(async () => {
    // One reading of the clock for the period counted and the time signed.
    const at = nowIso(ctx);
    await countDecision(ctx, agent.orgId, at);
    if (!withReceipt) return { ...result, proof_id: null };
    const receipt = await ctx.chains.append('service', {
      kind: 'access.compute',
      org_id: agent.orgId,
      signed_at: at,
      body: {
        org_id: agent.orgId,
        ...actorOf(agent),
        action: result.action,
        table: result.table,
        resource: input.resource ?? null,
        purpose: input.purpose ?? null,
        decision: result.decision,
        allowed_columns: result.allowed.columns,
        withheld_columns: result.withheld.columns,
        reasons: result.reasons,
      },
    });
    return { ...result, proof_id: receipt.receipt_id, receipt };
  });
}

// ---------------------------------------------------------------- read (execute)

export interface ReadInput {
  table: string;
  columns: string[];
  where?: Record<string, WhereValue> | undefined;
  limit?: number | undefined;
  purpose?: string | undefined;
}

export interface ReadResult {
  rows: Record<string, CellValue>[];
  count: number;
  audit: { id: string; chain_index: number };
}

/** Execute: releases the granted columns of matching rows; every attempt appends an audit row. */
export async function read(ctx: Context, agent: AgentPrincipal, input: ReadInput): Promise<ReadResult> {
  const limit = input.limit ?? READ_LIMIT_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > READ_LIMIT_MAX) {
    throw new ServiceError('invalid_request', `limit must be an integer from 1 to ${READ_LIMIT_MAX}`, {
      field: 'limit',
    });
  }
  const columns = [...new Set(input.columns)];
  const where = input.where ?? {};
  const audit = (outcome: string, extra: Record<string, unknown>) =>
    auditRead(
      ctx,
      agent,
      { table: input.table, columns, where, limit, purpose: input.purpose },
      outcome,
      extra,
    );

  const table = await getTable(ctx, agent.orgId, input.table);
  if (!table) {
    const row = await audit('deny', { reason: 'unknown_table', denied_columns: columns, row_count: 0 });
    throw new ServiceError(
      'unknown_table',
      `no table \`${input.table}\` is registered for this organization`,
      {
        audit: row,
      },
    );
  }
  const grant = agent.grant;
  // The same grant policy as the plan; reading applies it strictly: any column held refuses it all.
  const evaluation = evaluateGrant(table, grant, { action: 'read', columns, where });
  const filterHeld = (code: ReasonCode) =>
    evaluation.filters.filter((f) => f.reason.code === code).map((f) => f.column);
  const denied = evaluation.tableGranted ? evaluation.withheld.map((w) => w.column) : [...columns];
  for (const key of filterHeld('where_not_granted')) if (!denied.includes(key)) denied.push(key);
  if (denied.length) {
    const row = await audit('deny', { reason: 'scope_violation', denied_columns: denied, row_count: 0 });
    throw new ServiceError('scope_violation', `columns outside this grant: ${denied.join(', ')}`, {
      denied_columns: denied,
      audit: row,
    });
  }
  const badWhere = filterHeld('where_not_plaintext');
  if (badWhere.length) {
    const row = await audit('deny', { reason: 'invalid_where', denied_columns: [], row_count: 0 });
    throw new ServiceError(
      'invalid_request',
      `where filters registered plaintext columns only: ${badWhere.join(', ')}`,
      {
        field: 'where',
        audit: row,
      },
    );
  }
  // The grant's own filter always applies; a request filter that contradicts it matches nothing.
  const conflict = filterHeld('where_outside_grant').length > 0;
  let rows: Record<string, CellValue>[];
  try {
    rows = conflict
      ? []
      : await selectRows(ctx, agent.orgId, table, columns, { ...where, ...grant.where }, limit);
  } catch (error) {
    // A read that fails (a damaged sealed cell, say) is still an attempt: it leaves its audit row.
    await audit('deny', { reason: 'read_failed', denied_columns: [], row_count: 0 });
    throw error;
  }
  const row = await audit('allow', { denied_columns: [], row_count: rows.length });
  return { rows, count: rows.length, audit: row };
}

/**
 * The audit row of a read refused before it ran: bad input, or a token used under another agent's
 * handle. It records what was asked as far as it is valid (`asked` holds only the fields that passed
 * their schemas; `table` and `limit` are null otherwise) and why: the refusal's error code.
 */
export async function auditRefusedRead(
  ctx: Context,
  agent: AgentPrincipal,
  asked: Partial<ReadInput> & { handle?: string | undefined },
  reason: string,
): Promise<{ id: string; chain_index: number }> {
  const columns = [...new Set(asked.columns ?? [])];
  return await auditRead(
    ctx,
    agent,
    {
      table: asked.table ?? null,
      columns,
      where: asked.where ?? {},
      limit: asked.limit ?? null,
      purpose: asked.purpose,
    },
    'deny',
    {
      reason,
      denied_columns: [],
      row_count: 0,
      ...(asked.handle !== undefined && asked.handle !== agent.handle ? { asked_handle: asked.handle } : {}),
    },
  );
}

/** One read attempt's signed row on the audit chain, allowed or refused. */
async function auditRead(
  ctx: Context,
  agent: AgentPrincipal,
  asked: {
    table: string | null;
    columns: string[];
    where: Record<string, WhereValue>;
    limit: number | null;
    purpose?: string | undefined;
  },
  outcome: string,
  extra: Record<string, unknown>,
): Promise<{ id: string; chain_index: number }> {
  // The agent's last read is kept beside it in the same transaction, for the policy board.
  return ctx.store.write(async () => {
    const receipt = await ctx.chains.append('audit', {
      kind: 'audit.read',
      org_id: agent.orgId,
      signed_at: nowIso(ctx),
      body: {
        org_id: agent.orgId,
        ...actorOf(agent),
        table: asked.table,
        columns: asked.columns,
        where: asked.where,
        limit: asked.limit,
        purpose: asked.purpose ?? null,
        outcome,
        ...extra,
      },
    });
    await ctx.store.run(
      'UPDATE agents SET last_read_id = ?, last_read_at = ?, last_read_outcome = ? WHERE id = ?',
      receipt.receipt_id,
      receipt.signed_at,
      outcome,
      agent.agentId,
    );
    return { id: receipt.receipt_id, chain_index: receipt.chain_index };
  });
}

// ---------------------------------------------------------------- revoke

export interface RevokeResult {
  target: 'agent' | 'grant';
  handle: string;
  agent_id: string;
  revoked_jtis: string[];
  receipt_id: string | null;
}

/** Ends every active credential of an agent (by handle) or one grant (by jti). */
export async function revoke(ctx: Context, caller: OrgCaller, target: string): Promise<RevokeResult> {
  return await receiptRefusals(ctx, () => revokeTarget(ctx, caller, target));
}

async function revokeTarget(ctx: Context, caller: OrgCaller, target: string): Promise<RevokeResult> {
  const refuse = (code: 'unknown_agent', message: string, reason: string) =>
    new Refusal(
      code,
      message,
      {},
      { kind: 'agent.revoke.deny', org_id: caller.orgId, body: { ...actorOf(caller), target, reason } },
    );
  return ctx.store.write(async () => {
    const now = nowIso(ctx);
    // Looked up within the caller's organization only: another organization's handle or jti is
    // answered exactly as one that does not exist, so revoke cannot tell which exist elsewhere.
    const byJti = await ctx.store.get<{ jti: string; agent_id: string }>(
      'SELECT jti, agent_id FROM agent_grants WHERE jti = ? AND org_id = ?',
      target,
      caller.orgId,
    );
    const agent = await ctx.store.get<{ id: string; handle: string; status: string }>(
      `SELECT id, handle, status FROM agents WHERE ${byJti ? 'id = ?' : 'handle = ?'} AND org_id = ?`,
      byJti ? byJti.agent_id : target,
      caller.orgId,
    );
    if (!agent) {
      throw refuse(
        'unknown_agent',
        `no agent or grant \`${target}\` in this organization: svc_policy (or GET /api/v1/policy) lists its agents with their handles and grant jtis`,
        'unknown_agent',
      );
    }
    const active = (
      await ctx.store.all<{ jti: string }>(
        `SELECT jti FROM agent_grants WHERE agent_id = ? AND revoked_at IS NULL${byJti ? ' AND jti = ?' : ''}`,
        ...(byJti ? [agent.id, byJti.jti] : [agent.id]),
      )
    ).map((g) => g.jti);
    for (const jti of active) {
      await ctx.store.run('UPDATE agent_grants SET revoked_at = ? WHERE jti = ?', now, jti);
    }
    if (!byJti && agent.status !== 'revoked') {
      await ctx.store.run("UPDATE agents SET status = 'revoked', revoked_at = ? WHERE id = ?", now, agent.id);
    }
    const changed = active.length > 0 || (!byJti && agent.status !== 'revoked');
    const receipt = changed
      ? await ctx.chains.append('service', {
          kind: 'agent.revoke',
          org_id: caller.orgId,
          signed_at: now,
          body: {
            org_id: caller.orgId,
            agent_id: agent.id,
            handle: agent.handle,
            target: byJti ? 'grant' : 'agent',
            revoked_jtis: active,
          },
        })
      : undefined;
    return {
      target: byJti ? 'grant' : 'agent',
      handle: agent.handle,
      agent_id: agent.id,
      revoked_jtis: active,
      receipt_id: receipt?.receipt_id ?? null,
    };
  });
}

// ---------------------------------------------------------------- policy board and proofs

export type GrantStatus = 'active' | 'expired' | 'revoked';
export type AgentStatus = 'active' | 'revoked';

/** The board: every agent of the organization, its grants with their reach, and its last read. */
export async function policyBoard(ctx: Context, caller: OrgCaller) {
  const grants = await ctx.store.all<{
    jti: string;
    agent_id: string;
    table_name: string;
    columns: string;
    classifications: string | null;
    where_json: string | null;
    created_at: string;
    expires_at: string;
    revoked_at: string | null;
    capabilities: string | null;
  }>('SELECT * FROM agent_grants WHERE org_id = ? ORDER BY created_at', caller.orgId);
  const grantsOf = new Map<string, typeof grants>();
  for (const grant of grants) grantsOf.set(grant.agent_id, [...(grantsOf.get(grant.agent_id) ?? []), grant]);
  // The last read is kept on the agent (see auditRead): the board never searches the chain.
  const reads = await ctx.store.all<{
    id: string;
    last_read_id: string | null;
    last_read_at: string | null;
    last_read_outcome: string | null;
  }>('SELECT id, last_read_id, last_read_at, last_read_outcome FROM agents WHERE org_id = ?', caller.orgId);
  const lastReadOf = new Map(reads.map((r) => [r.id, r]));
  const agents = (await roster(ctx, caller)).agents.map((agent) => {
    const lastRead = lastReadOf.get(agent.agent_id);
    return {
      ...agent,
      grants: (grantsOf.get(agent.agent_id) ?? []).map((g) => ({
        jti: g.jti,
        table: g.table_name,
        columns: JSON.parse(g.columns) as string[],
        classifications: g.classifications ? (JSON.parse(g.classifications) as string[]) : null,
        where: g.where_json ? (JSON.parse(g.where_json) as Record<string, WhereValue>) : {},
        capabilities: g.capabilities ? (JSON.parse(g.capabilities) as Capability[]) : [],
        created_at: g.created_at,
        expires_at: g.expires_at,
        status: (g.revoked_at
          ? 'revoked'
          : hasPassed(ctx, g.expires_at)
            ? 'expired'
            : 'active') as GrantStatus,
      })),
      last_read: lastRead?.last_read_id
        ? {
            audit_id: lastRead.last_read_id,
            at: lastRead.last_read_at!,
            outcome: lastRead.last_read_outcome ?? 'unknown',
          }
        : null,
    };
  });
  return { ok: true, count: agents.length, agents };
}

/** The organization's signed receipts, newest first; `before` pages back from a chain position. */
export async function listProofs(
  ctx: Context,
  caller: OrgCaller,
  options: { limit?: number; before?: number } = {},
) {
  const limit = Math.min(options.limit ?? 50, PROOFS_PAGE_MAX);
  const proofs = await ctx.store.all<{ id: string; kind: string; chain_index: number; signed_at: string }>(
    `SELECT id, kind, chain_index, signed_at FROM service_chain
      WHERE org_id = ? AND chain_index < ? ORDER BY chain_index DESC LIMIT ?`,
    caller.orgId,
    options.before ?? Number.MAX_SAFE_INTEGER,
    limit,
  );
  return {
    ok: true,
    count: proofs.length,
    proofs,
    next_before: proofs.length === limit ? proofs.at(-1)!.chain_index : null,
  };
}

/**
 * Prompt-ready retrieval: plans the read against the grant, then reads only the columns the plan
 * allows, so withheld columns are named but never read. Nothing allowed means nothing read.
 */
export async function retrieve(ctx: Context, agent: AgentPrincipal, input: Partial<ReadInput>) {
  const tableName = input.table ?? agent.grant.table;
  // A retrieval is a read attempt: refused, it leaves the same audit row a refused read does.
  const asked = (columns: string[]) => ({
    table: tableName,
    columns,
    where: input.where ?? {},
    limit: input.limit ?? READ_LIMIT_DEFAULT,
    purpose: input.purpose,
  });
  const table = await getTable(ctx, agent.orgId, tableName);
  if (!table) {
    const columns = [...new Set(input.columns ?? [])];
    const row = await auditRead(ctx, agent, asked(columns), 'deny', {
      reason: 'unknown_table',
      denied_columns: columns,
      row_count: 0,
    });
    throw new ServiceError('unknown_table', `no table \`${tableName}\` is registered for this organization`, {
      audit: row,
    });
  }
  const { held, ...plan } = decide(table, agent.grant, {
    action: 'read',
    columns: input.columns,
    where: input.where,
  });
  // What was held and why, as typed values: no adapter parses the reasons' text.
  const withheld = held.map((h) => ({ column: h.column, reason: h.reason.code }));
  if (plan.decision === 'deny') {
    const row = await auditRead(
      ctx,
      agent,
      asked([...plan.allowed.columns, ...plan.withheld.columns]),
      'deny',
      {
        reason: 'plan_denied',
        plan_reasons: plan.reasons,
        denied_columns: plan.withheld.columns,
        row_count: 0,
      },
    );
    return { table: tableName, plan, withheld, rows: [], count: 0, audit: row };
  }
  const result = await read(ctx, agent, {
    table: tableName,
    columns: plan.allowed.columns,
    where: input.where,
    limit: input.limit,
    purpose: input.purpose,
  });
  return { table: tableName, plan, withheld, ...result };
}

/** Who a credential is, for status pages: never the credential itself. */
export async function whoami(ctx: Context, principal: Principal) {
  if (principal.kind === 'agent') {
    const row = await ctx.store.get<{ fabric_kid: string | null }>(
      'SELECT fabric_kid FROM agents WHERE id = ?',
      principal.agentId,
    );
    return {
      kind: 'agent' as const,
      org_id: principal.orgId,
      handle: principal.handle,
      jti: principal.jti,
      fabric_address: row?.fabric_kid ?? null,
      grant: principal.grant,
    };
  }
  const org = principal.orgId
    ? await ctx.store.get<{ id: string; name: string }>(
        'SELECT id, name FROM orgs WHERE id = ?',
        principal.orgId,
      )
    : undefined;
  return {
    kind: 'organization_key' as const,
    org_id: org?.id ?? null,
    org_name: org?.name ?? null,
    scopes: principal.scopes,
  };
}
