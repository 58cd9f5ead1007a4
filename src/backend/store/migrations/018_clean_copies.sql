-- Clean copies whose owner asked to keep the mapping from token to value (docs/SCAN.md, Clean
-- copies): the mapping sealed under a key the vault derives for this copy alone, where the copy
-- came from and went, and the receipt of its keeping. Putting values back is decided by the read
-- gate on the original path, and receipted on the service chain either way.
CREATE TABLE clean_copies (
  copy_id TEXT PRIMARY KEY,
  source TEXT NOT NULL,
  out TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('file', 'folder')),
  tokens INTEGER NOT NULL,
  sealed_mapping TEXT NOT NULL,
  created_at TEXT NOT NULL,
  receipt_id TEXT NOT NULL
);
