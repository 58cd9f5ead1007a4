-- What an agent grant lets its agent use without seeing the secret (svc_use): a JSON array of
-- {source, methods, path_prefix}; null when the grant allows no capability.
ALTER TABLE agent_grants ADD COLUMN capabilities TEXT;
