// The read gate's organization rules (docs/RULES.md), kept by the service: an owner lists, adds
// and removes them; the gate on each of the organization's computers applies them above that
// computer's own rules. Tighten only: a rule that would loosen a built-in rule is refused with a
// receipt, naming the rule it would loosen.
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { homedir } from 'node:os';
import { builtinRules } from '../gate/builtin.ts';
import { loosenings } from '../gate/engine.ts';
import type { PlacedRule, Rule } from '../gate/rules.ts';
import { nowIso, type Context } from './context.ts';
import type { OrgCaller } from './credentials.ts';
import { Refusal, actorOf, receiptRefusals } from './governance.ts';
import { parseStoredRule, type StoredRuleRow } from './rules-read.ts';
import { MAX_ORGANIZATION_RULES } from './vocabulary.ts';

export { MAX_ORGANIZATION_RULES };

export interface RuleView extends Rule {
  rule_id: string;
  level: 'organization';
  created_at: string;
}

const view = (row: StoredRuleRow): RuleView => ({
  rule_id: row.rule_id,
  level: 'organization',
  ...parseStoredRule(row),
  created_at: row.created_at,
});

/** A rule id: short enough to type in `svc rules remove`, random so that ids never repeat. */
const newRuleId = () => `rule_${randomBytes(6).toString('hex')}`;

export async function listRules(ctx: Context, caller: OrgCaller) {
  const rows = await ctx.store.all<StoredRuleRow>(
    'SELECT rule_id, rule, created_at FROM gate_rules WHERE org_id = ? ORDER BY position',
    caller.orgId,
  );
  const rules = rows.map(view);
  return { ok: true, count: rules.length, rules };
}

/**
 * The built-in rules as the service sees them, for the tighten-only check: svc's data dir here and
 * the default one under the home folder stand for every computer's (an organization rule that
 * opens one of them would open them all).
 */
function builtinProbe(ctx: Context): PlacedRule[] {
  return builtinRules(dirname(ctx.store.file));
}

/** Adds rules at the end of the organization's list, all or none; each add is receipted. */
export async function addRules(ctx: Context, caller: OrgCaller, input: { rules: Rule[] }) {
  return await receiptRefusals(ctx, async () => {
    const refuse = (message: string, reason: string, details: Record<string, unknown>) =>
      new Refusal('invalid_request', message, details, {
        kind: 'rules.add.deny',
        org_id: caller.orgId,
        body: { ...actorOf(caller), reason, rules: input.rules.length, ...details },
      });
    const anchors = { projectRoot: '/project', home: homedir() };
    const above = builtinProbe(ctx);
    input.rules.forEach((rule, index) => {
      const loosened = loosenings(rule, 'organization', above, anchors)[0];
      if (loosened) {
        throw refuse(
          `rule ${index + 1} (${rule.effect} ${rule.paths.join(', ')}) would loosen ${loosened.rule.id}, which ${loosened.effect === 'deny' ? 'denies' : `answers ${loosened.effect} to`} ${loosened.rule.rule.paths.join(', ')}: a rule may tighten the rules above it, never loosen them`,
          'loosens',
          { index: index + 1, loosens: loosened.rule.id },
        );
      }
    });
    return ctx.store.write(async () => {
      const { n, last } = (await ctx.store.get<{ n: number; last: number | null }>(
        'SELECT COUNT(*) AS n, MAX(position) AS last FROM gate_rules WHERE org_id = ?',
        caller.orgId,
      ))!;
      if (n + input.rules.length > MAX_ORGANIZATION_RULES) {
        throw refuse(
          `an organization keeps at most ${MAX_ORGANIZATION_RULES} rules; it has ${n}, and ${input.rules.length} more would pass that`,
          'too_many',
          { limit: MAX_ORGANIZATION_RULES, count: n },
        );
      }
      const createdAt = nowIso(ctx);
      const added: RuleView[] = [];
      let position = last ?? 0;
      for (const rule of input.rules) {
        const row = { rule_id: newRuleId(), rule: JSON.stringify(rule), created_at: createdAt };
        await ctx.store.run(
          'INSERT INTO gate_rules (rule_id, org_id, position, rule, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?)',
          row.rule_id,
          caller.orgId,
          ++position,
          row.rule,
          createdAt,
          caller.keyId,
        );
        added.push(view(row));
      }
      const receipt = await ctx.chains.append('service', {
        kind: 'rules.add',
        org_id: caller.orgId,
        signed_at: createdAt,
        body: { ...actorOf(caller), rules: added.map(({ created_at: _, ...rule }) => rule) },
      });
      return { ok: true, count: added.length, rules: added, receipt_id: receipt.receipt_id };
    });
  });
}

/** Removes one rule of the caller's organization; another organization's rule is unknown here. */
export async function removeRule(ctx: Context, caller: OrgCaller, input: { rule_id: string }) {
  return await receiptRefusals(ctx, () =>
    ctx.store.write(async () => {
      const row = await ctx.store.get<StoredRuleRow>(
        'SELECT rule_id, rule, created_at FROM gate_rules WHERE rule_id = ? AND org_id = ?',
        input.rule_id,
        caller.orgId,
      );
      if (!row) {
        throw new Refusal(
          'not_found',
          `no rule ${input.rule_id} in this organization: \`svc rules list\` shows their ids`,
          {},
          {
            kind: 'rules.remove.deny',
            org_id: caller.orgId,
            body: { ...actorOf(caller), rule_id: input.rule_id, reason: 'unknown_rule' },
          },
        );
      }
      await ctx.store.run('DELETE FROM gate_rules WHERE rule_id = ?', row.rule_id);
      const removedAt = nowIso(ctx);
      const { created_at: _, ...removed } = view(row);
      const receipt = await ctx.chains.append('service', {
        kind: 'rules.remove',
        org_id: caller.orgId,
        signed_at: removedAt,
        body: { ...actorOf(caller), rule: removed },
      });
      return { ok: true, rule_id: row.rule_id, removed_at: removedAt, receipt_id: receipt.receipt_id };
    }),
  );
}
