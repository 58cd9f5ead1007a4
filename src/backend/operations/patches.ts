// Patches as operations, and the zod schemas they take and answer: an agent submits a unified
// diff; the organization's owner lists, approves (applies) or rejects it (docs/CODE.md).
import { z } from 'zod';
import { apiDoc } from '../api-doc.ts';
import { defineOperation, lazily } from '../operation.ts';
import { OUTCOMES } from '../../gate/engine.ts';
import { MAX_PATCH_CHARS } from '../vocabulary.ts';

const patches = lazily(() => import('../patches.ts'));

export const PATCH_STATUSES = ['queued', 'applied', 'rejected'] as const;

export const PatchIdParam = z.object({
  patch_id: z
    .string()
    .regex(/^patch_[0-9a-f]{12}$/, 'a patch id is patch_ and 12 hex digits, as the list shows')
    .register(apiDoc, { param: { name: 'patch_id', in: 'path' } }),
});

export const SubmitPatchRequest = z
  .object({
    summary: z
      .string()
      .min(1)
      .max(2_000)
      .describe('what the patch does and why, for the person who reviews it'),
    diff: z
      .string()
      .min(1)
      .max(MAX_PATCH_CHARS)
      .describe('a unified diff (diff -u, git diff); paths relative to project_root'),
    project_root: z
      .string()
      .min(1)
      .max(4096)
      .describe('the absolute path of the project the diff applies to'),
  })
  .strict()
  .register(apiDoc, { id: 'SubmitPatchRequest' });

export const PatchPathDecision = z.object({
  path: z.string(),
  outcome: z.enum(OUTCOMES),
  rule_id: z.string().nullable(),
  explanation: z.string(),
  to_change: z.string(),
});

export const SubmittedPatch = z
  .object({
    ok: z.boolean(),
    patch_id: z.string(),
    status: z.literal('queued'),
    paths: z.array(PatchPathDecision),
    receipt_id: z.string(),
  })
  .register(apiDoc, { id: 'SubmittedPatch' });

export const PatchListQuery = z.object({ status: z.enum(PATCH_STATUSES).optional() });

export const StoredPatch = z.object({
  patch_id: z.string(),
  status: z.enum(PATCH_STATUSES),
  summary: z.string(),
  handle: z.string(),
  project_root: z.string(),
  paths: z.array(z.string()),
  diff: z.string(),
  diff_sha256: z.string(),
  submitted_at: z.string(),
  receipt_id: z.string(),
  decided_at: z.string().nullable(),
  decision_receipt_id: z.string().nullable(),
  reason: z.string().nullable(),
});

export const PatchList = z
  .object({ ok: z.boolean(), count: z.number().int(), patches: z.array(StoredPatch) })
  .register(apiDoc, { id: 'PatchList' });

export const ApprovedPatch = z
  .object({
    ok: z.boolean(),
    patch_id: z.string(),
    status: z.literal('applied'),
    paths: z.array(z.string()),
    decided_at: z.string(),
    receipt_id: z.string(),
  })
  .register(apiDoc, { id: 'ApprovedPatch' });

export const RejectPatchRequest = z
  .object({ reason: z.string().min(1).max(2_000).optional().describe('why, for the agent and the record') })
  .strict();

export const RejectedPatch = z
  .object({
    ok: z.boolean(),
    patch_id: z.string(),
    status: z.literal('rejected'),
    decided_at: z.string(),
    receipt_id: z.string(),
  })
  .register(apiDoc, { id: 'RejectedPatch' });

export const submitPatch = defineOperation({
  name: 'submitPatch',
  summary:
    'Submit a unified diff for the owner to review; a path the read gate does not let be written is refused',
  caller: { kind: 'agent' },
  input: SubmitPatchRequest,
  output: SubmittedPatch,
  run: async (ctx, caller, input) => (await patches()).submitPatch(ctx, caller, input),
});

export const listPatches = defineOperation({
  name: 'listPatches',
  summary: "The organization's patches, queued first by age, with their diffs",
  caller: { kind: 'org', scope: 'governance' },
  input: PatchListQuery,
  output: PatchList,
  run: async (ctx, caller, input) => (await patches()).listPatches(ctx, caller, input),
});

export const approvePatch = defineOperation({
  name: 'approvePatch',
  summary:
    'Approve a queued patch: checked with the read gate again and applied to its project on this computer, all files or none',
  caller: { kind: 'org', scope: 'governance' },
  input: PatchIdParam,
  output: ApprovedPatch,
  run: async (ctx, caller, input) => (await patches()).approvePatch(ctx, caller, input),
});

export const rejectPatch = defineOperation({
  name: 'rejectPatch',
  summary: 'Reject a queued patch; nothing is written',
  caller: { kind: 'org', scope: 'governance' },
  input: PatchIdParam.extend(RejectPatchRequest.shape),
  output: RejectedPatch,
  run: async (ctx, caller, input) => (await patches()).rejectPatch(ctx, caller, input),
});
