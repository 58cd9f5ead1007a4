// Fabric operations and the zod schemas they take and answer: enrollment, connections between
// organizations, and the content-blind envelope exchange behind the fetch gate.
import { z } from 'zod';
import { apiDoc } from '../api-doc.ts';
import { defineOperation, lazily } from '../operation.ts';
import { requireAgent } from '../credentials.ts';
import { ServiceError } from '../errors.ts';
import { ENVELOPE_MAX_FETCHES } from '../vocabulary.ts';
import { Kid, Base64, ShortText, DateTime, ErrorBody, ReceiptSchema, HandleParam } from './common.ts';

const fabric = lazily(() => import('../fabric.ts'));

const EcdhPubkeyHex = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'ecdh_pubkey_hex must be 64 lowercase hex characters (X25519, 32 raw bytes)');

export const EnrollChallengeRequest = z
  .object({ ecdh_pubkey_hex: EcdhPubkeyHex })
  .strict()
  .register(apiDoc, { id: 'EnrollChallengeRequest' });

/**
 * `challenge_b64`: HPKE (RFC 9180 base mode; DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-256-GCM;
 * info `svc-fabric-enroll-v1`; empty AAD) sealed to the key, as base64 of enc (32 bytes) then the
 * ciphertext. Its plaintext, read as UTF-8, is the `proof` enroll takes until `expires_at`.
 */
export const EnrollChallenge = z
  .object({ kid: Kid, challenge_b64: z.string(), expires_at: DateTime })
  .register(apiDoc, { id: 'EnrollChallenge' });

export const EnrollRequest = z
  .object({
    ecdh_pubkey_hex: EcdhPubkeyHex,
    // Checked by the core, not here, so a missing or wrong proof is a receipted refusal.
    proof: z.string().max(256, 'proof is at most 256 characters').optional(),
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

export const FabricSenders = z
  .object({
    ok: z.boolean(),
    kid: Kid.describe("this agent's Fabric address"),
    count: z.number().int(),
    grants: z
      .array(FabricGrantSchema)
      .describe(
        "grants naming this address as subject: each lets the issuing organization's agents (all, or those in allowed_sender_kids) send to it",
      ),
  })
  .register(apiDoc, { id: 'FabricSenders' });

export const FabricKeyParams = HandleParam.extend({
  kid: Kid.register(apiDoc, { param: { name: 'kid', in: 'path' }, example: '3f9a0c1d2e4b5a69' }),
});

export const FabricKey = z
  .object({
    kid: Kid,
    ecdh_pubkey_hex: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .describe('the X25519 public key enrolled at kid: seal envelopes to it'),
  })
  .register(apiDoc, { id: 'FabricKey' });

export const SendRequest = z
  .object({
    recipient_kid: Kid,
    ciphertext_b64: Base64('ciphertext_b64'),
    // Limits as checks, not refinements, so the published schema states them (maxLength).
    wrapped_key_b64: Base64('wrapped_key_b64').max(1024, 'wrapped_key_b64 is at most 1024 characters'),
    payload_iv_b64: Base64('payload_iv_b64').max(64, 'payload_iv_b64 is at most 64 characters'),
    content_type_hint: ShortText(128).optional(),
    filename_hint: ShortText(255).optional(),
    ttl_hours: z.number().int().min(1).max(720).optional(),
    max_fetches: z.number().int().min(1).max(ENVELOPE_MAX_FETCHES).optional(),
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
  // Any UUID in its 8-4-4-4-12 form, in either case, as the document's `format: uuid` says: the
  // core looks the envelope up in lower case, as its id was issued.
  .object({ blob_id: z.guid() })
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

export const requestEnrollChallenge = defineOperation({
  name: 'requestEnrollChallenge',
  summary: 'Get a challenge sealed to an X25519 public key, whose opened text proves holding its private key',
  caller: { kind: 'agent' },
  input: EnrollChallengeRequest.extend(HandleParam.shape),
  output: EnrollChallenge,
  run: async (ctx, agent, input) =>
    (await fabric()).enrollChallenge(ctx, requireAgent(agent, input.handle), input.ecdh_pubkey_hex),
});

export const enrollFabric = defineOperation({
  name: 'enrollFabric',
  summary: 'Register an X25519 public key, with proof of holding its private key, and get a Fabric address',
  caller: { kind: 'agent' },
  input: EnrollRequest.extend(HandleParam.shape),
  output: EnrollResponse,
  run: async (ctx, agent, input) =>
    (await fabric()).enroll(ctx, requireAgent(agent, input.handle), input.ecdh_pubkey_hex, input.proof),
});

export const listFabricGrants = defineOperation({
  name: 'listFabricGrants',
  summary: 'Outbound grants issued and inbound grants naming this organization’s agents',
  caller: { kind: 'org', scope: 'fabric' },
  input: z.object({}),
  output: FabricGrantList,
  run: async (ctx, caller) => (await fabric()).listFabricGrants(ctx, caller),
});

export const createFabricGrant = defineOperation({
  name: 'createFabricGrant',
  summary: 'Authorize a recipient address (deny by default)',
  caller: { kind: 'org', scope: 'fabric' },
  input: FabricGrantRequest,
  output: FabricGrantCreated,
  run: async (ctx, caller, input) => (await fabric()).createFabricGrant(ctx, caller, input),
});

export const revokeFabricGrant = defineOperation({
  name: 'revokeFabricGrant',
  summary: 'Revoke a connection',
  caller: { kind: 'org', scope: 'fabric' },
  input: FabricRevokeRequest,
  output: FabricGrantRevoked,
  run: async (ctx, caller, input) =>
    (await fabric()).revokeFabricGrant(ctx, caller, input.grant_id, input.reason),
});

export const listFabricSenders = defineOperation({
  name: 'listFabricSenders',
  summary: 'The grants naming this agent’s Fabric address: who may send to it',
  caller: { kind: 'agent' },
  input: HandleParam,
  output: FabricSenders,
  run: async (ctx, agent, input) => (await fabric()).inboundGrants(ctx, requireAgent(agent, input.handle)),
});

export const getFabricKey = defineOperation({
  name: 'getFabricKey',
  summary: 'The X25519 public key enrolled at a Fabric address, to seal an envelope to it',
  caller: { kind: 'agent' },
  input: FabricKeyParams,
  output: FabricKey,
  run: async (ctx, agent, input) =>
    (await fabric()).enrolledKey(ctx, requireAgent(agent, input.handle), input.kid),
});

export const sendEnvelope = defineOperation({
  name: 'sendEnvelope',
  summary: 'Store a sealed envelope; sign a metadata-only receipt',
  caller: { kind: 'agent' },
  input: SendRequest.extend(HandleParam.shape),
  output: SendResponse,
  run: async (ctx, agent, { handle, ...input }) =>
    (await fabric()).send(ctx, requireAgent(agent, handle), input),
});

export const listInbox = defineOperation({
  name: 'listInbox',
  summary: 'Envelopes addressed to this agent: metadata only',
  caller: { kind: 'agent' },
  input: HandleParam,
  output: InboxResponse,
  run: async (ctx, agent, input) => (await fabric()).inbox(ctx, requireAgent(agent, input.handle)),
});

export const fetchEnvelope = defineOperation({
  name: 'fetchEnvelope',
  summary: 'Fetch one envelope through the gate',
  caller: { kind: 'agent' },
  input: FetchRequest.extend(HandleParam.shape),
  output: FetchResponse,
  run: async (ctx, agent, input) => {
    const result = await (
      await fabric()
    ).fetchEnvelope(ctx, requireAgent(agent, input.handle), input.blob_id);
    // A denial is an error the caller cannot miss, carrying its reasons and signed receipt.
    if (result.outcome === 'deny') {
      throw new ServiceError('fabric_denied', result.message, {
        reasons: result.reasons,
        receipt_id: result.receipt.receipt_id,
        receipt: result.receipt,
      });
    }
    const { envelope, reasons, receipt } = result;
    return {
      ...envelope,
      decision: { outcome: 'allow' as const, reasons, receipt_id: receipt.receipt_id },
      receipt,
    };
  },
});
