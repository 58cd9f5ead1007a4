-- Linking a computer to an organization by browser approval (svc_connect), modelled on the OAuth
-- device authorization grant (RFC 8628): the device holds a secret device code (stored hashed),
-- the person approves the short user code in a browser with an organization key.
CREATE TABLE connect_requests (
  id TEXT PRIMARY KEY,
  device_code_hash TEXT NOT NULL UNIQUE,
  user_code TEXT NOT NULL UNIQUE,
  machine TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'delivered')),
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  org_id TEXT REFERENCES orgs(id),
  node_id TEXT,
  -- The approver's scopes: the computer's key gets these, made when the computer collects it.
  scopes TEXT,
  key_id TEXT,
  decided_at TEXT
);
