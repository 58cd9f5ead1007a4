-- Agent handles are unique within an organization, no longer across all of them: an agent's paths
-- (/api/agents/{handle}/...) are reached only with its own token, which names the agent, so a handle
-- need not be unique beyond its organization; and a handle unique across organizations told one
-- organization which handles another had (a second `support-bot` became `support-bot-2`).
--
-- SQLite cannot drop a column's UNIQUE, so the table is made again. Three tables refer to agents:
-- with their checks deferred to the commit, dropping the old table counts their rows as orphans
-- and inserting the same ids into the new one counts them as parented again.
PRAGMA defer_foreign_keys = ON;

CREATE TEMP TABLE agents_before AS SELECT * FROM agents;
DROP TABLE agents;
CREATE TABLE agents (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  handle TEXT NOT NULL,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  fabric_pubkey_hex TEXT,
  fabric_kid TEXT UNIQUE,
  created_at TEXT NOT NULL,
  revoked_at TEXT,
  last_read_id TEXT,
  last_read_at TEXT,
  last_read_outcome TEXT,
  UNIQUE (org_id, handle)
);
INSERT INTO agents (id, org_id, handle, name, status, fabric_pubkey_hex, fabric_kid, created_at,
    revoked_at, last_read_id, last_read_at, last_read_outcome)
  SELECT id, org_id, handle, name, status, fabric_pubkey_hex, fabric_kid, created_at,
    revoked_at, last_read_id, last_read_at, last_read_outcome
  FROM agents_before;
DROP TABLE agents_before;
-- The (org_id, handle) index serves lookups by organization, as agents_org did.
