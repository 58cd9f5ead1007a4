-- The first schema: organizations, credentials, tables, the two chains, Fabric, capsules,
-- recovery and usage. Times are ISO 8601 UTC strings; JSON columns hold arrays or objects.

CREATE TABLE orgs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  key_hash TEXT NOT NULL UNIQUE,
  org_id TEXT REFERENCES orgs(id),
  scopes TEXT NOT NULL,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);

CREATE TABLE agents (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  handle TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  fabric_pubkey_hex TEXT,
  fabric_kid TEXT UNIQUE,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX agents_org ON agents(org_id);

CREATE TABLE agent_grants (
  jti TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL REFERENCES agents(id),
  org_id TEXT NOT NULL REFERENCES orgs(id),
  token_hash TEXT NOT NULL UNIQUE,
  table_name TEXT NOT NULL,
  columns TEXT NOT NULL,
  classifications TEXT,
  where_json TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX agent_grants_agent ON agent_grants(agent_id);

CREATE TABLE data_tables (
  org_id TEXT NOT NULL REFERENCES orgs(id),
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (org_id, name)
);

CREATE TABLE data_columns (
  org_id TEXT NOT NULL,
  table_name TEXT NOT NULL,
  name TEXT NOT NULL,
  position INTEGER NOT NULL,
  classification TEXT NOT NULL,
  storage TEXT NOT NULL CHECK (storage IN ('plaintext', 'encrypted')),
  PRIMARY KEY (org_id, table_name, name),
  FOREIGN KEY (org_id, table_name) REFERENCES data_tables(org_id, name)
);

-- plain: JSON object of the plaintext columns of one row.
CREATE TABLE data_rows (
  org_id TEXT NOT NULL,
  table_name TEXT NOT NULL,
  row_no INTEGER NOT NULL,
  plain TEXT NOT NULL,
  PRIMARY KEY (org_id, table_name, row_no),
  FOREIGN KEY (org_id, table_name) REFERENCES data_tables(org_id, name)
);

-- One sealed cell per row: base64(iv | AES-256-GCM ciphertext | tag) under its column's key, so a
-- read touches only the cells of the columns it releases.
CREATE TABLE data_cells (
  org_id TEXT NOT NULL,
  table_name TEXT NOT NULL,
  column_name TEXT NOT NULL,
  row_no INTEGER NOT NULL,
  sealed TEXT NOT NULL,
  PRIMARY KEY (org_id, table_name, column_name, row_no),
  FOREIGN KEY (org_id, table_name, row_no) REFERENCES data_rows(org_id, table_name, row_no)
) WITHOUT ROWID;

-- The service chain: every signed receipt, in order. Entry ids embed chain_index, so the primary
-- key is the only index: an append writes one table page and nothing else.
CREATE TABLE service_chain (
  chain_index INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  org_id TEXT,
  kind TEXT NOT NULL,
  payload TEXT NOT NULL,
  signing_kid TEXT NOT NULL,
  signature_hex TEXT NOT NULL,
  signed_at TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);

-- The read-audit chain: one row per read, allowed or refused.
CREATE TABLE audit_chain (
  chain_index INTEGER PRIMARY KEY,
  id TEXT NOT NULL,
  org_id TEXT NOT NULL,
  payload TEXT NOT NULL,
  signing_kid TEXT NOT NULL,
  signature_hex TEXT NOT NULL,
  signed_at TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);

CREATE TABLE fabric_grants (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  subject_kid TEXT NOT NULL,
  label TEXT,
  allowed_sender_kids TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  revoked_at TEXT,
  revoke_reason TEXT,
  receipt_id TEXT NOT NULL,
  revoke_receipt_id TEXT
);
CREATE INDEX fabric_grants_subject ON fabric_grants(subject_kid);
CREATE INDEX fabric_grants_org ON fabric_grants(org_id);

CREATE TABLE envelopes (
  id TEXT PRIMARY KEY,
  sender_agent_id TEXT NOT NULL REFERENCES agents(id),
  sender_org_id TEXT NOT NULL,
  sender_kid TEXT NOT NULL,
  recipient_kid TEXT NOT NULL,
  ciphertext_b64 TEXT NOT NULL,
  wrapped_key_b64 TEXT NOT NULL,
  payload_iv_b64 TEXT NOT NULL,
  content_type_hint TEXT,
  filename_hint TEXT,
  purpose TEXT,
  size_bytes INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  ttl_at TEXT NOT NULL,
  max_fetches INTEGER NOT NULL,
  fetch_count INTEGER NOT NULL DEFAULT 0,
  receipt_id TEXT NOT NULL
);
CREATE INDEX envelopes_recipient ON envelopes(recipient_kid, created_at);

CREATE TABLE capsules (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  revoked_at TEXT,
  revoke_receipt_id TEXT
);

CREATE TABLE capsule_documents (
  id TEXT PRIMARY KEY,
  capsule_id TEXT NOT NULL REFERENCES capsules(id),
  title TEXT NOT NULL,
  sealed_text TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE capsule_members (
  id TEXT PRIMARY KEY,
  capsule_id TEXT NOT NULL REFERENCES capsules(id),
  email TEXT NOT NULL,
  role TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (capsule_id, email)
);

CREATE TABLE capsule_ai_grants (
  id TEXT PRIMARY KEY,
  capsule_id TEXT NOT NULL REFERENCES capsules(id),
  agent_id TEXT NOT NULL REFERENCES agents(id),
  documents TEXT,
  created_at TEXT NOT NULL
);

CREATE TABLE recovery_keys (
  org_id TEXT PRIMARY KEY REFERENCES orgs(id),
  pubkey_hex TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE recovery_copies (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  label TEXT,
  ciphertext_b64 TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE recovery_events (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  kind TEXT NOT NULL,
  detail TEXT,
  created_at TEXT NOT NULL
);

-- One counter per organization and calendar month (UTC): the billed unit is one decision.
CREATE TABLE usage_counters (
  org_id TEXT NOT NULL,
  period TEXT NOT NULL,
  decisions INTEGER NOT NULL DEFAULT 0,
  unmetered INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (org_id, period)
);
