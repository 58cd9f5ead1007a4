-- The read gate's organization rules (docs/RULES.md): kept by the service and set by an owner of
-- the organization. A rule is stored as the JSON an owner wrote (validated before it is kept); its
-- id is stable, so a daily limit's count (gate_uses) follows the rule, not its position.
CREATE TABLE gate_rules (
  rule_id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  position INTEGER NOT NULL,
  rule TEXT NOT NULL,
  created_at TEXT NOT NULL,
  created_by TEXT NOT NULL
);
CREATE INDEX gate_rules_by_org ON gate_rules (org_id, position);
