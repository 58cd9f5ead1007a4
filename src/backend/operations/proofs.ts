// Proof operations that need no credential: verify a proof, fetch its signed record, and the
// published signing keys; and the usage meter.
import { z } from 'zod';
import * as S from '../schemas.ts';
import { defineOperation } from '../operation.ts';
import { ServiceError } from '../errors.ts';
import * as usage from '../usage.ts';

export const verifyProof = defineOperation({
  name: 'verifyProof',
  summary: 'Verify a proof by id (no credential)',
  caller: { kind: 'none' },
  input: S.VerifyRequest,
  output: S.VerifyResponse,
  run: (ctx, _caller, input) => {
    const check = ctx.chains.check(input.proof_id);
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
  input: S.ProofParam,
  output: S.ReceiptSchema,
  run: (ctx, _caller, input) => {
    const receipt = ctx.chains.receipt(input.id);
    if (!receipt) throw new ServiceError('not_found', `no proof ${input.id}`);
    return receipt;
  },
});

export const getPublishedKeys = defineOperation({
  name: 'getPublishedKeys',
  summary: 'The service signing keys (Ed25519), by signing_kid',
  caller: { kind: 'none' },
  input: z.object({}),
  output: S.PublishedKeys,
  run: (ctx) => ({ keys: ctx.signer.published() }),
});

export const getOverview = defineOperation({
  name: 'getOverview',
  summary: 'The usage meter and what the organization holds',
  caller: { kind: 'org', scope: 'usage' },
  input: z.object({}),
  output: S.OverviewSchema,
  run: (ctx, caller) => usage.overview(ctx, caller.orgId),
});

export const getInvoice = defineOperation({
  name: 'getInvoice',
  summary: 'Decisions this period against the free allowance',
  caller: { kind: 'org', scope: 'usage' },
  input: S.InvoiceQuery,
  output: S.InvoiceSchema,
  run: (ctx, caller, input) => usage.invoice(ctx, caller.orgId, input.period),
});
