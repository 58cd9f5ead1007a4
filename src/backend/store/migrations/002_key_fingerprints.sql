-- Which keys this store was written with: a fingerprint per vault key name, so a data dir whose
-- keys were lost or swapped refuses to start instead of signing and sealing under new keys.
CREATE TABLE key_fingerprints (
  name TEXT PRIMARY KEY,
  fingerprint TEXT NOT NULL,
  recorded_at TEXT NOT NULL
);
