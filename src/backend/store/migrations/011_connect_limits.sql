-- Anyone may start a connect request, so what the table holds is bounded (src/backend/connect.ts):
-- starting one counts the requests nobody has approved and removes, a bounded number at a time, those
-- past their time. Both read this index, not the table.
CREATE INDEX connect_requests_expiry ON connect_requests(status, expires_at);

-- Wrong user codes tried while a request was pending. Past a limit its code stops being valid, so
-- guessing a code has a bounded chance whatever the rate limits in front of the store let through.
ALTER TABLE connect_requests ADD COLUMN misses INTEGER NOT NULL DEFAULT 0;
