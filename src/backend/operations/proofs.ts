// Proof operations and the zod schemas they take and answer: verify a proof, fetch its signed
// record and the published signing keys (no credential needed); and the usage meter.
import { z } from 'zod';
import { apiDoc } from '../api-doc.ts';
import { defineOperation, lazily } from '../operation.ts';
import { ServiceError } from '../errors.ts';
import { Kid, DateTime, ReceiptSchema } from './common.ts';

const usage = lazily(() => import('../usage.ts'));

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

export const verifyProof = defineOperation({
  name: 'verifyProof',
  summary: 'Verify a proof by id (no credential)',
  caller: { kind: 'none' },
  input: VerifyRequest,
  output: VerifyResponse,
  run: async (ctx, _caller, input) => {
    const check = await ctx.chains.check(input.proof_id);
    return {
      proof_id: input.proof_id,
      authentic: check.authentic,
      unaltered: check.unaltered,
      signer: check.signer,
      found: check.found,
      chain: check.chain,
      chain_index: check.chain_index,
      kind: check.kind,
      signed_at: check.signed_at,
      checks: check.checks,
    };
  },
});

export const getProof = defineOperation({
  name: 'getProof',
  summary: 'The signed record of a proof, for offline verification (no credential)',
  caller: { kind: 'none' },
  input: ProofParam,
  output: ReceiptSchema,
  run: async (ctx, _caller, input) => {
    const receipt = await ctx.chains.receipt(input.id);
    if (!receipt) throw new ServiceError('not_found', `no proof ${input.id}`);
    return receipt;
  },
});

export const getPublishedKeys = defineOperation({
  name: 'getPublishedKeys',
  summary: 'The service signing keys (Ed25519), by signing_kid',
  caller: { kind: 'none' },
  input: z.object({}),
  output: PublishedKeys,
  run: (ctx) => ({ keys: ctx.signer.published() }),
});

export const getOverview = defineOperation({
  name: 'getOverview',
  summary: 'The usage meter and what the organization holds',
  caller: { kind: 'org', scope: 'usage' },
  input: z.object({}),
  output: OverviewSchema,
  run: async (ctx, caller) => (await usage()).overview(ctx, caller.orgId),
});

export const getInvoice = defineOperation({
  name: 'getInvoice',
  summary: 'Decisions this period against the free allowance',
  caller: { kind: 'org', scope: 'usage' },
  input: InvoiceQuery,
  output: InvoiceSchema,
  run: async (ctx, caller, input) => (await usage()).invoice(ctx, caller.orgId, input.period),
});
