// One organization's large request must not stall everyone else's: a 7.5 MB row load over HTTP
// is parsed once and then written in chunks that yield, so a compute with receipt (a write) from
// another organization is answered again and again while the load holds its table's lease.
// Nothing here asserts a duration: what is checked is that other requests were answered while
// the load was visibly in progress, before it answered.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from 'undici';
import { Service } from '../../src/backend/service.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { startServer, type RunningServer } from '../../src/http/server.ts';
import { tempDir } from '../helpers.ts';

const ROWS = 50_000;

const home = tempDir('svc-bounded-');
let service: Service;
let server: RunningServer;
beforeAll(async () => {
  service = new Service({ dataDir: home.dir });
  server = await startServer({ service, port: 0, closeService: true });
});
afterAll(async () => {
  await server.close();
  home.cleanup();
});

async function call(method: 'GET' | 'POST', path: string, token: string, body?: unknown) {
  const response = await request(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  return { status: response.statusCode, body: (await response.body.json()) as Record<string, unknown> };
}

it('a 7.5 MB row load from one organization: another organization’s writes are answered while the load holds its lease, before it answers', async () => {
  const loader = await service.invoke(ops.createOrg, undefined, { name: 'Loader' });
  const other = await service.invoke(ops.createOrg, undefined, { name: 'Other' });
  const agent = await service.invoke(ops.createGrant, `Bearer ${other.api_key}`, {
    agent: 'Bystander',
    columns: ['id', 'region'],
  });
  await service.invoke(ops.registerTable, `Bearer ${loader.api_key}`, {
    name: 'bulk',
    columns: [
      { name: 'id', classification: 'public', storage: 'plaintext' },
      { name: 'region', classification: 'public', storage: 'plaintext' },
      { name: 'email', classification: 'pii', storage: 'encrypted' },
      { name: 'note', classification: 'internal', storage: 'encrypted' },
    ],
  });
  const rows = Array.from({ length: ROWS }, (_, i) => ({
    id: i + 1,
    region: i % 2 ? 'eu' : 'us',
    email: `person${i}@example.com`,
    note: `account note ${i} `.padEnd(90, '.'),
  }));
  const body = { format: 'json', rows };
  expect(JSON.stringify(body).length).toBeGreaterThan(7_500_000);

  let loadAnswered = false;
  const load = call('POST', '/api/v1/tables/bulk/rows', loader.api_key, body).finally(() => {
    loadAnswered = true;
  });
  const leaseHeld = async () =>
    (
      await service.ctx.store.get<{ loading_id: string | null }>(
        'SELECT loading_id FROM data_tables WHERE org_id = ? AND name = ?',
        loader.org_id,
        'bulk',
      )
    )?.loading_id != null;

  // Writes from the other organization, one after another, until the load answers. One counts
  // when the lease was held both before it was sent and after it was answered: the load was in
  // its chunks the whole time this write was served.
  let servedDuringLoad = 0;
  const statuses = new Set<number>();
  while (!loadAnswered) {
    const before = await leaseHeld();
    const answer = await call('POST', '/api/access/compute?receipt=true', agent.grant_token, {
      table: 'agent_demo_records',
      columns: ['id'],
    });
    statuses.add(answer.status);
    if (before && (await leaseHeld()) && !loadAnswered) servedDuringLoad++;
  }
  const loaded = await load;
  expect(loaded.status, JSON.stringify(loaded.body).slice(0, 300)).toBe(200);
  expect(loaded.body.loaded).toBe(ROWS);
  expect([...statuses]).toEqual([200]);
  expect(servedDuringLoad).toBeGreaterThanOrEqual(3);
  expect(await leaseHeld()).toBe(false);
});

it('the policy board never reads the audit chain: with the chain out of reach, it still names every agent’s last read', async () => {
  const org = await service.invoke(ops.createOrg, undefined, { name: 'Board' });
  const agents = [];
  for (let i = 0; i < 20; i++) {
    const grant = await service.invoke(ops.createGrant, `Bearer ${org.api_key}`, {
      agent: `Reader ${i}`,
      columns: ['id'],
    });
    const read = await call('POST', `/api/agents/${grant.handle}/read`, grant.grant_token, {
      table: 'agent_demo_records',
      columns: ['id'],
    });
    agents.push({ handle: grant.handle, audit: (read.body.audit as { id: string }).id });
  }
  // The board's work is one row per agent and grant: a board that searched the chain for each
  // agent's last read (the stall the review measured) would fail here.
  service.ctx.store.db.exec('ALTER TABLE audit_chain RENAME TO audit_chain_away');
  try {
    const board = await call('GET', '/api/v1/policy', org.api_key);
    expect(board.status).toBe(200);
    const lastReads = Object.fromEntries(
      (board.body.agents as { handle: string; last_read: { audit_id: string } | null }[]).map((a) => [
        a.handle,
        a.last_read?.audit_id,
      ]),
    );
    for (const agent of agents) expect(lastReads[agent.handle]).toBe(agent.audit);
  } finally {
    service.ctx.store.db.exec('ALTER TABLE audit_chain_away RENAME TO audit_chain');
  }
});
