// Attacks on the Fabric's addresses and storage, each reproduced against the in-process service
// over a real store: squatting another organization's address, and storage without bounds.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ops } from '../../src/backend/operations/index.ts';
import { ServiceError } from '../../src/backend/errors.ts';
import {
  fabricAddress,
  generateFabricKeyPair,
  openEnrollChallenge,
  type FabricKeyPair,
} from '../../src/sdk/fabric.ts';
import { enrollKey, harness, type Harness } from '../helpers.ts';

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
