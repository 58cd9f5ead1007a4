-- Patches an agent submitted for the owner to review (docs/CODE.md): the unified diff as sent, the
-- project it applies to, and what became of it. A patch is queued, then applied or rejected, once;
-- each step is receipted on the service chain and its receipt id kept here.
CREATE TABLE patches (
  patch_id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  agent_id TEXT NOT NULL,
  handle TEXT NOT NULL,
  summary TEXT NOT NULL,
  diff TEXT NOT NULL,
  diff_sha256 TEXT NOT NULL,
  project_root TEXT NOT NULL,
  paths TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('queued', 'applied', 'rejected')),
  submitted_at TEXT NOT NULL,
  submit_receipt_id TEXT NOT NULL,
  decided_at TEXT,
  decided_by TEXT,
  decision_receipt_id TEXT,
  reason TEXT
);
CREATE INDEX patches_by_org ON patches (org_id, status, submitted_at);
