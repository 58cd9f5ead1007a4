// Two organizations' agents exchange an envelope over MCP, each through its own real `svc mcp`
// process (its own data dir, vault and grant token), both against one real `svc serve` over
// loopback HTTP: enroll, the sender's organization grants the recipient's address, svc_send `to`,
// arrivals, open, then a fetch refused once the grant is revoked. Every receipt is checked offline
// with the SDK, and the service's store never holds the plaintext or a private key.
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Service } from '../../src/backend/service.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { remoteInvoker } from '../../src/backend/invoke.ts';
import { SvcClient } from '../../src/sdk/client.ts';
import { verifyReceiptOffline, type SignedReceipt } from '../../src/sdk/receipt.ts';
import { tempDir } from '../helpers.ts';
import { REPO_ROOT, SVC_BIN, childEnv, killAll, startServe, type ServeProcess } from './procs.ts';

const SECRET_LINE = 'merger code name: BLUE HERON 7731';

interface Side {
  home: { dir: string; cleanup: () => void };
  project: string;
  owner: string;
  token: string;
  client: Client;
}

const serverHome = tempDir('svc-fabric-server-');
let server: ServeProcess;
let sender: Side;
let recipient: Side;
const clients: Client[] = [];

async function side(service: Service, org: string, agent: string): Promise<Omit<Side, 'client'>> {
  const created = await service.invoke(ops.createOrg, undefined, { name: org });
  const grant = await service.invoke(ops.createGrant, `Bearer ${created.api_key}`, {
    agent,
    columns: ['id'],
  });
  const home = tempDir(`svc-fabric-${agent.toLowerCase()}-`);
  const project = join(home.dir, 'work');
  mkdirSync(join(project, '.git'), { recursive: true });
  return { home, project, owner: `Bearer ${created.api_key}`, token: grant.grant_token };
}

/** `svc mcp` as the agent's own computer runs it: its data dir, its token, the remote service. */
async function mcpFor(s: Omit<Side, 'client'>): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(REPO_ROOT, SVC_BIN), 'mcp'],
    cwd: s.project,
    env: childEnv({
      SVC_HOME: join(s.home.dir, 'svc'),
      SVC_BASE_URL: server.url,
      SVC_AGENT_TOKEN: s.token,
    }) as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'svc-fabric-e2e', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { text: string }[]).map((c) => c.text).join('\n');
  return {
    error: result.isError === true,
    text,
    data: (result.structuredContent ?? {}) as Record<string, any>,
  };
}

beforeAll(async () => {
  const service = new Service({ dataDir: serverHome.dir });
  const a = await side(service, 'Sender Org', 'Alice');
  const b = await side(service, 'Receiver Org', 'Bob');
  service.close();
  server = await startServe(childEnv({ SVC_HOME: serverHome.dir }));
  sender = { ...a, client: await mcpFor(a) };
  recipient = { ...b, client: await mcpFor(b) };
  writeFileSync(join(sender.project, 'brief.txt'), `${SECRET_LINE}\n`);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await killAll();
  for (const s of [sender, recipient]) s?.home.cleanup();
  serverHome.cleanup();
});

describe('the Fabric between two organizations, over MCP', () => {
  const receipts: { id: string; kind: string; outcome?: string; reasons?: string[] }[] = [];
  let senderKid: string;
  let recipientKid: string;
  let grantId: string;

  it('each agent enrolls a key its own computer keeps', async () => {
    const a = await call(sender.client, 'svc_inbox', { action: 'address' });
    const b = await call(recipient.client, 'svc_inbox', { action: 'address' });
    expect(a.error, a.text).toBe(false);
    expect(b.error, b.text).toBe(false);
    expect(a.data).toMatchObject({ enrolled_now: true });
    senderKid = a.data.address;
    recipientKid = b.data.address;
    for (const s of [sender, recipient]) {
      const keys = readdirSync(join(s.home.dir, 'svc', 'keys')).filter((n) => n.startsWith('fabric-x25519-'));
      expect(keys).toHaveLength(1);
    }
    const serverKeys = join(serverHome.dir, 'keys');
    expect(existsSync(serverKeys) && readdirSync(serverKeys).some((n) => n.startsWith('fabric-'))).toBe(
      false,
    );
    expect((await call(sender.client, 'svc_inbox', { action: 'address' })).data).toMatchObject({
      address: senderKid,
      enrolled_now: false,
    });
  });

  it("the sender's organization grants the recipient's address for its agent", async () => {
    const grant = await remoteInvoker(server.url).invoke(ops.createFabricGrant, sender.owner, {
      subject_kid: recipientKid,
      label: 'Receiver Org',
      allowed_sender_kids: [senderKid],
    });
    grantId = grant.grant_id;
    const senders = await call(recipient.client, 'svc_inbox', { action: 'senders' });
    expect(senders.data.senders).toEqual([
      expect.objectContaining({ grant_id: grantId, allowed_sender_kids: [senderKid], status: 'active' }),
    ]);
  });

  it('sends a file with svc_send `to`; the recipient lists and opens it', async () => {
    const sent = await call(sender.client, 'svc_send', {
      path: 'brief.txt',
      to: recipientKid,
      purpose: 'brief',
    });
    expect(sent.error, sent.text).toBe(false);
    expect(sent.data).toMatchObject({ kind: 'envelope', to: recipientKid, max_fetches: 1 });
    expect(sent.text).not.toContain(SECRET_LINE);
    receipts.push({ id: sent.data.receipt_id, kind: 'fabric.send' });

    const arrivals = await call(recipient.client, 'svc_inbox', { action: 'arrivals' });
    expect(arrivals.data.arrivals).toEqual([
      expect.objectContaining({
        id: sent.data.envelope_id,
        sender_kid: senderKid,
        filename_hint: 'brief.txt',
        purpose: 'brief',
        status: 'available',
        fetches_left: 1,
      }),
    ]);
    expect(arrivals.text).not.toContain(SECRET_LINE);

    const opened = await call(recipient.client, 'svc_inbox', { action: 'open', id: sent.data.envelope_id });
    expect(opened.error, opened.text).toBe(false);
    expect(opened.data.opened).toMatchObject({
      released_to: 'text',
      text: `${SECRET_LINE}\n`,
      fetches_left: 0,
    });
    receipts.push({ id: opened.data.opened.receipt_id, kind: 'fabric.fetch', outcome: 'allow' });
  });

  it('once the grant is revoked, a fetch is refused with its reasons and a receipt', async () => {
    const sent = await call(sender.client, 'svc_send', { text: 'second note', to: recipientKid });
    receipts.push({ id: sent.data.receipt_id, kind: 'fabric.send' });
    await remoteInvoker(server.url).invoke(ops.revokeFabricGrant, sender.owner, { grant_id: grantId });
    const refused = await call(recipient.client, 'svc_inbox', { action: 'open', id: sent.data.envelope_id });
    expect(refused.error).toBe(true);
    expect(refused.text).toMatch(/^fabric_denied: .*grant_revoked.*POST \/api\/v1\/fabric-grants/);
    expect(refused.text).not.toContain('"receipt":');
    const details = JSON.parse(refused.text.slice(refused.text.indexOf('\n') + 1)) as {
      reasons: string[];
      receipt_id: string;
    };
    expect(details.reasons).toEqual(['grant_revoked']);
    receipts.push({
      id: details.receipt_id,
      kind: 'fabric.fetch',
      outcome: 'deny',
      reasons: ['grant_revoked'],
    });
    const arrivals = await call(recipient.client, 'svc_inbox', { action: 'arrivals' });
    expect(arrivals.data.arrivals.find((a: { id: string }) => a.id === sent.data.envelope_id)).toMatchObject({
      fetches_left: 1,
    });
  });

  it('every receipt verifies offline against the published key', async () => {
    const sdk = new SvcClient({ baseUrl: server.url });
    const { keys } = await sdk.publishedKeys();
    expect(receipts).toHaveLength(4);
    for (const expected of receipts) {
      const receipt = (await sdk.receipt(expected.id)) as SignedReceipt;
      const key = keys.find((k) => k.signing_kid === receipt.signing_kid)!;
      expect(verifyReceiptOffline(receipt, key.public_key_hex), expected.id).toMatchObject({ valid: true });
      expect(receipt.payload).toMatchObject({ kind: expected.kind });
      if (expected.outcome) expect(receipt.payload).toMatchObject({ outcome: expected.outcome });
      if (expected.reasons) expect(receipt.payload).toMatchObject({ reasons: expected.reasons });
    }
  });

  it("the service's store holds neither the plaintext nor a private key", async () => {
    const stored = readdirSync(serverHome.dir)
      .filter((n) => n.startsWith('svc.db'))
      .map((n) => readFileSync(join(serverHome.dir, n)).toString('latin1'))
      .join('');
    expect(stored).not.toContain('BLUE HERON');
    expect(stored).not.toContain('second note');
    for (const s of [sender, recipient]) {
      const keyDir = join(s.home.dir, 'svc', 'keys');
      const name = readdirSync(keyDir).find((n) => n.startsWith('fabric-x25519-'))!;
      expect(stored).not.toContain(readFileSync(join(keyDir, name), 'utf8').trim());
    }
  });
});
