// Runs inside a dbus session with a real gnome-keyring daemon (see keychain.test.ts) and reports
// what it saw as one JSON line.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Service } from '../../src/backend/service.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { KeychainVault } from '../../src/vault/keychain.ts';
import { createMcpServer } from '../../src/tools/server.ts';

const dataDir = process.argv[2]!;
const first = new Service({ dataDir });
const org = await first.invoke(ops.createOrg, undefined, { name: 'Keychain Org' });
const grant = await first.invoke(ops.createGrant, `Bearer ${org.api_key}`, {
  agent: 'Keyed',
  columns: ['id', 'email'],
});
const agent = `Bearer ${grant.grant_token}`;
const proof = (await first.invoke(ops.computeDecision, agent, { columns: ['id'], receipt: 'true' }))
  .proof_id!;
const read = await first.invoke(ops.readRows, agent, {
  handle: grant.handle,
  table: 'agent_demo_records',
  columns: ['email'],
  limit: 1,
});
const firstKid = first.ctx.signer.kid;
const summary: Record<string, unknown> = {
  kind: first.vaultKind,
  note: first.vaultFallbackReason,
  key_files: existsSync(join(dataDir, 'keys')),
  email: read.rows[0]?.email,
};
first.close();

const again = new Service({ dataDir });
summary.same_kid = again.ctx.signer.kid === firstKid;
summary.reopened_kind = again.vaultKind;
summary.proof_authentic = (await again.invoke(ops.verifyProof, undefined, { proof_id: proof })).authentic;
summary.email_again = (
  await again.invoke(ops.readRows, `Bearer ${grant.grant_token}`, {
    handle: grant.handle,
    table: 'agent_demo_records',
    columns: ['email'],
    limit: 1,
  })
).rows[0]?.email;

const server = createMcpServer(() => ({
  invoker: again.invoker,
  ownerBearer: `Bearer ${org.api_key}`,
  agentBearer: undefined,
  credentialSource: 'environment',
}));
const [c, s] = InMemoryTransport.createLinkedPair();
await server.connect(s);
const client = new Client({ name: 'keychain', version: '1' });
await client.connect(c);
const started = await client.callTool({ name: 'svc_get_started', arguments: {} });
summary.get_started = (started.structuredContent as { service: unknown }).service;
await client.close();

again.close();
// The same store opened where no keychain answers: refused, and no key files appear.
const probe = `import { Service } from ${JSON.stringify(new URL('../../src/backend/service.ts', import.meta.url).pathname)};
try { new Service({ dataDir: process.argv[1] }).close(); process.stdout.write('opened'); }
catch (error) { process.stdout.write(error.message); }`;
summary.without_keychain = spawnSync(process.execPath, ['--input-type=module', '-e', probe, dataDir], {
  env: { PATH: process.env.PATH ?? '', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' },
  encoding: 'utf8',
}).stdout;
summary.key_files_after = existsSync(join(dataDir, 'keys', 'service-signing-ed25519.key'));
// Keys gone from the keychain: the store refuses to run on new ones rather than sign with them.
const names = ['service-signing-ed25519', 'data-columns', 'capsules'];
new KeychainVault(dataDir).forget(names);
try {
  new Service({ dataDir }).close();
  summary.lost_keys = 'accepted';
} catch (error) {
  summary.lost_keys = (error as Error).message;
}
new KeychainVault(dataDir).forget(names);
process.stdout.write(`${JSON.stringify(summary)}\n`);
