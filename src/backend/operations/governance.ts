// Governance operations and the zod schemas they take and answer: grants and their revocation,
// decisions, reads within a grant, tables, the policy board, the organization's proofs, and who a
// credential is.
import { z } from 'zod';
import { apiDoc } from '../api-doc.ts';
import { defineOperation, lazily } from '../operation.ts';
import { REASON_CODES } from '../policy.ts';
import { requireAgent, type Principal } from '../credentials.ts';
import type { Context } from '../context.ts';
import type { ServiceError } from '../errors.ts';
import { checkJsonShape } from '../json-shape.ts';
import { Kid, ShortText, DateTime, ErrorBody, ReceiptSchema, HandleParam } from './common.ts';
import { MAX_GRANT_TTL_SECONDS, READ_LIMIT_MAX, READ_METHODS, WRITE_METHODS } from '../vocabulary.ts';

const governance = lazily(() => import('../governance.ts'));
const tables = lazily(() => import('../tables.ts'));

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export const WhereValue = z.union([z.string().max(512), z.number(), z.boolean(), z.null()]);

/** How many columns one `where` may filter on. */
const WHERE_KEYS_MAX = 16;

export const Where = z
  .record(z.string().regex(NAME, 'where keys are column names'), WhereValue)
  .refine((w) => Object.keys(w).length <= WHERE_KEYS_MAX, `at most ${WHERE_KEYS_MAX} where keys`)
  .register(apiDoc, {
    description: 'Equality filter on plaintext columns',
    example: { region: 'eu' },
    maxProperties: WHERE_KEYS_MAX,
  });

const ColumnName = z
  .string()
  .regex(NAME, 'column names are letters, digits and _, starting with a letter or _');

const Columns = z
  .array(ColumnName)
  .min(1)
  .max(64)
  .register(apiDoc, { description: 'column names', example: ['id', 'region', 'email'] });

export const CapabilitySchema = z
  .object({
    source: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/),
    methods: z
      .array(z.enum([...READ_METHODS, ...WRITE_METHODS]))
      .min(1)
      .max(6)
      .optional(),
    path_prefix: z.string().max(512).optional(),
  })
  .strict()
  .register(apiDoc, {
    id: 'Capability',
    description: 'Extension: a registered source the agent may call with svc_use',
  });

/** A capability as stored on a grant (defaults filled in). */
export const CapabilityView = z.object({
  source: z.string(),
  methods: z.array(z.string()),
  path_prefix: z.string(),
});

export const GrantRequest = z
  .object({
    agent: z
      .string()
      .trim()
      .min(1)
      .max(80)
      .refine((s) => /[A-Za-z0-9]/.test(s), 'agent needs at least one letter or digit')
      .register(apiDoc, { example: 'Support Bot' }),
    columns: Columns,
    table: z.string().regex(NAME).optional().register(apiDoc, { example: 'agent_demo_records' }),
    classifications: z.array(ShortText(64)).min(1).max(16).optional(),
    where: Where.optional(),
    ttl_seconds: z
      .number()
      .int()
      .min(60)
      .max(MAX_GRANT_TTL_SECONDS)
      .optional()
      .register(apiDoc, { example: 3600 }),
    capabilities: z.array(CapabilitySchema).max(32).optional(),
  })
  .strict()
  .register(apiDoc, { id: 'GrantRequest' });

export const GrantResponse = z
  .object({
    grant_token: z.string().regex(/^ndca-/),
    handle: z.string(),
    agent_id: z.string(),
    jti: z.string(),
    expires_at: DateTime,
    read_url: z.string(),
    receipt_id: z.string(),
  })
  .register(apiDoc, { id: 'AgentGrant' });

export const AgentSchema = z
  .object({
    agent_id: z.string(),
    handle: z.string(),
    name: z.string(),
    status: z.enum(['active', 'revoked']),
    fabric_enrolled: z.boolean(),
    fabric_address: Kid.nullable(),
    created_at: DateTime,
  })
  .register(apiDoc, { id: 'Agent' });

export const AgentsResponse = z
  .object({ ok: z.boolean(), count: z.number().int(), agents: z.array(AgentSchema) })
  .register(apiDoc, { id: 'AgentRoster' });

export const RevokeRequest = z
  .object({
    target: z
      .string()
      .trim()
      .min(1)
      .max(128)
      .register(apiDoc, { description: 'an agent handle or a grant jti' }),
  })
  .strict()
  .register(apiDoc, { id: 'RevokeRequest' });

export const RevokeResponse = z
  .object({
    target: z.enum(['agent', 'grant']),
    handle: z.string(),
    agent_id: z.string(),
    revoked_jtis: z.array(z.string()),
    receipt_id: z.string().nullable(),
  })
  .register(apiDoc, { id: 'RevokeResult' });

export const ComputeQuery = z.object({
  receipt: z
    .literal('true', { error: 'receipt accepts only `true`; leave it out for a plan without a receipt' })
    .optional()
    .register(apiDoc, { param: { name: 'receipt', in: 'query' } }),
});

export const ComputeRequest = z
  .object({
    action: z.enum(['classify', 'read', 'send']).optional(),
    table: z.string().regex(NAME).optional(),
    resource: ShortText(256).optional(),
    columns: z.array(ColumnName).max(64).optional(),
    where: Where.optional(),
    purpose: ShortText(512).optional(),
    destination: z
      .object({
        channel: ShortText(64).optional(),
        recipientCount: z.number().int().min(0).max(1_000_000).optional(),
        external: z.boolean().optional(),
      })
      .strict()
      .optional(),
  })
  .strict()
  .register(apiDoc, { id: 'ComputeRequest' });

export const AccessDecisionSchema = z
  .object({
    decision: z.enum(['allow', 'degrade', 'deny']),
    allowed: z.object({ columns: z.array(z.string()) }),
    withheld: z.object({ columns: z.array(z.string()) }),
    cost: z.object({ distance: z.number().nullable() }),
    proof_id: z.string().nullable(),
    reasons: z.array(z.string()),
    action: z.enum(['classify', 'read', 'send']),
    table: z.string(),
    classifications: z.record(z.string(), z.string()).optional(),
    receipt: ReceiptSchema.optional(),
  })
  .register(apiDoc, { id: 'AccessDecision' });

export const ReadRequest = z
  .object({
    table: z.string().regex(NAME),
    columns: Columns,
    where: Where.optional(),
    limit: z.number().int().min(1).max(READ_LIMIT_MAX).optional(),
    purpose: ShortText(512).optional(),
  })
  .strict()
  .register(apiDoc, { id: 'ReadRequest' });

export const AuditRef = z
  .object({ id: z.string(), chain_index: z.number().int().positive() })
  .register(apiDoc, { id: 'AuditRef' });

export const ReadResponse = z
  .object({
    rows: z.array(z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))),
    count: z.number().int(),
    audit: AuditRef,
  })
  .register(apiDoc, { id: 'ReadResult' });

export const ScopeViolation = ErrorBody.extend({
  error: z.literal('scope_violation'),
  denied_columns: z.array(z.string()),
  audit: AuditRef,
}).register(apiDoc, { id: 'ScopeViolation' });

export const RetrieveRequest = z
  .object({
    table: ReadRequest.shape.table.optional(),
    columns: ReadRequest.shape.columns.optional(),
    where: ReadRequest.shape.where,
    limit: ReadRequest.shape.limit,
    purpose: ReadRequest.shape.purpose,
  })
  .strict()
  .register(apiDoc, { id: 'RetrieveRequest' });

export const RetrieveResponse = z
  .object({
    table: z.string(),
    plan: AccessDecisionSchema.omit({ proof_id: true, receipt: true }),
    /** Each requested column the plan holds back, with the reason's code. */
    withheld: z.array(z.object({ column: z.string(), reason: z.enum(REASON_CODES) })),
    rows: ReadResponse.shape.rows,
    count: z.number().int(),
    audit: AuditRef.nullable(),
  })
  .register(apiDoc, { id: 'Retrieval' });

export const WhoamiSchema = z
  .union([
    z.object({
      kind: z.literal('agent'),
      org_id: z.string(),
      handle: z.string(),
      jti: z.string(),
      fabric_address: Kid.nullable().describe('the Fabric address this agent enrolled, or null'),
      grant: z.object({
        table: z.string(),
        columns: z.array(z.string()),
        classifications: z.array(z.string()).nullable(),
        where: z.record(z.string(), WhereValue),
        expiresAt: z.string(),
        capabilities: z.array(CapabilityView),
      }),
    }),
    z.object({
      kind: z.literal('organization_key'),
      org_id: z.string().nullable(),
      org_name: z.string().nullable(),
      scopes: z.array(z.string()),
    }),
  ])
  .register(apiDoc, { id: 'Whoami' });

export const GrantViewSchema = z.object({
  jti: z.string(),
  capabilities: z.array(CapabilityView),
  table: z.string(),
  columns: z.array(z.string()),
  classifications: z.array(z.string()).nullable(),
  where: z.record(z.string(), WhereValue),
  created_at: z.string(),
  expires_at: z.string(),
  status: z.enum(['active', 'expired', 'revoked']),
});

export const PolicyBoardSchema = z
  .object({
    ok: z.boolean(),
    count: z.number().int(),
    agents: z.array(
      AgentSchema.extend({
        grants: z.array(GrantViewSchema),
        last_read: z.object({ audit_id: z.string(), at: z.string(), outcome: z.string() }).nullable(),
      }),
    ),
  })
  .register(apiDoc, { id: 'PolicyBoard' });

export const ProofsQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .optional()
    .register(apiDoc, { param: { name: 'limit', in: 'query' } }),
  before: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .register(apiDoc, { param: { name: 'before', in: 'query' } }),
});

export const ProofListSchema = z
  .object({
    ok: z.boolean(),
    count: z.number().int(),
    proofs: z.array(
      z.object({ id: z.string(), kind: z.string(), chain_index: z.number().int(), signed_at: z.string() }),
    ),
    next_before: z.number().int().nullable(),
  })
  .register(apiDoc, { id: 'ProofList' });

export const ColumnSpecSchema = z
  .object({
    name: ColumnName,
    classification: ShortText(64).register(apiDoc, { example: 'pii' }),
    storage: z.enum(['plaintext', 'encrypted']),
  })
  .strict();

export const TableSchema = z
  .object({ name: z.string().regex(NAME), columns: z.array(ColumnSpecSchema).min(1).max(64) })
  .strict()
  .register(apiDoc, { id: 'Table' });

export const TablesResponse = z.object({
  ok: z.boolean(),
  count: z.number().int(),
  tables: z.array(TableSchema),
});

export const TableParam = z.object({
  name: z
    .string()
    .regex(NAME)
    .register(apiDoc, { param: { name: 'name', in: 'path' }, example: 'customers' }),
});

export const LoadRowsRequest = z
  .union([
    z
      .object({
        format: z.literal('json'),
        rows: z.array(z.record(z.string(), z.unknown())).min(1).max(50_000),
      })
      .strict(),
    z.object({ format: z.literal('csv'), csv: z.string().min(1) }).strict(),
  ])
  .register(apiDoc, { id: 'LoadRowsRequest' });

export const LoadRowsResponse = z.object({
  table: z.string(),
  loaded: z.number().int(),
  total_rows: z.number().int(),
});

export const createGrant = defineOperation({
  name: 'createGrant',
  summary: 'Create an agent and its scoped grant',
  caller: { kind: 'org', scope: 'governance' },
  input: GrantRequest,
  output: GrantResponse,
  run: async (ctx, caller, input) => (await governance()).createGrant(ctx, caller, input),
});

export const listAgents = defineOperation({
  name: 'listAgents',
  summary: 'The roster of agents',
  caller: { kind: 'org', scope: 'governance' },
  input: z.object({}),
  output: AgentsResponse,
  run: async (ctx, caller) => (await governance()).roster(ctx, caller),
});

export const revokeAgent = defineOperation({
  name: 'revokeAgent',
  summary: 'Revoke an agent (by handle) or one grant (by jti)',
  caller: { kind: 'org', scope: 'governance' },
  input: RevokeRequest,
  output: RevokeResponse,
  run: async (ctx, caller, input) => (await governance()).revoke(ctx, caller, input.target),
});

export const computeDecision = defineOperation({
  name: 'computeDecision',
  summary: 'Plan: may this agent do this? No data released, no keys derived',
  caller: { kind: 'agent' },
  input: ComputeRequest.extend(ComputeQuery.shape),
  output: AccessDecisionSchema,
  run: async (ctx, agent, { receipt, ...input }) =>
    (await governance()).compute(ctx, agent, input, receipt === 'true'),
});

/** What a refused read asked, as sent: each field kept only if it passes its schema and is plain JSON. */
function askedRead(input: unknown) {
  const sent = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const valid = <T>(schema: z.ZodType<T>, value: unknown): T | undefined => {
    const parsed = schema.safeParse(value);
    if (!parsed.success) return undefined;
    try {
      // A value no receipt could sign (a lone surrogate, say) is left out, as any invalid one is.
      checkJsonShape(parsed.data);
      return parsed.data;
    } catch {
      return undefined;
    }
  };
  return {
    handle: valid(HandleParam.shape.handle, sent.handle),
    table: valid(ReadRequest.shape.table, sent.table),
    columns: valid(ReadRequest.shape.columns, sent.columns),
    where: valid(Where, sent.where),
    limit: valid(ReadRequest.shape.limit, sent.limit),
    purpose: valid(ReadRequest.shape.purpose, sent.purpose),
  };
}

/**
 * The spec: every read, successful or not, chains an audit row. So once an agent is authenticated,
 * any refusal of a read (bad input, a token used under another agent's handle) leaves its audit row,
 * with the error code as its reason; an organization key refused here is receipted by the invoker.
 * The audit row is the refusal's one record, not a receipt besides it: the audit chain is where a
 * read attempt is looked for (the policy board's last read included), and a second record on the
 * service chain would count one attempt twice.
 */
async function auditRefusal(
  ctx: Context,
  principal: Principal,
  input: unknown,
  error: ServiceError,
): Promise<Record<string, unknown> | undefined> {
  if (principal.kind !== 'agent') return undefined;
  return { audit: await (await governance()).auditRefusedRead(ctx, principal, askedRead(input), error.code) };
}

export const readRows = defineOperation({
  name: 'readRows',
  summary: 'Execute: release the granted columns; every attempt appends an audit row',
  caller: { kind: 'agent' },
  // The handle is the path's; in process it defaults to the calling agent's own.
  input: ReadRequest.extend(HandleParam.partial().shape),
  output: ReadResponse,
  run: async (ctx, agent, { handle, ...input }) =>
    (await governance()).read(ctx, requireAgent(agent, handle), input),
  recordRefusal: auditRefusal,
});

export const retrieve = defineOperation({
  name: 'retrieve',
  summary: 'Read only what the grant allows; name what is withheld',
  caller: { kind: 'agent' },
  input: RetrieveRequest,
  output: RetrieveResponse,
  run: async (ctx, agent, input) => (await governance()).retrieve(ctx, agent, input),
  // A retrieval is a read attempt: refused, it leaves the audit row a refused read does.
  recordRefusal: auditRefusal,
});

export const getPolicyBoard = defineOperation({
  name: 'getPolicyBoard',
  summary: 'Every agent with its grants, their reach and its last read',
  caller: { kind: 'org', scope: 'governance' },
  input: z.object({}),
  output: PolicyBoardSchema,
  run: async (ctx, caller) => (await governance()).policyBoard(ctx, caller),
});

export const listProofs = defineOperation({
  name: 'listProofs',
  summary: "The organization's signed receipts, newest first",
  caller: { kind: 'org', scope: 'governance' },
  input: ProofsQuery,
  output: ProofListSchema,
  run: async (ctx, caller, input) => (await governance()).listProofs(ctx, caller, input),
});

export const whoami = defineOperation({
  name: 'whoami',
  summary: 'Who this credential is (never the credential itself)',
  caller: { kind: 'any' },
  input: z.object({}),
  output: WhoamiSchema,
  run: async (ctx, principal) => (await governance()).whoami(ctx, principal),
});

export const listTables = defineOperation({
  name: 'listTables',
  summary: 'Registered tables and their columns',
  caller: { kind: 'org', scope: 'governance' },
  input: z.object({}),
  output: TablesResponse,
  run: async (ctx, caller) => {
    const found = await (await tables()).listTables(ctx, caller.orgId);
    return { ok: true, count: found.length, tables: found };
  },
});

export const registerTable = defineOperation({
  name: 'registerTable',
  summary: 'Register a table: columns with classification and storage',
  caller: { kind: 'org', scope: 'governance' },
  input: TableSchema,
  output: TableSchema,
  run: async (ctx, caller, input) => (await tables()).registerTable(ctx, caller.orgId, input),
});

export const loadRows = defineOperation({
  name: 'loadRows',
  summary: 'Load rows from JSON or CSV',
  caller: { kind: 'org', scope: 'governance' },
  input: z.object({
    name: TableParam.shape.name,
    rows: z.array(z.record(z.string(), z.unknown())).min(1).max(50_000),
  }),
  output: LoadRowsResponse,
  run: async (ctx, caller, input) => (await tables()).loadRows(ctx, caller.orgId, input.name, input.rows),
});
