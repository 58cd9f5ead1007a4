-- Share links (docs/SHARE.md). The service keeps the sealed content and the link's policy only:
-- the key that opens the content travels in the link's fragment and never reaches the service.
-- `ciphertext` becomes NULL when the link ends (used up, burned, revoked, locked by wrong codes,
-- or swept after expiry), in the same write as the receipt that says so.
CREATE TABLE links (
  link_id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  created_by TEXT NOT NULL,
  burn_after_read INTEGER NOT NULL CHECK (burn_after_read IN (0, 1)),
  ciphertext BLOB,
  name_ciphertext BLOB,
  size_bytes INTEGER NOT NULL,
  content_type TEXT NOT NULL,
  -- 8 bytes of an HMAC under the content key: the page checks the fragment against it before it
  -- spends an open, and it tells nothing about the key.
  key_check TEXT NOT NULL,
  sender_name TEXT,
  view_only INTEGER NOT NULL CHECK (view_only IN (0, 1)),
  code_hash BLOB,
  code_salt BLOB,
  wrong_codes INTEGER NOT NULL DEFAULT 0,
  max_opens INTEGER NOT NULL,
  opens INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  ended_at TEXT,
  end_reason TEXT CHECK (end_reason IN ('used_up', 'burned', 'revoked', 'locked', 'expired')),
  ended_by TEXT,
  end_note TEXT,
  receipt_id TEXT NOT NULL
);
CREATE INDEX links_by_org ON links (org_id, created_at);
CREATE INDEX links_live_by_expiry ON links (expires_at) WHERE ciphertext IS NOT NULL;

-- Every attempt to open a link, allowed or refused, with the receipt that signs it.
CREATE TABLE link_attempts (
  link_id TEXT NOT NULL REFERENCES links(link_id),
  at TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('allow', 'deny')),
  reason TEXT NOT NULL,
  open_number INTEGER,
  receipt_id TEXT NOT NULL
);
CREATE INDEX link_attempts_by_link ON link_attempts (link_id, at);
