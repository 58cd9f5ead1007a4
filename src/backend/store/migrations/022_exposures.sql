-- Exposures (docs/SHARE.md, Exposures): a folder of this computer offered to a partner for a time,
-- who asks for clean copies of the files the read gate lets out. They belong to this computer's
-- store, like its seals: no organization. The folder's files are never stored here; each copy is
-- made from the file when asked for and is not kept.
CREATE TABLE exposures (
  exposure_id TEXT PRIMARY KEY,
  -- Absolute, as the owner gave it (resolved): the folder whose files the partner may ask for.
  folder TEXT NOT NULL,
  created_by TEXT NOT NULL,
  code_hash BLOB,
  code_salt BLOB,
  wrong_codes INTEGER NOT NULL DEFAULT 0,
  max_copies INTEGER NOT NULL,
  copies INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  ended_at TEXT,
  end_reason TEXT CHECK (end_reason IN ('used_up', 'ended', 'locked')),
  ended_by TEXT,
  receipt_id TEXT NOT NULL
);
CREATE INDEX exposures_by_created ON exposures (created_at);

-- Every request for a clean copy, served or refused, with the receipt that signs it: the file as
-- asked for, and for a copy the token types and counts it holds (never a value).
CREATE TABLE exposure_copies (
  exposure_id TEXT NOT NULL REFERENCES exposures(exposure_id),
  at TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('allow', 'deny')),
  reason TEXT NOT NULL,
  file TEXT,
  copy_number INTEGER,
  tokens_by_type TEXT,
  receipt_id TEXT NOT NULL
);
CREATE INDEX exposure_copies_by_exposure ON exposure_copies (exposure_id, at);
