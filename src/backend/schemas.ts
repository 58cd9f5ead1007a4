// The request and response contracts of the service, as zod schemas. The HTTP API validates with
// them and builds its OpenAPI document from them; the other interfaces parse with the same ones.
import { z } from 'zod';
import { apiDoc } from './api-doc.ts';
import { CLEARANCE_LEVELS } from './documents.ts';
import { MEMBER_ROLES } from './capsules.ts';
import { RECOVERY_EVENT_KINDS } from './recovery.ts';
import { MAX_GRANT_TTL_SECONDS, READ_LIMIT_MAX } from './governance.ts';
import { SCOPES } from './credentials.ts';
import { READ_METHODS, SOURCE_SCHEMES, WRITE_METHODS } from './sources.ts';

const KID = /^[0-9a-f]{16}$/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export const Kid = z
  .string()
  .regex(KID, 'must be 16 lowercase hex characters')
  .register(apiDoc, { example: '3f9a0c1d2e4b5a69' });
const Base64 = (name: string) =>
  z
    .string()
    .min(1, `${name} must not be empty`)
    .regex(BASE64, `${name} must be standard base64`)
    .refine((s) => s.length % 4 === 0, `${name} must be padded base64 (length a multiple of 4)`);
const ShortText = (max: number) => z.string().trim().min(1).max(max);
export const WhereValue = z.union([z.string().max(512), z.number(), z.boolean(), z.null()]);
export const Where = z
  .record(z.string().regex(NAME, 'where keys are column names'), WhereValue)
  .refine((w) => Object.keys(w).length <= 16, 'at most 16 where keys')
  .register(apiDoc, { description: 'Equality filter on plaintext columns', example: { region: 'eu' } });
const ColumnName = z
  .string()
  .regex(NAME, 'column names are letters, digits and _, starting with a letter or _');
const Columns = z.array(ColumnName).min(1).max(64);
const DateTime = z.iso.datetime({ offset: true });

export const ErrorBody = z
  .looseObject({
    error: z.string().register(apiDoc, { example: 'invalid_request' }),
    message: z.string().register(apiDoc, { example: 'columns: must contain at least 1 element' }),
  })
  .register(apiDoc, {
    id: 'Error',
    description: 'Every error: a closed code, a message saying what to do, plus details',
  });

export const ReceiptSchema = z
  .object({
    receipt_id: z.string(),
    chain: z.enum(['service', 'audit']),
    chain_index: z.number().int().positive(),
    signature_hex: z.string().regex(/^[0-9a-f]{128}$/),
    signing_pubkey_hex: z.string().regex(/^[0-9a-f]{64}$/),
    signing_kid: Kid,
    signed_at: DateTime,
    hash: z.string().regex(/^[0-9a-f]{64}$/),
    payload: z.looseObject({ v: z.number(), id: z.string(), kind: z.string() }),
  })
  .register(apiDoc, {
    id: 'Receipt',
    description: 'Ed25519 signature over the RFC 8785 bytes of `payload`; see docs/PROOFS.md',
  });

// ---------------------------------------------------------------- governance

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
    columns: Columns.register(apiDoc, { example: ['id', 'region', 'email'] }),
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

export const HandleParam = z.object({
  handle: z
    .string()
    .regex(/^[a-z0-9-]{1,64}$/)
    .register(apiDoc, { param: { name: 'handle', in: 'path' }, example: 'support-bot' }),
});

export const ReadRequest = z
  .object({
    table: z.string().regex(NAME),
    columns: Columns,
    where: Where.optional(),
    limit: z.number().int().min(1).max(READ_LIMIT_MAX, `limit is at most ${READ_LIMIT_MAX}`).optional(),
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

// ---------------------------------------------------------------- tables (extension)

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

// ---------------------------------------------------------------- fabric

export const EnrollRequest = z
  .object({
    ecdh_pubkey_hex: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'ecdh_pubkey_hex must be 64 lowercase hex characters (X25519, 32 raw bytes)'),
  })
  .strict()
  .register(apiDoc, { id: 'EnrollRequest' });

export const EnrollResponse = z
  .object({ kid: Kid, handle: z.string(), agent_id: z.string() })
  .register(apiDoc, { id: 'Enrollment' });

export const FabricGrantRequest = z
  .object({
    subject_kid: Kid,
    label: ShortText(120).optional(),
    allowed_sender_kids: z.array(Kid).max(256).optional(),
    ttl_days: z.number().int().min(1).max(3650).optional(),
    expires_at: DateTime.optional(),
  })
  .strict()
  .register(apiDoc, { id: 'FabricGrantRequest' });

export const FabricGrantSchema = z
  .object({
    grant_id: z.string(),
    issuer_org_id: z.string(),
    subject_kid: Kid,
    label: z.string().nullable(),
    allowed_sender_kids: z.array(Kid),
    created_at: DateTime,
    expires_at: DateTime,
    status: z.enum(['active', 'expired', 'revoked']),
    revoked_at: DateTime.nullable(),
    revoke_reason: z.string().nullable(),
    receipt_id: z.string(),
    revoke_receipt_id: z.string().nullable(),
  })
  .register(apiDoc, { id: 'FabricGrant' });

export const FabricGrantCreated = FabricGrantSchema.extend({ receipt: ReceiptSchema }).register(apiDoc, {
  id: 'FabricGrantCreated',
});
export const FabricGrantRevoked = FabricGrantSchema.extend({
  receipt: ReceiptSchema.nullable(),
  already_revoked: z.boolean(),
}).register(apiDoc, { id: 'FabricGrantRevoked' });

export const FabricGrantList = z
  .object({
    ok: z.boolean(),
    outbound: z.array(FabricGrantSchema),
    inbound: z.array(FabricGrantSchema),
    count: z.number().int(),
  })
  .register(apiDoc, { id: 'FabricGrantList' });

export const FabricRevokeRequest = z
  .object({ grant_id: z.string().min(1).max(128), reason: ShortText(512).optional() })
  .strict()
  .register(apiDoc, { id: 'FabricRevokeRequest' });

export const SendRequest = z
  .object({
    recipient_kid: Kid,
    ciphertext_b64: Base64('ciphertext_b64'),
    wrapped_key_b64: Base64('wrapped_key_b64').refine(
      (s) => s.length <= 1024,
      'wrapped_key_b64 is at most 1024 characters',
    ),
    payload_iv_b64: Base64('payload_iv_b64').refine(
      (s) => s.length <= 64,
      'payload_iv_b64 is at most 64 characters',
    ),
    content_type_hint: ShortText(128).optional(),
    filename_hint: ShortText(255).optional(),
    ttl_hours: z.number().int().min(1).max(720).optional(),
    max_fetches: z.number().int().min(1).max(20).optional(),
    purpose: ShortText(512).optional(),
  })
  .strict()
  .register(apiDoc, { id: 'SendRequest' });

export const SendResponse = z
  .object({
    id: z.uuid(),
    sender_kid: Kid,
    recipient_kid: Kid,
    ttl_at: DateTime,
    max_fetches: z.number().int(),
    receipt: ReceiptSchema,
  })
  .register(apiDoc, { id: 'SendResult' });

export const InboxItem = z
  .object({
    id: z.uuid(),
    sender_kid: Kid,
    recipient_kid: Kid,
    created_at: DateTime,
    ttl_at: DateTime,
    max_fetches: z.number().int(),
    fetch_count: z.number().int(),
    fetches_remaining: z.number().int(),
    status: z.enum(['available', 'expired', 'fully_fetched']),
    size_bytes: z.number().int(),
    content_type_hint: z.string().nullable(),
    filename_hint: z.string().nullable(),
    purpose: z.string().nullable(),
  })
  .strict()
  .register(apiDoc, { id: 'InboxItem' });

export const InboxResponse = z
  .object({ ok: z.boolean(), kid: Kid, count: z.number().int(), items: z.array(InboxItem) })
  .register(apiDoc, { id: 'Inbox' });

export const FetchRequest = z
  .object({ blob_id: z.uuid('blob_id must be a UUID') })
  .strict()
  .register(apiDoc, { id: 'FetchRequest' });

export const FetchResponse = z
  .object({
    id: z.uuid(),
    sender_kid: Kid,
    recipient_kid: Kid,
    ciphertext_b64: z.string(),
    wrapped_key_b64: z.string(),
    payload_iv_b64: z.string(),
    content_type_hint: z.string().nullable(),
    filename_hint: z.string().nullable(),
    purpose: z.string().nullable(),
    ttl_at: DateTime,
    fetches_remaining: z.number().int(),
    decision: z.object({ outcome: z.literal('allow'), reasons: z.array(z.string()), receipt_id: z.string() }),
    receipt: ReceiptSchema,
  })
  .register(apiDoc, { id: 'FetchResult' });

export const FabricDenied = ErrorBody.extend({
  error: z.literal('fabric_denied'),
  reasons: z.array(z.string()),
  receipt_id: z.string(),
  receipt: ReceiptSchema,
}).register(apiDoc, { id: 'FabricDenied' });

export const ScopeViolation = ErrorBody.extend({
  error: z.literal('scope_violation'),
  denied_columns: z.array(z.string()),
  audit: AuditRef,
}).register(apiDoc, { id: 'ScopeViolation' });

// ---------------------------------------------------------------- documents, verify

export const DocumentsRequest = z
  .object({
    question: ShortText(2000),
    clearance: z.enum(CLEARANCE_LEVELS),
    sections: z
      .array(
        z
          .object({
            title: ShortText(300),
            text: z.string().min(1).max(100_000),
            classification: z.enum(CLEARANCE_LEVELS).optional().register(apiDoc, {
              description: 'Extension: the section classification; when absent the service classifies it',
            }),
          })
          .strict(),
      )
      .min(1)
      .max(200),
  })
  .strict()
  .register(apiDoc, { id: 'DocumentsRequest' });

export const DocumentsResponse = z
  .object({
    decision: z.enum(['allow', 'degrade', 'deny']),
    answer: z.string(),
    proof: ReceiptSchema.extend({ id: z.string() }),
    proof_id: z.string(),
    sections: z.array(
      z.object({
        index: z.number().int(),
        title: z.string(),
        classification: z.enum(CLEARANCE_LEVELS),
        classified_by: z.enum(['caller', 'service']),
        released: z.boolean(),
      }),
    ),
    withheld_count: z.number().int(),
  })
  .register(apiDoc, { id: 'DocumentsResult' });

export const VerifyRequest = z
  .object({ proof_id: z.string().min(1).max(128) })
  .strict()
  .register(apiDoc, { id: 'VerifyRequest' });

export const VerifyResponse = z
  .object({
    proof_id: z.string(),
    authentic: z.boolean(),
    unaltered: z.boolean(),
    signer: z.object({ signing_kid: Kid, signing_pubkey_hex: z.string() }).nullable(),
    found: z.boolean(),
    chain: z.enum(['service', 'audit']).nullable(),
    chain_index: z.number().int().nullable(),
    kind: z.string().nullable(),
    signed_at: DateTime.nullable(),
    checks: z.record(z.string(), z.boolean()),
  })
  .register(apiDoc, { id: 'VerifyResult' });

export const ProofParam = z.object({
  id: z
    .string()
    .min(1)
    .max(128)
    .register(apiDoc, { param: { name: 'id', in: 'path' } }),
});

export const PublishedKeys = z
  .object({
    keys: z.array(z.object({ signing_kid: Kid, alg: z.literal('Ed25519'), public_key_hex: z.string() })),
  })
  .register(apiDoc, { id: 'PublishedKeys' });

// ---------------------------------------------------------------- capsules

export const IdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(128)
    .register(apiDoc, { param: { name: 'id', in: 'path' } }),
});

export const CapsuleCreateRequest = z
  .object({ name: ShortText(120) })
  .strict()
  .register(apiDoc, { id: 'CapsuleCreateRequest' });

export const CapsuleSummary = z
  .object({
    id: z.string(),
    name: z.string(),
    status: z.enum(['active', 'revoked']),
    created_at: DateTime,
    revoked_at: DateTime.nullable(),
    document_count: z.number().int(),
    member_count: z.number().int(),
    ai_grant_count: z.number().int(),
  })
  .register(apiDoc, { id: 'Capsule' });

export const CapsuleList = z.object({
  ok: z.boolean(),
  count: z.number().int(),
  capsules: z.array(CapsuleSummary),
});

export const CapsuleDetail = CapsuleSummary.extend({
  revoke_receipt_id: z.string().nullable(),
  documents: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      size_bytes: z.number().int(),
      sha256: z.string(),
      created_at: DateTime,
    }),
  ),
  members: z.array(z.object({ id: z.string(), email: z.string(), role: z.string(), created_at: DateTime })),
  ai_grants: z.array(
    z.object({
      id: z.string(),
      handle: z.string(),
      agent_id: z.string(),
      documents: z.array(z.string()).nullable(),
      created_at: DateTime,
    }),
  ),
}).register(apiDoc, { id: 'CapsuleDetail' });

export const CapsuleDocumentRequest = z
  .object({ title: ShortText(300), text: z.string().min(1).max(1_000_000) })
  .strict()
  .register(apiDoc, { id: 'CapsuleDocumentRequest' });

export const CapsuleDocument = z
  .object({
    id: z.string(),
    capsule_id: z.string(),
    title: z.string(),
    size_bytes: z.number().int(),
    sha256: z.string(),
    sealed: z.literal(true),
    created_at: DateTime,
  })
  .register(apiDoc, { id: 'CapsuleDocument' });

export const CapsuleMemberRequest = z
  .object({ email: z.email().max(254), role: z.enum(MEMBER_ROLES) })
  .strict()
  .register(apiDoc, { id: 'CapsuleMemberRequest' });

export const CapsuleMember = z
  .object({
    id: z.string(),
    capsule_id: z.string(),
    email: z.string(),
    role: z.enum(MEMBER_ROLES),
    created_at: DateTime,
  })
  .register(apiDoc, { id: 'CapsuleMember' });

export const CapsuleAiGrantRequest = z
  .object({
    agent: z.string().regex(/^[a-z0-9-]{1,64}$/, 'agent is the handle of an agent of this organization'),
    documents: z.array(z.string().min(1).max(128)).min(1).max(500).optional(),
  })
  .strict()
  .register(apiDoc, { id: 'CapsuleAiGrantRequest' });

export const CapsuleAiGrant = z
  .object({
    id: z.string(),
    capsule_id: z.string(),
    agent: z.string(),
    agent_id: z.string(),
    documents: z.array(z.string()).nullable(),
    created_at: DateTime,
  })
  .register(apiDoc, { id: 'CapsuleAiGrant' });

export const CapsuleRevoked = CapsuleSummary.extend({
  receipt_id: z.string().nullable(),
  already_revoked: z.boolean(),
}).register(apiDoc, { id: 'CapsuleRevoked' });

// ---------------------------------------------------------------- recovery

export const RecoveryPubkeyRequest = z
  .object({
    pubkey_hex: z.string().regex(/^[0-9a-f]{64}$/, 'pubkey_hex must be 64 lowercase hex characters'),
  })
  .strict()
  .register(apiDoc, { id: 'RecoveryPubkeyRequest' });

export const RecoveryPubkeyResponse = z.object({
  fingerprint: z.string(),
  pubkey_hex: z.string(),
  created_at: DateTime,
  replaced: z.boolean(),
});

export const RecoveryCopyRequest = z
  .object({ ciphertext_b64: Base64('ciphertext_b64'), label: ShortText(120).optional() })
  .strict()
  .register(apiDoc, { id: 'RecoveryCopyRequest' });

export const RecoveryCopy = z.object({
  id: z.string(),
  label: z.string().nullable(),
  sha256: z.string(),
  size_bytes: z.number().int(),
  created_at: DateTime,
});

export const RecoveryEventRequest = z
  .object({
    kind: z.enum(RECOVERY_EVENT_KINDS),
    detail: z.record(z.string().max(64), z.string().max(512)).optional(),
  })
  .strict()
  .register(apiDoc, { id: 'RecoveryEventRequest' });

export const RecoveryEvent = z.object({
  id: z.string(),
  kind: z.string(),
  detail: z.record(z.string(), z.unknown()).nullable(),
  created_at: DateTime,
});

export const RecoveryState = z
  .object({
    ok: z.boolean(),
    configured: z.boolean(),
    key: z.object({ pubkey_hex: z.string(), fingerprint: z.string(), created_at: DateTime }).nullable(),
    copy_count: z.number().int(),
    latest_copy: RecoveryCopy.extend({ ciphertext_b64: z.string() }).nullable(),
    events: z.array(RecoveryEvent),
  })
  .register(apiDoc, { id: 'RecoveryState' });

// ---------------------------------------------------------------- usage

export const InvoiceQuery = z.object({
  period: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'period is a month, YYYY-MM')
    .optional()
    .register(apiDoc, { param: { name: 'period', in: 'query' }, example: '2026-11' }),
});

export const InvoiceSchema = z
  .object({
    org_id: z.string(),
    period: z.string(),
    decisions: z.number().int(),
    free_allowance: z.number().int(),
    billable_decisions: z.number().int(),
    remaining_free_decisions: z.number().int(),
    unmetered_actions: z.number().int(),
    over_allowance: z.boolean(),
    policy: z.string(),
  })
  .register(apiDoc, { id: 'Invoice' });

export const OverviewSchema = z
  .object({
    ok: z.boolean(),
    org_id: z.string(),
    period: z.string(),
    decisions: z.number().int(),
    free_allowance: z.number().int(),
    remaining_free_decisions: z.number().int(),
    billable_decisions: z.number().int(),
    unmetered_actions: z.number().int(),
    agents: z.object({
      total: z.number().int(),
      active: z.number().int(),
      fabric_enrolled: z.number().int(),
    }),
    tables: z.number().int(),
    capsules: z.object({ total: z.number().int(), active: z.number().int() }),
    receipts: z.number().int(),
    audit_rows: z.number().int(),
  })
  .register(apiDoc, { id: 'Overview' });

export const ScopeSchema = z.enum(SCOPES);

// ---------------------------------------------------------------- extensions for tools over HTTP

export const WhoamiSchema = z
  .union([
    z.object({
      kind: z.literal('agent'),
      org_id: z.string(),
      handle: z.string(),
      jti: z.string(),
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
    rows: ReadResponse.shape.rows,
    count: z.number().int(),
    audit: AuditRef.nullable(),
  })
  .register(apiDoc, { id: 'Retrieval' });

export const NodeRequest = z
  .object({
    machine_id: z.string().regex(/^[0-9a-f]{32}$/, 'machine_id is 32 lowercase hex characters'),
    hostname: ShortText(255),
    platform: ShortText(32),
    arch: ShortText(32),
  })
  .strict()
  .register(apiDoc, { id: 'NodeRequest' });

export const NodeRegistration = z
  .object({
    node: z.object({
      node_id: z.string(),
      machine_id: z.string(),
      hostname: z.string(),
      platform: z.string(),
      arch: z.string(),
      registered_at: z.string(),
      last_seen_at: z.string(),
    }),
    newly_registered: z.boolean(),
    organization_nodes: z.number().int(),
  })
  .register(apiDoc, { id: 'NodeRegistration' });

export const TermsAcceptRequest = z
  .object({ version: z.string().regex(/^[0-9A-Za-z.-]{1,32}$/), text: z.string().min(1).max(100_000) })
  .strict()
  .register(apiDoc, { id: 'TermsAcceptRequest' });

export const TermsAcceptance = z
  .object({
    version: z.string(),
    sha256: z.string(),
    accepted_at: z.string(),
    receipt_id: z.string(),
    newly_accepted: z.boolean(),
  })
  .register(apiDoc, { id: 'TermsAcceptance' });

export const CurrentTerms = z
  .object({
    version: z.string(),
    sha256: z.string(),
    text: z.string(),
    accepted: z.boolean(),
    accepted_at: z.string().nullable(),
    receipt_id: z.string().nullable(),
  })
  .register(apiDoc, { id: 'CurrentTerms' });

export const TermsVersionParam = z.object({
  version: z
    .string()
    .regex(/^[0-9A-Za-z.-]{1,32}$/)
    .register(apiDoc, { param: { name: 'version', in: 'path' } }),
});

export const TermsState = z
  .object({
    version: z.string(),
    acceptance: z.object({ accepted_at: z.string(), receipt_id: z.string() }).nullable(),
  })
  .register(apiDoc, { id: 'TermsState' });

// ---------------------------------------------------------------- sources (external APIs)

export const SourceRequest = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'name is lowercase letters, digits, - and _'),
    base_url: z.url({ protocol: /^https?$/ }).max(2048),
    scheme: z.enum(SOURCE_SCHEMES),
    header_name: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,64}$/)
      .optional(),
    credential: z.string().min(1).max(8192),
  })
  .strict()
  .register(apiDoc, { id: 'SourceRequest' });

export const SourceView = z
  .object({
    source_id: z.string(),
    name: z.string(),
    base_url: z.string(),
    scheme: z.enum(SOURCE_SCHEMES),
    header_name: z.string().nullable(),
    credential: z.string(),
    created_at: z.string(),
  })
  .register(apiDoc, { id: 'Source' });

export const SourceList = z
  .object({ ok: z.boolean(), count: z.number().int(), sources: z.array(SourceView) })
  .register(apiDoc, { id: 'SourceList' });

export const SourceCallRequest = z
  .object({
    method: z.enum([...READ_METHODS, ...WRITE_METHODS]),
    path: z.string().max(2048),
    query: z.record(z.string().max(128), z.string().max(2048)).optional(),
    body: z.unknown().optional(),
  })
  .strict()
  .register(apiDoc, { id: 'SourceCallRequest' });

export const UseRequest = z
  .object({
    source: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/),
    method: z.enum([...READ_METHODS, ...WRITE_METHODS]),
    path: z.string().max(2048),
    query: z.record(z.string().max(128), z.string().max(2048)).optional(),
    body: z.unknown().optional(),
  })
  .strict()
  .register(apiDoc, { id: 'UseRequest' });

export const SourceNameParam = z.object({
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/)
    .register(apiDoc, { param: { name: 'name', in: 'path' } }),
});

export const SourceCallResult = z
  .object({
    source: z.string(),
    method: z.string(),
    url: z.string(),
    status: z.number().int(),
    content_type: z.string().nullable(),
    body: z.string(),
    truncated: z.boolean(),
    receipt_id: z.string(),
  })
  .register(apiDoc, { id: 'SourceCallResult' });

// ---------------------------------------------------------------- connecting a computer (RFC 8628)

export const ConnectStartRequest = z
  .object({
    machine_id: z.string().regex(/^[0-9a-f]{32}$/),
    hostname: ShortText(255),
    platform: ShortText(32),
    arch: ShortText(32),
  })
  .strict()
  .register(apiDoc, { id: 'ConnectStartRequest' });

export const ConnectStart = z
  .object({
    device_code: z.string(),
    user_code: z.string(),
    verification_path: z.string(),
    verification_uri: z.string(),
    expires_in: z.number().int(),
    interval: z.number().int(),
  })
  .register(apiDoc, { id: 'ConnectStart' });

export const ConnectPollRequest = z
  .object({ device_code: z.string().regex(/^[A-Za-z0-9_-]{43}$/) })
  .strict()
  .register(apiDoc, { id: 'ConnectPollRequest' });

export const ConnectPoll = z
  .object({
    status: z.enum(['pending', 'approved', 'denied', 'expired']),
    api_key: z.string().optional(),
    org_id: z.string().optional(),
    node_id: z.string().optional(),
  })
  .register(apiDoc, { id: 'ConnectPoll' });
