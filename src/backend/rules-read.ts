// Reading the organization rules the store keeps, apart from the operations that change them: a
// hook process reads them at every call and loads this alone (no chains, no keys, no operations).
import { existsSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { validRules, type PlacedRule, type Rule } from '../gate/rules.ts';
import type { UsesSoFar } from '../gate/engine.ts';

export interface StoredRuleRow {
  rule_id: string;
  rule: string;
  created_at: string;
}

/**
 * A stored rule, checked again on the way out (by plain code: a hook reads these at every call and
 * does not load zod): a row altered by hand fails closed, it is never skipped.
 */
export function parseStoredRule(row: Pick<StoredRuleRow, 'rule_id' | 'rule'>): Rule {
  let json: unknown;
  try {
    json = JSON.parse(row.rule);
  } catch {
    json = undefined;
  }
  const rule = validRules([json])?.[0];
  if (!rule) throw new Error(`organization rule ${row.rule_id} in the store is not a valid rule`);
  return rule;
}

/**
 * The organization rules that hold on this computer: those of every organization its store keeps
 * (one, on a computer of one organization; rules only tighten, so several can only make the gate
 * stricter). Read without a lock and without changing the file: no store yet, or one from before
 * rules were kept, holds none. A store that cannot be read throws: the caller fails closed.
 */
export function readOrganizationRules(storeFile: string): PlacedRule[] {
  if (!existsSync(storeFile)) return [];
  // Another process may be creating the store or switching it to WAL: wait for it, as a writer would.
  const db = new DatabaseSync(storeFile, { readOnly: true, timeout: 5_000 });
  try {
    const known = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'gate_rules'")
      .get();
    if (!known) return [];
    const rows = db.prepare('SELECT rule_id, rule FROM gate_rules ORDER BY org_id, position').all() as {
      rule_id: string;
      rule: string;
    }[];
    return rows.map((row) => ({ id: row.rule_id, level: 'organization', rule: parseStoredRule(row) }));
  } finally {
    db.close();
  }
}

/**
 * Runs `decide` with the uses each limit rule has counted, as the store keeps them: what a decision
 * that records nothing (`svc rules test`, `explain`) must still count, or it would say `limited` of
 * a file whose uses ran out. Read as the organization rules are, one row per use asked for: no store
 * yet holds none.
 */
export function withCountedUses<T>(storeFile: string, decide: (uses: UsesSoFar) => T): T {
  if (!existsSync(storeFile)) return decide(() => 0);
  const db = new DatabaseSync(storeFile, { readOnly: true, timeout: 5_000 });
  try {
    const known = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'gate_uses'").get();
    if (!known) return decide(() => 0);
    const count = db.prepare('SELECT uses FROM gate_uses WHERE rule_id = ? AND subject = ? AND day = ?');
    return decide((c) => (count.get(c.rule_id, c.subject, c.day) as { uses: number } | undefined)?.uses ?? 0);
  } finally {
    db.close();
  }
}
