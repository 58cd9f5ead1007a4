-- Uses counted by the gate's "up to N a day" rules (docs/RULES.md): per rule, per subject (the
-- agent, else the client) and per local day in the rule's time zone. A hook process records one
-- use in the same write that checks the count, so two agents at once cannot both take the last.
CREATE TABLE gate_uses (
  rule_id TEXT NOT NULL,
  subject TEXT NOT NULL,
  day TEXT NOT NULL,
  uses INTEGER NOT NULL,
  PRIMARY KEY (rule_id, subject, day)
) WITHOUT ROWID;
