-- Vault secrets (docs/VAULT.md): named values `svc run` injects into a command's environment. Each
-- value is kept only sealed (the seal.ts form, under a key derived from the vault, bound to its
-- name). Removing a secret overwrites and deletes its row in the same write as its receipt.
CREATE TABLE secrets (
  name TEXT PRIMARY KEY,
  sealed_value TEXT NOT NULL,
  created_at TEXT NOT NULL,
  created_by TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  updated_by TEXT NOT NULL
);
