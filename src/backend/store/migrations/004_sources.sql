-- External HTTP APIs an organization registers (svc_connect_source). The credential is sealed
-- with a vault-derived key and never returned.
CREATE TABLE sources (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  name TEXT NOT NULL,
  base_url TEXT NOT NULL,
  scheme TEXT NOT NULL CHECK (scheme IN ('bearer', 'header', 'basic')),
  header_name TEXT,
  sealed_credential TEXT NOT NULL,
  credential_length INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (org_id, name)
);
