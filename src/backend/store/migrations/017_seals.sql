-- Files sealed in place (docs/VAULT.md): one row per seal. The file's data key is kept here only
-- wrapped (the seal.ts form, under a key derived from the vault, bound to the seal id). Revoking a
-- seal overwrites and removes the wrapped key in the same write as its receipt (crypto-shredding):
-- from then on no copy of the sealed file opens. `sealed_at` is set once the sealed file has
-- replaced the original; a row without it is a sealing that did not finish.
CREATE TABLE seals (
  seal_id TEXT PRIMARY KEY,
  org_id TEXT REFERENCES orgs(id),
  path TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  created_by TEXT NOT NULL,
  sealed_at TEXT,
  wrapped_key TEXT,
  revoked_at TEXT,
  revoked_by TEXT,
  revoke_reason TEXT,
  CHECK ((wrapped_key IS NULL) = (revoked_at IS NOT NULL))
);
CREATE INDEX seals_by_created ON seals (created_at);
