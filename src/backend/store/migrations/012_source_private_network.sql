-- A source reaches public addresses only, unless its owner registered it with
-- allow_private_network: loopback, private, link-local and the other special ranges are refused.
ALTER TABLE sources ADD COLUMN allow_private_network INTEGER NOT NULL DEFAULT 0
  CHECK (allow_private_network IN (0, 1));
