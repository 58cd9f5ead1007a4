// What the gate decides on a protected path goes on the record: a signed audit row naming who
// asked (agent, client), the action, the path, the outcome and the rule that decided; never the
// file's content, never a shell command (it may hold a secret). Daily-limit uses are counted in
// the same write, so two agents at once cannot both take the last use, and a use is never counted
// without its row.
import type { Decision, UsesSoFar } from '../gate/engine.ts';
import type { Context } from './context.ts';

export interface RecordedDecision {
  decision: Decision;
  /** The audit row of a decision a rule made; null when no rule covered the path. */
  receipt_id: string | null;
}

/**
 * Decides with the store's counts and records: the uses the decision charges, and its audit row
 * when a rule decided. One write: the row and the counts commit together or not at all.
 */
export function decideAndRecord(
  ctx: Context,
  decide: (usesSoFar: UsesSoFar) => Decision,
  asker: { agent?: string | undefined; client?: string | undefined },
): Promise<RecordedDecision> {
  return ctx.store.write(async () => {
    // The engine reads counts synchronously: on the write connection, inside this transaction.
    const count = ctx.store.db.prepare(
      'SELECT uses FROM gate_uses WHERE rule_id = ? AND subject = ? AND day = ?',
    );
    const decision = decide(
      (c) => (count.get(c.rule_id, c.subject, c.day) as { uses: number } | undefined)?.uses ?? 0,
    );
    for (const c of decision.charges) {
      await ctx.store.run(
        `INSERT INTO gate_uses (rule_id, subject, day, uses) VALUES (?, ?, ?, 1)
         ON CONFLICT (rule_id, subject, day) DO UPDATE SET uses = uses + 1`,
        c.rule_id,
        c.subject,
        c.day,
      );
    }
    if (!decision.rule) return { decision, receipt_id: null };
    const owner =
      decision.rule.level === 'organization'
        ? await ctx.store.get<{ org_id: string }>(
            'SELECT org_id FROM gate_rules WHERE rule_id = ?',
            decision.rule.id,
          )
        : undefined;
    const receipt = await ctx.chains.append('audit', {
      kind: 'gate.decision',
      org_id: owner?.org_id ?? null,
      signed_at: ctx.clock().toISOString(),
      body: {
        org_id: owner?.org_id ?? null,
        agent: asker.agent ?? null,
        client: asker.client ?? null,
        action: decision.action,
        path: decision.path,
        outcome: decision.outcome,
        rule_id: decision.rule.id,
        rule_level: decision.rule.level,
      },
    });
    return { decision, receipt_id: receipt.receipt_id };
  });
}
