// Document operations and the zod schemas they take and answer: answers from the sections a
// clearance allows, capsules of sealed documents, and the recovery key, copies and events.
import { z } from 'zod';
import { apiDoc } from '../api-doc.ts';
import { defineOperation, lazily } from '../operation.ts';
import { Base64, ShortText, DateTime, ReceiptSchema } from './common.ts';
import { CLEARANCE_LEVELS, MEMBER_ROLES, RECOVERY_EVENT_KINDS } from '../vocabulary.ts';

const documents = lazily(() => import('../documents.ts'));
const capsules = lazily(() => import('../capsules.ts'));
const recovery = lazily(() => import('../recovery.ts'));

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

const governanceKey = { kind: 'org', scope: 'governance' } as const;

export const computeDocuments = defineOperation({
  name: 'computeDocuments',
  summary: 'Answer a question from the sections the clearance allows',
  caller: governanceKey,
  input: DocumentsRequest,
  output: DocumentsResponse,
  run: async (ctx, caller, input) => (await documents()).computeDocuments(ctx, caller, input),
});

export const createCapsule = defineOperation({
  name: 'createCapsule',
  summary: 'Create a capsule',
  caller: governanceKey,
  input: CapsuleCreateRequest,
  output: CapsuleSummary,
  run: async (ctx, caller, input) => (await capsules()).createCapsule(ctx, caller, input.name),
});

export const listCapsules = defineOperation({
  name: 'listCapsules',
  summary: 'List capsules',
  caller: governanceKey,
  input: z.object({}),
  output: CapsuleList,
  run: async (ctx, caller) => (await capsules()).listCapsules(ctx, caller),
});

export const getCapsule = defineOperation({
  name: 'getCapsule',
  summary: 'Read one capsule',
  caller: governanceKey,
  input: IdParam,
  output: CapsuleDetail,
  run: async (ctx, caller, input) => (await capsules()).getCapsule(ctx, caller, input.id),
});

export const addCapsuleDocument = defineOperation({
  name: 'addCapsuleDocument',
  summary: 'Seal a document into a capsule',
  caller: governanceKey,
  input: CapsuleDocumentRequest.extend(IdParam.shape),
  output: CapsuleDocument,
  run: async (ctx, caller, { id, ...input }) => (await capsules()).addDocument(ctx, caller, id, input),
});

export const addCapsuleMember = defineOperation({
  name: 'addCapsuleMember',
  summary: 'Add a person to a capsule',
  caller: governanceKey,
  input: CapsuleMemberRequest.extend(IdParam.shape),
  output: CapsuleMember,
  run: async (ctx, caller, { id, ...input }) => (await capsules()).addMember(ctx, caller, id, input),
});

export const addCapsuleAiGrant = defineOperation({
  name: 'addCapsuleAiGrant',
  summary: 'Let an agent read a capsule’s documents',
  caller: governanceKey,
  input: CapsuleAiGrantRequest.extend(IdParam.shape),
  output: CapsuleAiGrant,
  run: async (ctx, caller, { id, ...input }) => (await capsules()).addAiGrant(ctx, caller, id, input),
});

export const revokeCapsule = defineOperation({
  name: 'revokeCapsule',
  summary: 'Turn every access to a capsule off',
  caller: governanceKey,
  input: IdParam,
  output: CapsuleRevoked,
  run: async (ctx, caller, input) => (await capsules()).revokeCapsule(ctx, caller, input.id),
});

export const setRecoveryKey = defineOperation({
  name: 'setRecoveryKey',
  summary: 'Set the public key derived from the 12-word phrase',
  caller: governanceKey,
  input: RecoveryPubkeyRequest,
  output: RecoveryPubkeyResponse,
  run: async (ctx, caller, input) => (await recovery()).setRecoveryKey(ctx, caller, input.pubkey_hex),
});

export const storeRecoveryCopy = defineOperation({
  name: 'storeRecoveryCopy',
  summary: 'Store a vault backup sealed to the recovery key',
  caller: governanceKey,
  input: RecoveryCopyRequest,
  output: RecoveryCopy,
  run: async (ctx, caller, input) => (await recovery()).storeRecoveryCopy(ctx, caller, input),
});

export const recordRecoveryEvent = defineOperation({
  name: 'recordRecoveryEvent',
  summary: 'Record a recovery event',
  caller: governanceKey,
  input: RecoveryEventRequest,
  output: RecoveryEvent,
  run: async (ctx, caller, input) => (await recovery()).recordRecoveryEvent(ctx, caller, input),
});

export const getRecoveryState = defineOperation({
  name: 'getRecoveryState',
  summary: 'Recovery state',
  caller: governanceKey,
  input: z.object({}),
  output: RecoveryState,
  run: async (ctx, caller) => (await recovery()).recoveryState(ctx, caller),
});
