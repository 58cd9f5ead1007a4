// The setup every service benchmark shares: a Service on a data dir, an organization with its
// seeded demo table, and one agent holding a grant on that table.
import { Service } from '../src/backend/service.ts';
import { ops } from '../src/backend/operations/index.ts';
import type { StoreOptions } from '../src/backend/store/db.ts';

export interface Fixture {
  service: Service;
  orgId: string;
  /** The agent's `Authorization` value, as an in-process adapter passes it to `service.invoke`. */
  bearer: string;
  handle: string;
  /** The agent's bearer secret, for callers that go through HTTP. */
  grantToken: string;
}

export async function createFixture(
  dataDir: string,
  options: { columns?: string[]; store?: StoreOptions } = {},
): Promise<Fixture> {
  const service = new Service({ dataDir, ...(options.store ? { store: options.store } : {}) });
  try {
    const { org_id: orgId, api_key: apiKey } = await service.invoke(ops.createOrg, undefined, {
      name: 'Bench Org',
    });
    const grant = await service.invoke(ops.createGrant, `Bearer ${apiKey}`, {
      agent: 'bench agent',
      columns: options.columns ?? ['id', 'region', 'email'],
    });
    const bearer = `Bearer ${grant.grant_token}`;
    // A benchmark timing refusals would report nonsense: check the token is an agent's up front.
    const me = await service.invoke(ops.whoami, bearer, {});
    if (me.kind !== 'agent') throw new Error('the grant token did not authenticate as an agent');
    return { service, orgId, bearer, handle: grant.handle, grantToken: grant.grant_token };
  } catch (error) {
    service.close();
    throw error;
  }
}
