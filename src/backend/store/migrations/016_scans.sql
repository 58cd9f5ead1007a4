-- Scans of this computer's folders and what people said about their findings (docs/SCAN.md).
-- A scan keeps its findings as the scanner reported them: masked previews and keyed fingerprints,
-- never values. Only the latest scans of each project are kept (the plan reads the latest).
CREATE TABLE scans (
  scan_id TEXT PRIMARY KEY,
  project TEXT NOT NULL,
  root TEXT NOT NULL,
  created_at TEXT NOT NULL,
  scanned_by TEXT NOT NULL,
  files_scanned INTEGER NOT NULL,
  bytes_scanned INTEGER NOT NULL,
  findings INTEGER NOT NULL,
  silenced INTEGER NOT NULL,
  skipped TEXT NOT NULL
);
CREATE INDEX scans_by_project ON scans (project, created_at);

CREATE TABLE scan_findings (
  scan_id TEXT NOT NULL REFERENCES scans(scan_id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  file TEXT NOT NULL,
  line INTEGER NOT NULL,
  col INTEGER NOT NULL,
  category TEXT NOT NULL CHECK (category IN ('secret', 'pii')),
  type TEXT NOT NULL,
  rule TEXT NOT NULL,
  confidence REAL NOT NULL,
  fingerprint TEXT NOT NULL,
  preview TEXT NOT NULL,
  PRIMARY KEY (scan_id, seq)
);

-- One verdict per fingerprint and scope: a project's (this computer's folder) or an organization's
-- (every computer whose store keeps it). A later verdict at the same scope replaces the earlier one.
CREATE TABLE scan_feedback (
  feedback_id TEXT PRIMARY KEY,
  scope TEXT NOT NULL CHECK (scope IN ('project', 'organization')),
  project TEXT,
  org_id TEXT REFERENCES orgs(id),
  fingerprint TEXT NOT NULL,
  verdict TEXT NOT NULL CHECK (verdict IN ('false_positive', 'accepted_risk', 'confirmed')),
  reason TEXT,
  type TEXT,
  decided_by TEXT NOT NULL,
  decided_at TEXT NOT NULL,
  receipt_id TEXT NOT NULL,
  promoted_from TEXT,
  CHECK ((scope = 'project') = (project IS NOT NULL)),
  CHECK ((scope = 'organization') = (org_id IS NOT NULL))
);
CREATE UNIQUE INDEX scan_feedback_project ON scan_feedback (project, fingerprint) WHERE scope = 'project';
CREATE UNIQUE INDEX scan_feedback_org ON scan_feedback (org_id, fingerprint) WHERE scope = 'organization';
