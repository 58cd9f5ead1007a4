// What an organization's owner does with the scans its computers keep (docs/SCAN.md): list the
// organization's verdicts on findings, promote a project's verdict to the organization, and apply
// a scan's plan as organization rules. Scanning, a project's own verdicts and applying a plan to a
// project's rules file happen on the computer itself (`svc scan`, `svc plan`), with no key.
import { z } from 'zod';
import { apiDoc } from '../api-doc.ts';
import { defineOperation, lazily } from '../operation.ts';
import { VERDICTS } from '../vocabulary.ts';

const plans = lazily(() => import('../scan-plan.ts'));
const store = lazily(() => import('../scan-store.ts'));

export const FeedbackIdParam = z.object({
  feedback_id: z
    .string()
    .regex(/^fb_[0-9a-f]{16}$/, 'a verdict id is fb_ and 16 hex digits, as `svc scan feedback list` shows')
    .register(apiDoc, { param: { name: 'feedback_id', in: 'path' } }),
});

export const ScanIdParam = z.object({
  scan_id: z
    .string()
    .regex(/^scan_[0-9a-f]{16}$/, 'a scan id is scan_ and 16 hex digits, as `svc scan` prints it')
    .register(apiDoc, { param: { name: 'scan_id', in: 'path' } }),
});

/** Item ids of a plan, as `svc plan` lists them: r1, s2, v3. */
export const PlanItemIds = z
  .array(z.string().regex(/^[rsv][1-9]\d{0,5}$/))
  .min(1)
  .max(1_000);

export const ApplyPlanRequest = z
  .object({
    items: PlanItemIds.optional().describe('the rule items to apply (default: every rule item)'),
  })
  .strict()
  .register(apiDoc, { id: 'ApplyPlanRequest' });

export const Feedback = z
  .object({
    feedback_id: z.string(),
    scope: z.enum(['project', 'organization']),
    project: z.string().nullable(),
    org_id: z.string().nullable(),
    fingerprint: z.string(),
    verdict: z.enum(VERDICTS),
    reason: z.string().nullable(),
    type: z.string().nullable(),
    decided_by: z.string(),
    decided_at: z.string(),
    receipt_id: z.string(),
    promoted_from: z.string().nullable(),
  })
  .register(apiDoc, { id: 'ScanFeedback' });

export const FeedbackList = z
  .object({ ok: z.boolean(), count: z.number().int(), feedback: z.array(Feedback) })
  .register(apiDoc, { id: 'ScanFeedbackList' });

export const AppliedPlan = z
  .object({
    ok: z.boolean(),
    scan_id: z.string(),
    applied: z.array(z.string()),
    rules_added: z.number().int(),
    to: z.string(),
    sealed: z.array(z.object({ path: z.string(), seal_id: z.string() })),
    not_sealed: z.array(z.object({ path: z.string(), reason: z.string() })),
    vaulted: z.array(z.object({ name: z.string(), path: z.string(), line: z.number().int() })),
    not_vaulted: z.array(z.object({ name: z.string(), reason: z.string() })),
    receipt_id: z.string(),
  })
  .register(apiDoc, { id: 'AppliedScanPlan' });

export const listScanFeedback = defineOperation({
  name: 'listScanFeedback',
  summary: "The organization's verdicts on scan findings, newest first: every computer of it honours them",
  caller: { kind: 'org', scope: 'governance' },
  input: z.object({}),
  output: FeedbackList,
  run: async (ctx, caller) => {
    const feedback = await (await store()).organizationFeedback(ctx, caller);
    return { ok: true, count: feedback.length, feedback };
  },
});

export const promoteScanFeedback = defineOperation({
  name: 'promoteScanFeedback',
  summary: "Make a project's verdict on a finding the organization's, with a receipt",
  caller: { kind: 'org', scope: 'governance' },
  input: FeedbackIdParam,
  output: Feedback,
  run: async (ctx, caller, input) => (await store()).promoteFeedback(ctx, caller, input),
});

export const applyScanPlan = defineOperation({
  name: 'applyScanPlan',
  summary:
    "Add a scan plan's rules (all, or the items picked) to the organization's rules for that project, with a receipt",
  caller: { kind: 'org', scope: 'governance' },
  input: ScanIdParam.extend(ApplyPlanRequest.shape),
  output: AppliedPlan,
  run: async (ctx, caller, input) => ({
    ok: true,
    ...(await (await plans()).applyPlanToOrganization(ctx, caller, input)),
  }),
});
