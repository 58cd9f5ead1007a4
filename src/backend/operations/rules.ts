// The read gate's organization rules as operations, and the zod schemas they take and answer: an
// owner lists, adds (one or many, all or none) and removes them (docs/RULES.md).
import { z } from 'zod';
import { apiDoc } from '../api-doc.ts';
import { defineOperation, lazily } from '../operation.ts';
import { RuleSchema } from '../../gate/rules-schema.ts';
import { MAX_ORGANIZATION_RULES } from '../vocabulary.ts';

const rules = lazily(() => import('../rules.ts'));

export const RuleIdParam = z.object({
  rule_id: z
    .string()
    .regex(/^rule_[0-9a-f]{12}$/, 'a rule id is rule_ and 12 hex digits, as `svc rules list` shows')
    .register(apiDoc, { param: { name: 'rule_id', in: 'path' } }),
});

export const GateRule = RuleSchema.register(apiDoc, {
  id: 'GateRule',
  description: 'A file and folder rule of the read gate, in the format of docs/RULES.md',
  example: { effect: 'deny', paths: ['.env', 'secrets/'], reason: 'customer keys' },
});

export const StoredRule = RuleSchema.and(
  z.object({ rule_id: z.string(), level: z.literal('organization'), created_at: z.string() }),
).register(apiDoc, { id: 'StoredGateRule' });

export const AddRulesRequest = z
  .object({ rules: z.array(GateRule).min(1).max(MAX_ORGANIZATION_RULES) })
  .strict()
  .register(apiDoc, { id: 'AddRulesRequest' });

export const RuleList = z
  .object({ ok: z.boolean(), count: z.number().int(), rules: z.array(StoredRule) })
  .register(apiDoc, { id: 'GateRuleList' });

export const AddedRules = RuleList.extend({ receipt_id: z.string() }).register(apiDoc, {
  id: 'AddedGateRules',
});

export const RemovedRule = z
  .object({ ok: z.boolean(), rule_id: z.string(), removed_at: z.string(), receipt_id: z.string() })
  .register(apiDoc, { id: 'RemovedGateRule' });

export const listRules = defineOperation({
  name: 'listRules',
  summary: "The organization's file and folder rules for the read gate, in the order they were added",
  caller: { kind: 'org', scope: 'governance' },
  input: z.object({}),
  output: RuleList,
  run: async (ctx, caller) => (await rules()).listRules(ctx, caller),
});

export const addRules = defineOperation({
  name: 'addRules',
  summary:
    'Add file and folder rules to the organization, all or none; a rule that would loosen a built-in rule is refused',
  caller: { kind: 'org', scope: 'governance' },
  input: AddRulesRequest,
  output: AddedRules,
  run: async (ctx, caller, input) => (await rules()).addRules(ctx, caller, input),
});

export const removeRule = defineOperation({
  name: 'removeRule',
  summary: 'Remove one of the organization\u2019s file and folder rules',
  caller: { kind: 'org', scope: 'governance' },
  input: RuleIdParam,
  output: RemovedRule,
  run: async (ctx, caller, input) => (await rules()).removeRule(ctx, caller, input),
});
