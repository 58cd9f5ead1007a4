// The setup every service benchmark shares: a Service on a data dir, an organization with its
// seeded demo table, and one agent holding a grant on that table.
import { Service } from '../src/backend/service.ts';
import type { AgentPrincipal } from '../src/backend/credentials.ts';
import type { StoreOptions } from '../src/backend/store/db.ts';

export interface Fixture {
  service: Service;
  orgId: string;
  agent: AgentPrincipal;
  handle: string;
  /** The agent's bearer secret, for callers that go through HTTP. */
  grantToken: string;
}

export function createFixture(
  dataDir: string,
  options: { columns?: string[]; store?: StoreOptions } = {},
): Fixture {
  const service = new Service({ dataDir, ...(options.store ? { store: options.store } : {}) });
  try {
    const { org_id: orgId, api_key: apiKey } = service.createOrg('Bench Org');
    const owner = service.authenticate(`Bearer ${apiKey}`);
    const grant = service.createGrant(owner, {
      agent: 'bench agent',
      columns: options.columns ?? ['id', 'region', 'email'],
    });
    const agent = service.authenticate(`Bearer ${grant.grant_token}`);
    if (agent.kind !== 'agent') throw new Error('the grant token did not authenticate as an agent');
    return { service, orgId, agent, handle: grant.handle, grantToken: grant.grant_token };
  } catch (error) {
    service.close();
    throw error;
  }
}
