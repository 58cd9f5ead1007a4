-- Machines registered to an organization (svc_node) and acceptances of the terms (svc_terms).
CREATE TABLE nodes (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  machine_id TEXT NOT NULL,
  hostname TEXT NOT NULL,
  platform TEXT NOT NULL,
  arch TEXT NOT NULL,
  registered_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,
  -- The organization key this machine received through svc_connect, when it did.
  key_id TEXT,
  UNIQUE (org_id, machine_id)
);

CREATE TABLE terms_acceptances (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  terms_version TEXT NOT NULL,
  terms_sha256 TEXT NOT NULL,
  accepted_at TEXT NOT NULL,
  receipt_id TEXT NOT NULL,
  UNIQUE (org_id, terms_version)
);
