-- Each agent's last read, kept beside the agent as its audit row is appended, so that the policy
-- board answers without searching the audit chain once per agent.
ALTER TABLE agents ADD COLUMN last_read_id TEXT;
ALTER TABLE agents ADD COLUMN last_read_at TEXT;
ALTER TABLE agents ADD COLUMN last_read_outcome TEXT;

-- Stores written before: one search of the chain per agent, once, here.
UPDATE agents SET
  last_read_id = (SELECT id FROM audit_chain
    WHERE audit_chain.org_id = agents.org_id AND json_extract(payload, '$.agent_id') = agents.id
    ORDER BY chain_index DESC LIMIT 1);
UPDATE agents SET
  last_read_at = (SELECT signed_at FROM audit_chain WHERE id = agents.last_read_id),
  last_read_outcome = (SELECT COALESCE(json_extract(payload, '$.outcome'), 'unknown') FROM audit_chain WHERE id = agents.last_read_id)
  WHERE last_read_id IS NOT NULL;
