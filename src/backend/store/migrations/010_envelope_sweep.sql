-- Bounded Fabric storage. `dead_at` is when an envelope stops being fetchable: its `ttl_at`, or the
-- moment of its last allowed fetch. The sweeper clears the sealed parts of envelopes whose
-- `dead_at` has passed and sets `swept_at`; the row stays, so a fetch still answers 410 and the
-- inbox still lists it.
ALTER TABLE envelopes ADD COLUMN dead_at TEXT;
ALTER TABLE envelopes ADD COLUMN swept_at TEXT;

-- Envelopes stored before: fully fetched ones at some time before now (their creation will do),
-- the others at their expiry.
UPDATE envelopes SET dead_at = CASE WHEN fetch_count >= max_fetches THEN created_at ELSE ttl_at END;

-- What the sweeper looks for, oldest first. The index holds every column it reads (`swept_at`
-- included: SQLite counts a column the query names as read even when the index's WHERE settles
-- it), because a column stored after the ciphertext is reached by reading through the
-- ciphertext's overflow pages.
CREATE INDEX envelopes_sweep ON envelopes(dead_at, id, ttl_at, size_bytes, sender_org_id, swept_at)
  WHERE swept_at IS NULL;

-- The quotas count live envelopes per recipient, sending agent and sending organization at every
-- send; covering indexes answer without touching the rows, for the same reason.
CREATE INDEX envelopes_live_recipient ON envelopes(recipient_kid, dead_at, size_bytes, swept_at) WHERE swept_at IS NULL;
CREATE INDEX envelopes_live_sender ON envelopes(sender_agent_id, dead_at, size_bytes, swept_at) WHERE swept_at IS NULL;
CREATE INDEX envelopes_live_org ON envelopes(sender_org_id, dead_at, size_bytes, swept_at) WHERE swept_at IS NULL;
