// The usage meter: the billed unit is one governed decision (compute, documents compute).
import type { Context } from './context.ts';

export const FREE_DECISIONS_PER_MONTH = 10_000;

/** Calendar month in UTC, `YYYY-MM`: the billing period. */
export function periodOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

/** Counts one decision in the period of `at` (an ISO 8601 time the caller already holds), or of now. */
export async function countDecision(ctx: Context, orgId: string, at?: string): Promise<void> {
  await ctx.store.addToCounter(
    `INSERT INTO usage_counters (org_id, period, decisions) VALUES (?, ?, ?)
     ON CONFLICT (org_id, period) DO UPDATE SET decisions = decisions + excluded.decisions`,
    [orgId, at === undefined ? periodOf(ctx.clock()) : at.slice(0, 7)],
  );
}

/** Capsule actions and revocations are counted for the overview but never billed. */
export async function countUnmetered(ctx: Context, orgId: string): Promise<void> {
  await ctx.store.addToCounter(
    `INSERT INTO usage_counters (org_id, period, unmetered) VALUES (?, ?, ?)
     ON CONFLICT (org_id, period) DO UPDATE SET unmetered = unmetered + excluded.unmetered`,
    [orgId, periodOf(ctx.clock())],
  );
}

export interface Invoice {
  org_id: string;
  period: string;
  decisions: number;
  free_allowance: number;
  billable_decisions: number;
  remaining_free_decisions: number;
  unmetered_actions: number;
  over_allowance: boolean;
  policy: string;
}

export async function invoice(ctx: Context, orgId: string, period = periodOf(ctx.clock())): Promise<Invoice> {
  const row = await ctx.store.get<{ decisions: number; unmetered: number }>(
    'SELECT decisions, unmetered FROM usage_counters WHERE org_id = ? AND period = ?',
    orgId,
    period,
  );
  const decisions = row?.decisions ?? 0;
  return {
    org_id: orgId,
    period,
    decisions,
    free_allowance: FREE_DECISIONS_PER_MONTH,
    billable_decisions: Math.max(0, decisions - FREE_DECISIONS_PER_MONTH),
    remaining_free_decisions: Math.max(0, FREE_DECISIONS_PER_MONTH - decisions),
    unmetered_actions: row?.unmetered ?? 0,
    over_allowance: decisions > FREE_DECISIONS_PER_MONTH,
    policy:
      'decisions past the free allowance are still served and are counted as billable; nothing is refused for usage',
  };
}

/** The meter and what the organization holds. */
export async function overview(ctx: Context, orgId: string) {
  const count = async (sql: string) => (await ctx.store.get<{ n: number }>(sql, orgId))!.n;
  const meter = await invoice(ctx, orgId);
  return {
    ok: true,
    org_id: orgId,
    period: meter.period,
    decisions: meter.decisions,
    free_allowance: meter.free_allowance,
    remaining_free_decisions: meter.remaining_free_decisions,
    billable_decisions: meter.billable_decisions,
    unmetered_actions: meter.unmetered_actions,
    agents: {
      total: await count('SELECT COUNT(*) AS n FROM agents WHERE org_id = ?'),
      active: await count("SELECT COUNT(*) AS n FROM agents WHERE org_id = ? AND status = 'active'"),
      fabric_enrolled: await count(
        'SELECT COUNT(*) AS n FROM agents WHERE org_id = ? AND fabric_kid IS NOT NULL',
      ),
    },
    tables: await count('SELECT COUNT(*) AS n FROM data_tables WHERE org_id = ?'),
    capsules: {
      total: await count('SELECT COUNT(*) AS n FROM capsules WHERE org_id = ?'),
      active: await count("SELECT COUNT(*) AS n FROM capsules WHERE org_id = ? AND status = 'active'"),
    },
    receipts: await count('SELECT COUNT(*) AS n FROM service_chain WHERE org_id = ?'),
    audit_rows: await count('SELECT COUNT(*) AS n FROM audit_chain WHERE org_id = ?'),
  };
}
