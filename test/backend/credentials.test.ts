// A revocation, made by this process or by another one on the same store, is refused at the very
// next request: whatever keeps credentials between requests must never outlive a revocation.
import { afterEach, expect, it } from 'vitest';
import { Service } from '../../src/backend/service.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { tempDir } from '../helpers.ts';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

/** Two services on one data dir: two connections to one file, as two processes have. */
async function twoProcesses() {
  const home = tempDir();
  const server = new Service({ dataDir: home.dir });
  const cli = new Service({ dataDir: home.dir });
  cleanups.push(() => {
    server.close();
    cli.close();
    home.cleanup();
  });
  const org = await cli.invoke(ops.createOrg, undefined, { name: 'Cache Org' });
  const grant = await cli.invoke(ops.createGrant, `Bearer ${org.api_key}`, {
    agent: 'cached agent',
    columns: ['id', 'region'],
  });
  return { server, cli, org, grant };
}

it('an agent revoked by another process is refused at its next request', async () => {
  const { server, cli, org, grant } = await twoProcesses();
  const bearer = `Bearer ${grant.grant_token}`;
  for (let i = 0; i < 3; i++) {
    expect(await server.invoke(ops.whoami, bearer, {})).toMatchObject({
      kind: 'agent',
      handle: grant.handle,
    });
  }
  await cli.invoke(ops.revokeAgent, `Bearer ${org.api_key}`, { target: grant.handle });
  await expect(server.invoke(ops.whoami, bearer, {})).rejects.toMatchObject({ status: 401 });
});

it('an agent revoked by this process is refused at its next request', async () => {
  const { server, org, grant } = await twoProcesses();
  const bearer = `Bearer ${grant.grant_token}`;
  expect(await server.invoke(ops.whoami, bearer, {})).toMatchObject({ kind: 'agent' });
  await server.invoke(ops.revokeAgent, `Bearer ${org.api_key}`, { target: grant.handle });
  await expect(server.invoke(ops.whoami, bearer, {})).rejects.toMatchObject({ status: 401 });
});

it('an organization key revoked by another process is refused at its next request', async () => {
  const { server, cli, org } = await twoProcesses();
  const key = await cli.invoke(ops.createApiKey, undefined, { org_id: org.org_id, scopes: ['governance'] });
  const bearer = `Bearer ${key.api_key}`;
  expect(await server.invoke(ops.listAgents, bearer, {})).toBeDefined();
  expect(await server.invoke(ops.listAgents, bearer, {})).toBeDefined();
  await cli.invoke(ops.revokeApiKey, undefined, { key_id: key.key_id });
  await expect(server.invoke(ops.listAgents, bearer, {})).rejects.toMatchObject({ status: 401 });
});
