// Attacks on the Fabric's addresses and storage, each reproduced against the in-process service
// over a real store: squatting another organization's address, and storage without bounds.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ops } from '../../src/backend/operations/index.ts';
import { ServiceError } from '../../src/backend/errors.ts';
import {
  fabricAddress,
  generateFabricKeyPair,
  openEnrollChallenge,
  type FabricKeyPair,
} from '../../src/sdk/fabric.ts';
import { enrollKey, harness, storeBefore, tempDir, type Harness } from '../helpers.ts';
import { Store } from '../../src/backend/store/db.ts';
import { DEFAULT_FABRIC_QUOTAS } from '../../src/backend/context.ts';
import { SWEEP_MAX_ENVELOPES, sweepEnvelopes } from '../../src/backend/fabric.ts';

let h: Harness;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.close());

async function agentOf(orgName: string, agent: string) {
  const org = await h.service.invoke(ops.createOrg, undefined, { name: orgName });
  const orgBearer = `Bearer ${org.api_key}`;
  const grant = await h.service.invoke(ops.createGrant, orgBearer, { agent, columns: ['id'] });
  return { org, orgBearer, bearer: `Bearer ${grant.grant_token}`, handle: grant.handle };
}

type Agent = Awaited<ReturnType<typeof agentOf>>;

/** What a call was refused with (its code, details and message), or a failure if it was not. */
async function refusal(call: Promise<unknown>): Promise<ServiceError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the call was refused').toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

async function receiptOf(error: ServiceError) {
  return (await h.service.invoke(ops.getProof, undefined, { id: String(error.details.receipt_id) })).payload;
}

async function proofFor(agent: Agent, keys: FabricKeyPair) {
  const challenge = await h.service.invoke(ops.requestEnrollChallenge, agent.bearer, {
    handle: agent.handle,
    ecdh_pubkey_hex: keys.publicKeyHex,
  });
  return openEnrollChallenge({ challenge_b64: challenge.challenge_b64, privateKeyHex: keys.privateKeyHex });
}

const enrollAs = (agent: Agent, ecdh_pubkey_hex: string, proof?: string) =>
  h.service.invoke(ops.enrollFabric, agent.bearer, {
    handle: agent.handle,
    ecdh_pubkey_hex,
    ...(proof === undefined ? {} : { proof }),
  });

describe('squatting a Fabric address', () => {
  it("another organization's agent enrolling the victim's public key without its private key is refused; the victim then enrolls", async () => {
    const victim = await agentOf('Victim Org', 'Treasury Bot');
    const attacker = await agentOf('Attacker Org', 'Squatter');
    const partner = await agentOf('Partner Org', 'Payer');
    const victimKeys = await generateFabricKeyPair();
    const attackerKeys = await generateFabricKeyPair();
    // The victim's partner connects to the address before the victim enrolls it (grants may).
    await h.service.invoke(ops.createFabricGrant, partner.orgBearer, {
      subject_kid: fabricAddress(victimKeys.publicKeyHex),
    });

    // The plain squat: the public key alone, as the old enroll took it.
    const bare = await refusal(enrollAs(attacker, victimKeys.publicKeyHex));
    expect(bare.code).toBe('key_not_proven');
    expect(bare.details).toMatchObject({ field: 'proof', reason: 'proof_missing' });
    expect(await receiptOf(bare)).toMatchObject({
      kind: 'fabric.enroll.deny',
      org_id: attacker.org.org_id,
      kid: fabricAddress(victimKeys.publicKeyHex),
      reason: 'proof_missing',
    });

    // The attacker can ask for a challenge sealed to the victim's key, but cannot open it.
    const sealed = await h.service.invoke(ops.requestEnrollChallenge, attacker.bearer, {
      handle: attacker.handle,
      ecdh_pubkey_hex: victimKeys.publicKeyHex,
    });
    await expect(
      openEnrollChallenge({ challenge_b64: sealed.challenge_b64, privateKeyHex: attackerKeys.privateKeyHex }),
    ).rejects.toMatchObject({ code: 'decrypt_failed' });

    // Proofs it can make: one for its own key, and made-up ones of the right shape.
    const own = await proofFor(attacker, attackerKeys);
    const [expires] = own.split('.');
    for (const forged of [
      own,
      `${expires}.${'0'.repeat(64)}`,
      `${Number(expires) + 3600}.${own.split('.')[1]}`,
      'x',
    ]) {
      const refused = await refusal(enrollAs(attacker, victimKeys.publicKeyHex, forged));
      expect(refused.code).toBe('key_not_proven');
      expect(refused.details.reason).toBe('proof_invalid');
    }

    // The address is still free: the victim, who holds the key, enrolls it.
    const enrolled = await enrollKey(h.service, victim.bearer, victim.handle, victimKeys);
    expect(enrolled.kid).toBe(fabricAddress(victimKeys.publicKeyHex));
    // The partner's grant names the victim's agent, not the attacker's.
    const attackerView = await h.service.invoke(ops.listFabricGrants, attacker.orgBearer, {});
    expect(attackerView.inbound).toEqual([]);
    const victimView = await h.service.invoke(ops.listFabricGrants, victim.orgBearer, {});
    expect(victimView.inbound.map((g) => g.subject_kid)).toEqual([enrolled.kid]);
  });

  it('a proof replayed by another agent, or for another key, is refused', async () => {
    const victim = await agentOf('Victim Org', 'Treasury Bot');
    const attacker = await agentOf('Attacker Org', 'Squatter');
    const victimKeys = await generateFabricKeyPair();
    const proof = await proofFor(victim, victimKeys);

    // The victim's own proof, seen in transit and replayed by the other organization's agent.
    const replayed = await refusal(enrollAs(attacker, victimKeys.publicKeyHex, proof));
    expect(replayed.code).toBe('key_not_proven');
    expect(replayed.details.reason).toBe('proof_invalid');

    // The same proof for a key it was not sealed to, even by the agent it was made for.
    const otherKey = await generateFabricKeyPair();
    const swapped = await refusal(enrollAs(victim, otherKey.publicKeyHex, proof));
    expect(swapped.details.reason).toBe('proof_invalid');

    // A sibling agent of the victim's own organization cannot use it either.
    const siblingGrant = await h.service.invoke(ops.createGrant, victim.orgBearer, {
      agent: 'Sibling',
      columns: ['id'],
    });
    const sibling = { ...victim, bearer: `Bearer ${siblingGrant.grant_token}`, handle: siblingGrant.handle };
    const borrowed = await refusal(enrollAs(sibling, victimKeys.publicKeyHex, proof));
    expect(borrowed.details.reason).toBe('proof_invalid');

    // The proof still works where it belongs.
    expect((await enrollAs(victim, victimKeys.publicKeyHex, proof)).kid).toBe(
      fabricAddress(victimKeys.publicKeyHex),
    );
  });

  it('a challenge for a low-order public key is refused as bad input', async () => {
    const agent = await agentOf('Acme', 'Bot');
    // A point of order 8 on Curve25519: every X25519 result with it is zero (RFC 7748 §6.1).
    const lowOrder = 'e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800';
    const refused = await refusal(
      h.service.invoke(ops.requestEnrollChallenge, agent.bearer, {
        handle: agent.handle,
        ecdh_pubkey_hex: lowOrder,
      }),
    );
    expect(refused.code).toBe('invalid_request');
    expect(refused.details.field).toBe('ecdh_pubkey_hex');
  });
});

// ---------------------------------------------------------------- storage bounds

/** An agent of `agent`'s organization (or a new one), enrolled with a fresh key. */
async function enrolledAgent(orgName: string, name: string, org?: Agent) {
  const agent = org
    ? await (async () => {
        const grant = await h.service.invoke(ops.createGrant, org.orgBearer, {
          agent: name,
          columns: ['id'],
        });
        return { ...org, bearer: `Bearer ${grant.grant_token}`, handle: grant.handle };
      })()
    : await agentOf(orgName, name);
  const keys = await generateFabricKeyPair();
  const { kid } = await enrollKey(h.service, agent.bearer, agent.handle, keys);
  return { ...agent, keys, kid };
}

type Enrolled = Awaited<ReturnType<typeof enrolledAgent>>;

/** `bytes` bytes of ciphertext as base64 (the service never opens it, so any bytes will do). */
const ciphertext = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64');

const sendAs = (
  sender: Enrolled,
  recipient_kid: string,
  options: { bytes?: number; ttl_hours?: number; max_fetches?: number } = {},
) =>
  h.service.invoke(ops.sendEnvelope, sender.bearer, {
    handle: sender.handle,
    recipient_kid,
    ciphertext_b64: ciphertext(options.bytes ?? 16),
    wrapped_key_b64: 'AAAA',
    payload_iv_b64: 'AAAA',
    ...(options.ttl_hours === undefined ? {} : { ttl_hours: options.ttl_hours }),
    ...(options.max_fetches === undefined ? {} : { max_fetches: options.max_fetches }),
  });

const storedEnvelopes = async () =>
  (await h.service.ctx.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM envelopes'))!.n;

const sealedParts = (id: string) =>
  h.service.ctx.store.get<{
    ciphertext_b64: string;
    wrapped_key_b64: string;
    payload_iv_b64: string;
    swept_at: string | null;
  }>('SELECT ciphertext_b64, wrapped_key_b64, payload_iv_b64, swept_at FROM envelopes WHERE id = ?', id);

/** The organization's `fabric.sweep` receipts, oldest first. */
async function sweepReceipts(agent: Agent) {
  const { proofs } = await h.service.invoke(ops.listProofs, agent.orgBearer, {});
  const sweeps = proofs.filter((p) => p.kind === 'fabric.sweep').reverse();
  return Promise.all(
    sweeps.map(async (p) => (await h.service.invoke(ops.getProof, undefined, { id: p.id })).payload),
  );
}

describe('sends to addresses no agent holds', () => {
  it('a send to a never-enrolled address is refused with a receipted 404 and stores nothing', async () => {
    const sender = await enrolledAgent('Acme', 'Sender');
    const nobody = fabricAddress((await generateFabricKeyPair()).publicKeyHex);
    const before = await storedEnvelopes();
    const refused = await refusal(sendAs(sender, nobody, { bytes: 4096 }));
    expect(refused.code).toBe('not_found');
    expect(refused.status).toBe(404);
    expect(refused.message).toContain(nobody);
    expect(await receiptOf(refused)).toMatchObject({
      kind: 'fabric.send.deny',
      org_id: sender.org.org_id,
      agent_id: expect.any(String),
      recipient_kid: nobody,
      size_bytes: 4096,
      reason: 'unknown_recipient',
    });
    expect(await storedEnvelopes()).toBe(before);
  });
});

describe('quotas of live envelopes', () => {
  beforeEach(() => {
    h.close();
    h = harness({
      fabricQuotas: {
        recipientEnvelopes: 3,
        recipientBytes: 10_000,
        senderEnvelopes: 5,
        senderBytes: 100_000,
        organizationEnvelopes: 8,
        organizationBytes: 1_000_000,
      },
    });
  });

  it('a flood of envelopes to one address stops at the recipient quota (429), receipted, and frees as they expire', async () => {
    const sender = await enrolledAgent('Flooder Org', 'Flooder');
    const victim = await enrolledAgent('Victim Org', 'Inbox');
    for (let i = 0; i < 3; i++) await sendAs(sender, victim.kid, { ttl_hours: 1 });
    const full = await refusal(sendAs(sender, victim.kid));
    expect(full.code).toBe('quota_exceeded');
    expect(full.status).toBe(429);
    expect(full.details).toMatchObject({ quota: 'recipient_envelopes', limit: 3 });
    expect(full.message).toMatch(/fetched or expire/);
    expect(await receiptOf(full)).toMatchObject({
      kind: 'fabric.send.deny',
      recipient_kid: victim.kid,
      quota: 'recipient_envelopes',
      limit: 3,
      reason: 'quota_exceeded',
    });
    // One large envelope passes the byte quota by itself.
    const other = await enrolledAgent('Other Org', 'Other');
    const big = await refusal(sendAs(sender, other.kid, { bytes: 10_001 }));
    expect(big.details).toMatchObject({ quota: 'recipient_bytes', limit: 10_000 });
    // Expired envelopes are no longer live: the address takes new ones.
    h.clock.advance(3_600_000);
    expect((await sendAs(sender, victim.kid)).recipient_kid).toBe(victim.kid);
  });

  it('a sender over its quota is refused (429) across addresses; its organization is bounded too, however many agents it makes', async () => {
    const sender = await enrolledAgent('Sender Org', 'Sender');
    const recipients = await Promise.all(
      ['A', 'B', 'C', 'D'].map((name) => enrolledAgent('Recipients Org', `Recipient ${name}`)),
    );
    for (let i = 0; i < 5; i++) await sendAs(sender, recipients[i % 3]!.kid);
    const over = await refusal(sendAs(sender, recipients[2]!.kid));
    expect(over.code).toBe('quota_exceeded');
    expect(over.details).toMatchObject({ quota: 'sender_envelopes', limit: 5 });
    expect(over.message).toContain(sender.handle);
    expect((await receiptOf(over)).reason).toBe('quota_exceeded');

    // A second agent of the same organization gets its own sender quota, not a new organization's.
    const sibling = await enrolledAgent('', 'Sibling', sender);
    for (let i = 0; i < 3; i++) await sendAs(sibling, recipients[i]!.kid);
    // Eight live envelopes from the organization now; the ninth is refused at an address with room.
    const orgOver = await refusal(sendAs(sibling, recipients[3]!.kid));
    expect(orgOver.details).toMatchObject({ quota: 'organization_envelopes', limit: 8 });
  });

  it('a sender over its byte quota is refused, and says what to do', async () => {
    h.close();
    h = harness({ fabricQuotas: { senderBytes: 3_000, recipientBytes: 1_000_000 } });
    const sender = await enrolledAgent('Acme', 'Sender');
    const recipient = await enrolledAgent('Partner', 'Recipient');
    await sendAs(sender, recipient.kid, { bytes: 2_000 });
    const over = await refusal(sendAs(sender, recipient.kid, { bytes: 1_001 }));
    expect(over.details).toMatchObject({ quota: 'sender_bytes', limit: 3_000 });
    expect(over.message).toMatch(/send less/);
    expect((await sendAs(sender, recipient.kid, { bytes: 1_000 })).recipient_kid).toBe(recipient.kid);
  });
});

describe('the sweeper', () => {
  it("an expired envelope's ciphertext is gone after a sweep, and a fabric.sweep receipt says so", async () => {
    const sender = await enrolledAgent('Acme', 'Sender');
    const recipient = await enrolledAgent('Partner', 'Recipient');
    const sent = await sendAs(sender, recipient.kid, { bytes: 50_000, ttl_hours: 1 });
    expect((await sealedParts(sent.id))!.ciphertext_b64).toBe(ciphertext(50_000));

    h.clock.advance(3_600_000);
    // The next send, by anyone, sweeps before it stores.
    await sendAs(recipient, sender.kid);
    expect(await sealedParts(sent.id)).toEqual({
      ciphertext_b64: '',
      wrapped_key_b64: '',
      payload_iv_b64: '',
      swept_at: h.clock().toISOString(),
    });
    const [sweep] = await sweepReceipts(sender);
    expect(sweep).toMatchObject({
      kind: 'fabric.sweep',
      org_id: sender.org.org_id,
      envelope_ids: [sent.id],
      expired: 1,
      fully_fetched: 0,
      size_bytes: 50_000,
    });
    expect(JSON.stringify(sweep)).not.toContain(ciphertext(64));
    const verdict = await h.service.invoke(ops.verifyProof, undefined, { proof_id: String(sweep!.id) });
    expect(verdict).toMatchObject({ authentic: true, unaltered: true, kind: 'fabric.sweep' });

    // The recipient is still told what happened: the inbox lists it, a fetch answers 410.
    const inbox = await h.service.invoke(ops.listInbox, recipient.bearer, { handle: recipient.handle });
    expect(inbox.items.find((i) => i.id === sent.id)?.status).toBe('expired');
    const gone = await refusal(
      h.service.invoke(ops.fetchEnvelope, recipient.bearer, { handle: recipient.handle, blob_id: sent.id }),
    );
    expect(gone.code).toBe('gone');
  });

  it("a fully fetched envelope's ciphertext is gone after a sweep, and a fabric.sweep receipt says so", async () => {
    const sender = await enrolledAgent('Acme', 'Sender');
    const recipient = await enrolledAgent('Partner', 'Recipient');
    await h.service.invoke(ops.createFabricGrant, sender.orgBearer, { subject_kid: recipient.kid });
    const sent = await sendAs(sender, recipient.kid, { max_fetches: 2 });
    const fetch = () =>
      h.service.invoke(ops.fetchEnvelope, recipient.bearer, { handle: recipient.handle, blob_id: sent.id });
    await fetch();
    // One fetch of two: still live, so a sweep leaves it.
    expect((await sweepEnvelopes(h.service.ctx)).swept).toBe(0);
    expect((await fetch()).fetches_remaining).toBe(0);

    const swept = await sweepEnvelopes(h.service.ctx);
    expect(swept.swept).toBe(1);
    expect((await sealedParts(sent.id))!.ciphertext_b64).toBe('');
    expect((await sweepReceipts(sender)).at(-1)).toMatchObject({
      envelope_ids: [sent.id],
      expired: 0,
      fully_fetched: 1,
    });
    expect((await refusal(fetch())).details.status).toBe('fully_fetched');
  });

  it('one sweep is bounded; each organization gets a receipt for its own envelopes', async () => {
    const a = await enrolledAgent('Org A', 'Sender A');
    const b = await enrolledAgent('Org B', 'Sender B');
    const recipient = await enrolledAgent('Org C', 'Recipient');
    const sends = [];
    for (let i = 0; i < SWEEP_MAX_ENVELOPES; i++)
      sends.push(sendAs(i % 2 ? b : a, recipient.kid, { ttl_hours: 1 }));
    sends.push(sendAs(a, recipient.kid, { ttl_hours: 2 }));
    await Promise.all(sends);
    h.clock.advance(2 * 3_600_000);

    const first = await sweepEnvelopes(h.service.ctx);
    expect(first.swept).toBe(SWEEP_MAX_ENVELOPES);
    expect(first.receipts.map((r) => r.payload.org_id).sort()).toEqual([a.org.org_id, b.org.org_id].sort());
    const second = await sweepEnvelopes(h.service.ctx);
    expect(second.swept).toBe(1);
    expect((await sweepEnvelopes(h.service.ctx)).swept).toBe(0);
    const left = await h.service.ctx.store.get<{ n: number }>(
      "SELECT COUNT(*) AS n FROM envelopes WHERE ciphertext_b64 != ''",
    );
    expect(left!.n).toBe(0);
  });
});

describe('the schema', () => {
  it('the documented default quotas', () => {
    expect(DEFAULT_FABRIC_QUOTAS).toEqual({
      recipientBytes: 64 * 1024 * 1024,
      recipientEnvelopes: 1_000,
      senderBytes: 256 * 1024 * 1024,
      senderEnvelopes: 5_000,
      organizationBytes: 1024 * 1024 * 1024,
      organizationEnvelopes: 20_000,
    });
    expect(h.service.ctx.fabricQuotas).toEqual(DEFAULT_FABRIC_QUOTAS);
  });

  it('the quota counts and the sweeper read covering indexes, never the rows behind the ciphertext', () => {
    const plan = (sql: string) =>
      h.service.ctx.store.db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all('x', 'y')
        .map((step) => String(step.detail))
        .join('; ');
    for (const party of ['recipient_kid', 'sender_agent_id', 'sender_org_id']) {
      expect(
        plan(
          `SELECT COUNT(*), SUM(size_bytes) FROM envelopes WHERE ${party} = ? AND swept_at IS NULL AND dead_at > ?`,
        ),
      ).toMatch(/USING COVERING INDEX envelopes_live_/);
    }
    expect(
      plan(
        'SELECT id, ttl_at, dead_at, size_bytes, sender_org_id FROM envelopes WHERE swept_at IS NULL AND dead_at <= ? ORDER BY dead_at LIMIT ?',
      ),
    ).toMatch(/USING COVERING INDEX envelopes_sweep/);
  });

  it('migration 010 makes envelopes stored before sweepable: fully fetched at once, the others at expiry', () => {
    const home = tempDir();
    try {
      const file = join(home.dir, 'svc.db');
      const old = storeBefore(file, 10);
      old.exec(
        "INSERT INTO agents (id, org_id, handle, name, status, created_at) VALUES ('agt_1', 'org_1', 'bot', 'Bot', 'active', 'then')",
      );
      const insert = old.prepare(
        `INSERT INTO envelopes (id, sender_agent_id, sender_org_id, sender_kid, recipient_kid, ciphertext_b64,
           wrapped_key_b64, payload_iv_b64, size_bytes, created_at, ttl_at, max_fetches, fetch_count, receipt_id)
         VALUES (?, 'agt_1', 'org_1', 'aaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb', 'AAAA', 'AAAA', 'AAAA', 3,
           '2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z', 1, ?, 'rcpt_1')`,
      );
      insert.run('fetched', 1);
      insert.run('waiting', 0);
      old.close();

      const store = new Store(file);
      try {
        expect(store.db.prepare('SELECT id, dead_at, swept_at FROM envelopes ORDER BY id').all()).toEqual([
          { id: 'fetched', dead_at: '2026-01-01T00:00:00.000Z', swept_at: null },
          { id: 'waiting', dead_at: '2026-01-02T00:00:00.000Z', swept_at: null },
        ]);
      } finally {
        store.close();
      }
    } finally {
      home.cleanup();
    }
  });
});
