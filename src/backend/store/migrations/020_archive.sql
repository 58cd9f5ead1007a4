-- The archive of files wrapped on this computer (docs/VAULT.md, The archive): the index of what the
-- folder `archive/` of the data dir holds. An object is named by a keyed hash of its plaintext, so
-- equal files are stored once; its key is derived from the vault and the random key id in its own
-- header, so no key is kept here. One entry per file wrapped: where it was, when and by whom.
CREATE TABLE archive_objects (
  object_id TEXT PRIMARY KEY,
  bytes INTEGER NOT NULL,
  stored_at TEXT NOT NULL
);

CREATE TABLE archive_entries (
  entry_id TEXT PRIMARY KEY,
  object_id TEXT NOT NULL REFERENCES archive_objects(object_id),
  org_id TEXT REFERENCES orgs(id),
  path TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  wrapped_at TEXT NOT NULL,
  wrapped_by TEXT NOT NULL,
  original_removed_at TEXT
);
CREATE INDEX archive_entries_by_object ON archive_entries (object_id, wrapped_at);
CREATE INDEX archive_entries_by_time ON archive_entries (wrapped_at);
