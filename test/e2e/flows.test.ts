// Both flows end to end over real HTTP on loopback, driven by the SDK: data governance (grant,
// plan, read, verify) and agent-to-agent across two organizations (every receipt checked offline).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.ts';
import { Service } from '../../src/backend/service.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { startServer, type RunningServer } from '../../src/http/server.ts';
import {
  SvcClient,
  SvcApiError,
  verifyReceiptOffline,
  sealEnvelope,
  openEnvelope,
  generateFabricKeyPair,
  type SignedReceipt,
} from '../../src/sdk/index.ts';

let server: RunningServer;
let service: Service;
let cleanup: () => void;

beforeAll(async () => {
  const dir = tempDir();
  cleanup = dir.cleanup;
  service = new Service({ dataDir: dir.dir });
  server = await startServer({ service, port: 0 });
});
afterAll(async () => {
  await server.close();
  cleanup();
});

describe('data governance flow', () => {
  it('grant, plan, read, verify', async () => {
    const org = await service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    const owner = new SvcClient({ baseUrl: server.url, token: org.api_key });
    const grant = await owner.call<{ grant_token: string; handle: string; read_url: string }>(
      'POST',
      '/api/v1/governance/grant',
      {
        agent: 'Billing Agent',
        columns: ['id', 'region', 'balance'],
        where: { region: 'us' },
      },
    );
    expect(grant.read_url).toBe(`${server.url}/api/agents/billing-agent/read`);

    const agent = new SvcClient({ baseUrl: server.url, token: grant.grant_token });
    const plan = await agent.compute(
      { columns: ['id', 'balance', 'notes'], purpose: 'monthly statement' },
      { receipt: true },
    );
    expect(plan).toMatchObject({
      decision: 'degrade',
      allowed: { columns: ['id', 'balance'] },
      withheld: { columns: ['notes'] },
    });

    const read = await agent.call<{
      rows: { id: number; balance: number }[];
      audit: { id: string; chain_index: number };
    }>('POST', new URL(grant.read_url).pathname, {
      table: 'agent_demo_records',
      columns: ['id', 'balance'],
      limit: 5,
    });
    expect(read.rows).toHaveLength(5);
    expect(read.rows.every((r) => typeof r.balance === 'number')).toBe(true);

    const anyone = new SvcClient({ baseUrl: server.url });
    for (const proofId of [plan.proof_id!, read.audit.id]) {
      expect(await anyone.verify(proofId)).toMatchObject({ authentic: true, unaltered: true, found: true });
    }
    const { keys } = await anyone.publishedKeys();
    const receipt = await anyone.receipt(plan.proof_id!);
    expect(verifyReceiptOffline(receipt, keys[0]!.public_key_hex).valid).toBe(true);
    const audit = await anyone.receipt(read.audit.id);
    expect(verifyReceiptOffline(audit, keys[0]!.public_key_hex).valid).toBe(true);

    const refused = await agent
      .call('POST', '/api/agents/billing-agent/read', { table: 'agent_demo_records', columns: ['notes'] })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SvcApiError);
    expect((refused as SvcApiError).status).toBe(403);
    expect((refused as SvcApiError).body).toMatchObject({
      error: 'scope_violation',
      denied_columns: ['notes'],
    });
  });
});

describe('agent-to-agent flow across two organizations', () => {
  it('enroll both, grant, send, inbox, fetch, open, verify every receipt offline', async () => {
    const senderOrg = await service.invoke(ops.createOrg, undefined, { name: 'Sender Org' });
    const recipientOrg = await service.invoke(ops.createOrg, undefined, { name: 'Recipient Org' });
    const senderOwner = new SvcClient({ baseUrl: server.url, token: senderOrg.api_key });
    const recipientOwner = new SvcClient({ baseUrl: server.url, token: recipientOrg.api_key });
    const grantAgent = (owner: SvcClient, agent: string) =>
      owner.call<{ grant_token: string; handle: string }>('POST', '/api/v1/governance/grant', {
        agent,
        columns: ['id'],
      });
    const alice = await grantAgent(senderOwner, 'Alice');
    const bob = await grantAgent(recipientOwner, 'Bob');
    const aliceClient = new SvcClient({ baseUrl: server.url, token: alice.grant_token });
    const bobClient = new SvcClient({ baseUrl: server.url, token: bob.grant_token });

    const aliceKeys = await generateFabricKeyPair();
    const bobKeys = await generateFabricKeyPair();
    const aliceKid = (await aliceClient.enrollFabric(alice.handle, aliceKeys)).kid;
    const bobKid = (await bobClient.enrollFabric(bob.handle, bobKeys)).kid;

    const connection = await senderOwner.call<{ grant_id: string; receipt: SignedReceipt }>(
      'POST',
      '/api/v1/fabric-grants',
      {
        subject_kid: bobKid,
        label: 'Recipient Org partnership',
        allowed_sender_kids: [aliceKid],
        ttl_days: 30,
      },
    );
    const inboundForBob = await recipientOwner.call<{ inbound: { grant_id: string }[]; outbound: unknown[] }>(
      'GET',
      '/api/v1/fabric-grants',
    );
    expect(inboundForBob.inbound.map((g) => g.grant_id)).toEqual([connection.grant_id]);
    expect(inboundForBob.outbound).toEqual([]);

    const message = 'Quarterly figures attached: revenue 4.2M, churn 3%.';
    const sealed = await sealEnvelope({ plaintext: message, recipientPublicKeyHex: bobKeys.publicKeyHex });
    const sent = await aliceClient.call<{ id: string; receipt: SignedReceipt }>(
      'POST',
      `/api/agents/${alice.handle}/fabric/send`,
      {
        recipient_kid: bobKid,
        ciphertext_b64: sealed.ciphertext_b64,
        wrapped_key_b64: sealed.wrapped_key_b64,
        payload_iv_b64: sealed.payload_iv_b64,
        content_type_hint: 'text/plain',
        purpose: 'quarterly report',
        max_fetches: 2,
      },
    );

    const inbox = await bobClient.call<{ items: { id: string; sender_kid: string }[] }>(
      'GET',
      `/api/agents/${bob.handle}/fabric/inbox`,
    );
    expect(inbox.items).toEqual([expect.objectContaining({ id: sent.id, sender_kid: aliceKid })]);

    const fetched = await bobClient.call<{
      ciphertext_b64: string;
      wrapped_key_b64: string;
      payload_iv_b64: string;
      decision: { outcome: string; receipt_id: string };
      receipt: SignedReceipt;
    }>('POST', `/api/agents/${bob.handle}/fabric/fetch`, { blob_id: sent.id });
    expect(fetched.decision.outcome).toBe('allow');
    const opened = await openEnvelope({ ...fetched, recipientPrivateKeyHex: bobKeys.privateKeyHex });
    expect(new TextDecoder().decode(opened)).toBe(message);

    // The sender's organization ends the connection: the next fetch is refused and receipted.
    const revoked = await senderOwner.call<{ receipt: SignedReceipt }>('PATCH', '/api/v1/fabric-grants', {
      grant_id: connection.grant_id,
      reason: 'ended',
    });
    const denied = (await bobClient
      .call('POST', `/api/agents/${bob.handle}/fabric/fetch`, { blob_id: sent.id })
      .catch((e: unknown) => e)) as SvcApiError;
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: 'fabric_denied', reasons: ['grant_revoked'] });

    const publicKey = (await new SvcClient({ baseUrl: server.url }).publishedKeys()).keys[0]!.public_key_hex;
    const receipts = [
      connection.receipt,
      sent.receipt,
      fetched.receipt,
      revoked.receipt,
      denied.body.receipt as SignedReceipt,
    ];
    expect(receipts.map((r) => r.payload.kind)).toEqual([
      'fabric.grant',
      'fabric.send',
      'fabric.fetch',
      'fabric.revoke',
      'fabric.fetch',
    ]);
    for (const receipt of receipts) {
      expect(verifyReceiptOffline(receipt, publicKey)).toMatchObject({ valid: true });
      const forged = { ...receipt, payload: { ...receipt.payload, recipient_kid: aliceKid } };
      expect(verifyReceiptOffline(forged, publicKey).valid).toBe(false);
    }
    const wrongKey = (await generateFabricKeyPair()).publicKeyHex;
    expect(verifyReceiptOffline(sent.receipt, wrongKey).valid).toBe(false);
  });
});
