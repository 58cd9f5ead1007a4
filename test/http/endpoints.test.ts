// Every endpoint of both groups and every status the spec lists, with body shapes checked against
// the same zod schemas the OpenAPI document is built from.
import { ops } from '../../src/backend/operations/index.ts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { harness, orgWithAgent, type Harness } from '../helpers.ts';
import { createApp } from '../../src/http/app.ts';
import { ErrorBody } from '../../src/backend/operations/common.ts';
import {
  AccessDecisionSchema,
  AgentsResponse,
  GrantResponse,
  ReadResponse,
  ScopeViolation,
} from '../../src/backend/operations/governance.ts';
import {
  EnrollChallenge,
  FabricDenied,
  FabricGrantCreated,
  FabricGrantList,
  FabricGrantRevoked,
  FetchResponse,
  InboxResponse,
  SendResponse,
} from '../../src/backend/operations/fabric.ts';
import {
  CapsuleAiGrant,
  CapsuleDetail,
  CapsuleDocument,
  CapsuleList,
  CapsuleMember,
  CapsuleRevoked,
  CapsuleSummary,
  DocumentsResponse,
  RecoveryCopy,
  RecoveryEvent,
  RecoveryPubkeyResponse,
  RecoveryState,
} from '../../src/backend/operations/documents.ts';
import {
  InvoiceSchema,
  OverviewSchema,
  PublishedKeys,
  VerifyResponse,
} from '../../src/backend/operations/proofs.ts';
import {
  fabricAddress,
  generateFabricKeyPair,
  openEnrollChallenge,
  sealEnvelope,
  type FabricKeyPair,
} from '../../src/sdk/fabric.ts';

let h: Harness;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.close());

function shape<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success)
    throw new Error(`body does not match its schema: ${parsed.error.message}\n${JSON.stringify(body)}`);
  return parsed.data;
}

function expectError(response: { status: number; body: any }, status: number, code: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  shape(ErrorBody, response.body);
  expect(response.body.error).toBe(code);
  expect(response.body.message.length).toBeGreaterThan(5);
}

/** Both steps of enrolling over HTTP: the challenge sealed to the key, then the proof opened from it. */
async function enrollOverHttp(h: Harness, token: string, handle: string, keys: FabricKeyPair) {
  const challenge = await h.request('POST', `/api/agents/${handle}/fabric/enroll/challenge`, {
    token,
    body: { ecdh_pubkey_hex: keys.publicKeyHex },
  });
  expect(challenge.status, JSON.stringify(challenge.body)).toBe(200);
  const { challenge_b64 } = shape(EnrollChallenge, challenge.body);
  const proof = await openEnrollChallenge({ challenge_b64, privateKeyHex: keys.privateKeyHex });
  return h.request('POST', `/api/agents/${handle}/fabric/enroll`, {
    token,
    body: { ecdh_pubkey_hex: keys.publicKeyHex, proof },
  });
}

async function enrolledAgent(h: Harness, apiKey: string, label: string) {
  const grant = await h.request('POST', '/api/v1/governance/grant', {
    token: apiKey,
    body: { agent: label, columns: ['id'], ttl_seconds: 7 * 86_400 },
  });
  const keys = await generateFabricKeyPair();
  const enrolled = await enrollOverHttp(h, grant.body.grant_token, grant.body.handle, keys);
  expect(enrolled.status).toBe(200);
  return {
    token: grant.body.grant_token as string,
    handle: grant.body.handle as string,
    kid: enrolled.body.kid as string,
    keys,
  };
}

describe('POST /api/v1/governance/grant', () => {
  it('201 with the grant, token shown once', async () => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    const r = await h.request('POST', '/api/v1/governance/grant', {
      token: org.api_key,
      body: { agent: 'Support Bot', columns: ['id', 'email'], where: { region: 'eu' }, ttl_seconds: 600 },
    });
    expect(r.status).toBe(201);
    const body = shape(GrantResponse, r.body);
    expect(body.handle).toBe('support-bot');
    expect(body.read_url).toBe('http://127.0.0.1/api/agents/support-bot/read');
    expect(Date.parse(body.expires_at) - h.clock().getTime()).toBe(600_000);
    const again = await h.request('POST', '/api/v1/governance/grant', {
      token: org.api_key,
      body: { agent: 'Support Bot', columns: ['id'] },
    });
    expect(again.body.handle).toBe('support-bot-2');
  });

  it('a handle is unique within its organization only: another organization’s agents change nothing', async () => {
    const a = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    const b = await h.service.invoke(ops.createOrg, undefined, { name: 'Globex' });
    const grant = (org: typeof a) =>
      h.request('POST', '/api/v1/governance/grant', {
        token: org.api_key,
        body: { agent: 'Support Bot', columns: ['id'] },
      });
    const first = await grant(a);
    const second = await grant(a);
    // Organization B is answered as if A did not exist: the same handle, no suffix that would tell.
    const other = await grant(b);
    expect([first.body.handle, second.body.handle, other.body.handle]).toEqual([
      'support-bot',
      'support-bot-2',
      'support-bot',
    ]);
    expect(other.body.read_url).toBe('http://127.0.0.1/api/agents/support-bot/read');
    // The same path serves each organization's agent its own rows, the token saying whose they are.
    const readAs = (token: string) =>
      h.request('POST', '/api/agents/support-bot/read', {
        token,
        body: { table: 'agent_demo_records', columns: ['id'], limit: 1 },
      });
    const [mine, theirs] = [await readAs(first.body.grant_token), await readAs(other.body.grant_token)];
    expect([mine.status, theirs.status]).toEqual([200, 200]);
    const audited = async (id: string) =>
      (await h.service.invoke(ops.getProof, undefined, { id })).payload as Record<string, unknown>;
    expect(await audited(mine.body.audit.id)).toMatchObject({
      org_id: a.org_id,
      agent_id: first.body.agent_id,
    });
    expect(await audited(theirs.body.audit.id)).toMatchObject({
      org_id: b.org_id,
      agent_id: other.body.agent_id,
    });
    // A capsule's AI grant names the organization's own agent by handle too.
    const capsule = await h.request('POST', '/v1/capsules', {
      token: b.api_key,
      body: { name: 'Deal room' },
    });
    const aiGrant = await h.request('POST', `/v1/capsules/${capsule.body.id}/ai-grants`, {
      token: b.api_key,
      body: { agent: 'support-bot' },
    });
    expect(aiGrant.status).toBe(201);
    expect(aiGrant.body).toMatchObject({ agent_id: other.body.agent_id });
    // Revoking by handle reaches the caller's own agent, never the other organization's.
    const revoked = await h.request('POST', '/api/v1/governance/revoke', {
      token: b.api_key,
      body: { target: 'support-bot' },
    });
    expect(revoked.body).toMatchObject({ target: 'agent', agent_id: other.body.agent_id });
    expect((await readAs(first.body.grant_token)).status).toBe(200);
    expect((await readAs(other.body.grant_token)).status).toBe(401);
  });

  it.each([
    ['missing agent', { columns: ['id'] }],
    ['missing columns', { agent: 'a' }],
    ['empty columns', { agent: 'a', columns: [] }],
    ['unregistered column', { agent: 'a', columns: ['id', 'ssn'] }],
    ['ttl under 60', { agent: 'a', columns: ['id'], ttl_seconds: 59 }],
    ['where on a sealed column', { agent: 'a', columns: ['id'], where: { email: 'x' } }],
    [
      'columns outside the classifications',
      { agent: 'a', columns: ['id', 'email'], classifications: ['public'] },
    ],
    ['unknown table', { agent: 'a', columns: ['id'], table: 'nope' }],
    ['unknown field', { agent: 'a', columns: ['id'], colour: 'red' }],
  ])('400 for %s', async (_name, body) => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    expectError(
      await h.request('POST', '/api/v1/governance/grant', { token: org.api_key, body }),
      400,
      'invalid_request',
    );
  });

  it('403 for a key without the scope or without an organization', async () => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    const fabricOnly = (
      await h.service.invoke(ops.createApiKey, undefined, { org_id: org.org_id, scopes: ['fabric'] })
    ).api_key;
    const unbound = (await h.service.invoke(ops.createApiKey, undefined, { org_id: null, scopes: ['*'] }))
      .api_key;
    const body = { agent: 'a', columns: ['id'] };
    expectError(
      await h.request('POST', '/api/v1/governance/grant', { token: fabricOnly, body }),
      403,
      'missing_scope',
    );
    expectError(
      await h.request('POST', '/api/v1/governance/grant', { token: unbound, body }),
      403,
      'no_organization',
    );
  });
});

describe('GET /api/v1/agents', () => {
  it('200 roster', async () => {
    const org = await orgWithAgent(h);
    const r = await h.request('GET', '/api/v1/agents', { token: org.api_key });
    expect(r.status).toBe(200);
    const body = shape(AgentsResponse, r.body);
    expect(body).toMatchObject({ ok: true, count: 1 });
    expect(body.agents[0]).toMatchObject({
      handle: 'support-bot',
      status: 'active',
      fabric_enrolled: false,
      fabric_address: null,
    });
  });
});

describe('POST /api/access/compute', () => {
  it('200 allow, degrade and deny; a receipt only with receipt=true', async () => {
    const { agent } = await orgWithAgent(h);
    const plan = (columns: string[], query = '') =>
      h.request('POST', `/api/access/compute${query}`, { token: agent.grant_token, body: { columns } });
    const allow = await plan(['id', 'email']);
    expect(shape(AccessDecisionSchema, allow.body)).toMatchObject({
      decision: 'allow',
      proof_id: null,
      cost: { distance: 0 },
    });
    const degrade = await plan(['id', 'phone'], '?receipt=true');
    expect(degrade.status).toBe(200);
    const decision = shape(AccessDecisionSchema, degrade.body);
    expect(decision).toMatchObject({
      decision: 'degrade',
      allowed: { columns: ['id'] },
      withheld: { columns: ['phone'] },
    });
    expect(decision.proof_id).toMatch(/^rcpt_/);
    expect(
      (await h.request('POST', '/access/verify', { body: { proof_id: decision.proof_id } })).body.authentic,
    ).toBe(true);
    const deny = await plan(['phone', 'balance']);
    expect(deny.body).toMatchObject({ decision: 'deny', allowed: { columns: [] } });
  });

  it('send to an external destination withholds sensitive columns', async () => {
    const { agent } = await orgWithAgent(h);
    const r = await h.request('POST', '/api/access/compute', {
      token: agent.grant_token,
      body: {
        action: 'send',
        columns: ['id', 'email'],
        destination: { channel: 'email', recipientCount: 3, external: true },
      },
    });
    expect(r.body).toMatchObject({ decision: 'degrade', withheld: { columns: ['email'] } });
  });

  it('400 for any receipt value but true, and for bad bodies', async () => {
    const { agent } = await orgWithAgent(h);
    for (const value of ['false', '1', 'TRUE', '']) {
      expectError(
        await h.request('POST', `/api/access/compute?receipt=${value}`, {
          token: agent.grant_token,
          body: {},
        }),
        400,
        'invalid_request',
      );
    }
    expectError(
      await h.request('POST', '/api/access/compute', {
        token: agent.grant_token,
        body: { action: 'delete' },
      }),
      400,
      'invalid_request',
    );
  });

  it('400 for text that is not well-formed Unicode, which no receipt could cover', async () => {
    const { agent } = await orgWithAgent(h);
    expectError(
      await h.request('POST', '/api/access/compute?receipt=true', {
        token: agent.grant_token,
        body: { columns: ['id'], purpose: 'audit \ud800 check' },
      }),
      400,
      'invalid_request',
    );
    expect(await h.service.ctx.chains.length('service')).toBe(1);
  });

  it('401 without a bearer; 404 for a table unknown to the tenant', async () => {
    const { agent } = await orgWithAgent(h);
    expectError(await h.request('POST', '/api/access/compute', { body: {} }), 401, 'unauthorized');
    expectError(
      await h.request('POST', '/api/access/compute', { token: agent.grant_token, body: { table: 'ghosts' } }),
      404,
      'unknown_table',
    );
  });
});

describe('POST /api/agents/{handle}/read', () => {
  it('200 with rows, count and the audit row; limit defaults to 50', async () => {
    const { agent } = await orgWithAgent(h);
    const r = await h.request('POST', `/api/agents/${agent.handle}/read`, {
      token: agent.grant_token,
      body: { table: 'agent_demo_records', columns: ['id', 'region', 'email'], where: { region: 'apac' } },
    });
    expect(r.status).toBe(200);
    const body = shape(ReadResponse, r.body);
    expect(body.count).toBe(50);
    expect(body.rows.every((row) => row.region === 'apac' && String(row.email).includes('@'))).toBe(true);
    expect(Object.keys(body.rows[0]!)).toEqual(['id', 'region', 'email']);
    expect(body.audit.chain_index).toBe(1);
  });

  it('403 scope_violation names the denied columns and carries its audit row', async () => {
    const { agent } = await orgWithAgent(h);
    const r = await h.request('POST', `/api/agents/${agent.handle}/read`, {
      token: agent.grant_token,
      body: { table: 'agent_demo_records', columns: ['id', 'balance', 'notes'] },
    });
    expectError(r, 403, 'scope_violation');
    const body = shape(ScopeViolation, r.body);
    expect(body.denied_columns).toEqual(['balance', 'notes']);
    const verdict = await h.request('POST', '/access/verify', { body: { proof_id: body.audit.id } });
    expect(verdict.body).toMatchObject({
      authentic: true,
      unaltered: true,
      chain: 'audit',
      kind: 'audit.read',
    });
  });

  it('400 for a limit over 200 or under 1; 200 at exactly 200', async () => {
    const { agent } = await orgWithAgent(h);
    const read = (limit: number) =>
      h.request('POST', `/api/agents/${agent.handle}/read`, {
        token: agent.grant_token,
        body: { table: 'agent_demo_records', columns: ['id'], limit },
      });
    expectError(await read(201), 400, 'invalid_request');
    expectError(await read(0), 400, 'invalid_request');
    expect((await read(200)).body.count).toBe(200);
  });

  it('the grant where always applies; a contradicting where matches nothing', async () => {
    const { agent } = await orgWithAgent(h, 'Acme', {
      agent: 'EU Bot',
      columns: ['id', 'region'],
      where: { region: 'eu' },
    });
    const read = (where?: object) =>
      h.request('POST', `/api/agents/${agent.handle}/read`, {
        token: agent.grant_token,
        body: { table: 'agent_demo_records', columns: ['id', 'region'], limit: 200, where },
      });
    const all = await read();
    expect(all.body.count).toBe(80);
    expect(all.body.rows.every((row: { region: string }) => row.region === 'eu')).toBe(true);
    expect((await read({ region: 'us' })).body.count).toBe(0);
  });

  it('a where on a plaintext column the grant does not release is a scope_violation (no probing)', async () => {
    const { agent } = await orgWithAgent(h, 'Acme', { agent: 'Id Bot', columns: ['id'] });
    const r = await h.request('POST', `/api/agents/${agent.handle}/read`, {
      token: agent.grant_token,
      body: { table: 'agent_demo_records', columns: ['id'], where: { region: 'eu' } },
    });
    expectError(r, 403, 'scope_violation');
    expect(r.body.denied_columns).toEqual(['region']);
    const plan = await h.request('POST', '/api/access/compute', {
      token: agent.grant_token,
      body: { columns: ['id'], where: { region: 'eu' } },
    });
    expect(plan.body).toMatchObject({ decision: 'deny', reasons: ['where_not_granted:region'] });
  });

  it('404 for an unknown table, 400 for a where on a sealed column, each with an audit row', async () => {
    const { agent } = await orgWithAgent(h);
    const unknown = await h.request('POST', `/api/agents/${agent.handle}/read`, {
      token: agent.grant_token,
      body: { table: 'ghosts', columns: ['id'] },
    });
    expectError(unknown, 404, 'unknown_table');
    expect(unknown.body.audit.chain_index).toBe(1);
    const sealedWhere = await h.request('POST', `/api/agents/${agent.handle}/read`, {
      token: agent.grant_token,
      body: { table: 'agent_demo_records', columns: ['id'], where: { email: 'a@b.c' } },
    });
    expectError(sealedWhere, 400, 'invalid_request');
    expect(sealedWhere.body.audit.chain_index).toBe(2);
  });
});

describe('Fabric', () => {
  it('enroll 200 with a 16-hex kid; 409 kid_collision; 409 already_enrolled; 400 bad key', async () => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    const a = await enrolledAgent(h, org.api_key, 'Alpha');
    expect(a.kid).toMatch(/^[0-9a-f]{16}$/);
    const b = await h.request('POST', '/api/v1/governance/grant', {
      token: org.api_key,
      body: { agent: 'Beta', columns: ['id'] },
    });
    // Only a holder of the private key gets this far: Beta proves it holds Alpha's key.
    expectError(await enrollOverHttp(h, b.body.grant_token, b.body.handle, a.keys), 409, 'kid_collision');
    expectError(await enrollOverHttp(h, a.token, a.handle, a.keys), 409, 'already_enrolled');
    expectError(
      await enrollOverHttp(h, a.token, a.handle, await generateFabricKeyPair()),
      409,
      'already_enrolled',
    );
    for (const path of ['enroll', 'enroll/challenge']) {
      for (const bad of ['ABCD', 'g'.repeat(64), '0'.repeat(64), a.keys.publicKeyHex.toUpperCase()]) {
        expectError(
          await h.request('POST', `/api/agents/${b.body.handle}/fabric/${path}`, {
            token: b.body.grant_token,
            body: { ecdh_pubkey_hex: bad },
          }),
          400,
          'invalid_request',
        );
      }
    }
  });

  it('enroll/challenge 200: sealed to the key, opens only with its private key; enroll without a proof 400 key_not_proven, receipted', async () => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    const grant = await h.request('POST', '/api/v1/governance/grant', {
      token: org.api_key,
      body: { agent: 'Alpha', columns: ['id'] },
    });
    const keys = await generateFabricKeyPair();
    const challenge = await h.request('POST', `/api/agents/${grant.body.handle}/fabric/enroll/challenge`, {
      token: grant.body.grant_token,
      body: { ecdh_pubkey_hex: keys.publicKeyHex },
    });
    expect(challenge.status).toBe(200);
    const body = shape(EnrollChallenge, challenge.body);
    expect(body.kid).toBe(fabricAddress(keys.publicKeyHex));
    expect(Date.parse(body.expires_at) - h.clock().getTime()).toBeGreaterThan(240_000);
    expect(Date.parse(body.expires_at) - h.clock().getTime()).toBeLessThanOrEqual(300_000);
    const stranger = await generateFabricKeyPair();
    await expect(
      openEnrollChallenge({ challenge_b64: body.challenge_b64, privateKeyHex: stranger.privateKeyHex }),
    ).rejects.toMatchObject({ code: 'decrypt_failed' });

    const refused = await h.request('POST', `/api/agents/${grant.body.handle}/fabric/enroll`, {
      token: grant.body.grant_token,
      body: { ecdh_pubkey_hex: keys.publicKeyHex },
    });
    expectError(refused, 400, 'key_not_proven');
    expect(refused.body).toMatchObject({ field: 'proof', reason: 'proof_missing' });
    expect(refused.body.message).toContain('/fabric/enroll/challenge');
    expect(refused.body.receipt_id).toMatch(/^rcpt_/);
  });

  it('fabric-grants: POST 201 with grant_id, 409 grant_exists, GET lists, PATCH revokes (idempotent)', async () => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    const sender = await enrolledAgent(h, org.api_key, 'Sender');
    const created = await h.request('POST', '/api/v1/fabric-grants', {
      token: org.api_key,
      body: {
        subject_kid: 'aaaaaaaaaaaaaaaa',
        label: 'partner',
        allowed_sender_kids: [sender.kid],
        ttl_days: 7,
      },
    });
    expect(created.status).toBe(201);
    const grant = shape(FabricGrantCreated, created.body);
    expect(grant).toMatchObject({
      status: 'active',
      subject_kid: 'aaaaaaaaaaaaaaaa',
      allowed_sender_kids: [sender.kid],
    });
    expect(Date.parse(grant.expires_at) - h.clock().getTime()).toBe(7 * 86_400_000);
    expectError(
      await h.request('POST', '/api/v1/fabric-grants', {
        token: org.api_key,
        body: { subject_kid: 'aaaaaaaaaaaaaaaa' },
      }),
      409,
      'grant_exists',
    );
    const list = await h.request('GET', '/api/v1/fabric-grants', { token: org.api_key });
    expect(shape(FabricGrantList, list.body).outbound.map((g) => g.grant_id)).toEqual([grant.grant_id]);
    const revoked = await h.request('PATCH', '/api/v1/fabric-grants', {
      token: org.api_key,
      body: { grant_id: grant.grant_id, reason: 'done' },
    });
    expect(revoked.status).toBe(200);
    expect(shape(FabricGrantRevoked, revoked.body)).toMatchObject({
      status: 'revoked',
      already_revoked: false,
      revoke_reason: 'done',
    });
    const again = await h.request('PATCH', '/api/v1/fabric-grants', {
      token: org.api_key,
      body: { grant_id: grant.grant_id },
    });
    expect(again.body).toMatchObject({ already_revoked: true, receipt: null });
    expectError(
      await h.request('PATCH', '/api/v1/fabric-grants', {
        token: org.api_key,
        body: { grant_id: 'fg_nope' },
      }),
      404,
      'not_found',
    );
    const replacement = await h.request('POST', '/api/v1/fabric-grants', {
      token: org.api_key,
      body: { subject_kid: 'aaaaaaaaaaaaaaaa' },
    });
    expect(replacement.status).toBe(201);
  });

  it.each([
    ['ttl_days 0', { subject_kid: 'aaaaaaaaaaaaaaaa', ttl_days: 0 }],
    ['ttl_days 3651', { subject_kid: 'aaaaaaaaaaaaaaaa', ttl_days: 3651 }],
    [
      'both ttl_days and expires_at',
      { subject_kid: 'aaaaaaaaaaaaaaaa', ttl_days: 1, expires_at: '2099-01-01T00:00:00Z' },
    ],
    ['past expires_at', { subject_kid: 'aaaaaaaaaaaaaaaa', expires_at: '2001-01-01T00:00:00Z' }],
    ['uppercase kid', { subject_kid: 'AAAAAAAAAAAAAAAA' }],
    [
      'expires_at past the ttl_days ceiling',
      { subject_kid: 'aaaaaaaaaaaaaaaa', expires_at: '2999-01-01T00:00:00Z' },
    ],
    [
      'sender not of this organization',
      { subject_kid: 'aaaaaaaaaaaaaaaa', allowed_sender_kids: ['bbbbbbbbbbbbbbbb'] },
    ],
  ])('fabric grant 400 for %s', async (_name, body) => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    expectError(
      await h.request('POST', '/api/v1/fabric-grants', { token: org.api_key, body }),
      400,
      'invalid_request',
    );
  });

  it('send 412 before enrolling; send 200; inbox metadata only; fetch 200, 410 when fully fetched or expired, 404 unknown', async () => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    const sender = await enrolledAgent(h, org.api_key, 'Sender');
    const recipient = await enrolledAgent(h, org.api_key, 'Recipient');
    const fresh = await h.request('POST', '/api/v1/governance/grant', {
      token: org.api_key,
      body: { agent: 'Fresh', columns: ['id'] },
    });
    const sealed = await sealEnvelope({
      plaintext: 'hello',
      recipientPublicKeyHex: recipient.keys.publicKeyHex,
    });
    const envelope = {
      recipient_kid: recipient.kid,
      ciphertext_b64: sealed.ciphertext_b64,
      wrapped_key_b64: sealed.wrapped_key_b64,
      payload_iv_b64: sealed.payload_iv_b64,
    };
    expectError(
      await h.request('POST', `/api/agents/${fresh.body.handle}/fabric/send`, {
        token: fresh.body.grant_token,
        body: envelope,
      }),
      412,
      'not_enrolled',
    );
    expectError(
      await h.request('GET', `/api/agents/${fresh.body.handle}/fabric/inbox`, {
        token: fresh.body.grant_token,
      }),
      412,
      'not_enrolled',
    );
    await h.request('POST', '/api/v1/fabric-grants', {
      token: org.api_key,
      body: { subject_kid: recipient.kid },
    });
    const sent = await h.request('POST', `/api/agents/${sender.handle}/fabric/send`, {
      token: sender.token,
      body: { ...envelope, max_fetches: 1, ttl_hours: 2, filename_hint: 'note.txt' },
    });
    expect(sent.status).toBe(200);
    const sendBody = shape(SendResponse, sent.body);
    expect(sendBody).toMatchObject({ sender_kid: sender.kid, recipient_kid: recipient.kid });

    const inbox = await h.request('GET', `/api/agents/${recipient.handle}/fabric/inbox`, {
      token: recipient.token,
    });
    expect(inbox.status).toBe(200);
    const items = shape(InboxResponse, inbox.body).items;
    expect(items).toHaveLength(1);
    expect(JSON.stringify(inbox.body)).not.toContain(sealed.ciphertext_b64);
    expect(JSON.stringify(inbox.body)).not.toContain(sealed.wrapped_key_b64);

    const fetch = (token: string, handle: string, blob_id: string) =>
      h.request('POST', `/api/agents/${handle}/fabric/fetch`, { token, body: { blob_id } });
    // A UUID names the same envelope in either case: the upper-case form of the id fetches it.
    const fetched = await fetch(recipient.token, recipient.handle, sendBody.id.toUpperCase());
    expect(fetched.status, JSON.stringify(fetched.body)).toBe(200);
    expect(shape(FetchResponse, fetched.body)).toMatchObject({
      id: sendBody.id,
      decision: { outcome: 'allow' },
    });
    expectError(await fetch(recipient.token, recipient.handle, sendBody.id), 410, 'gone');
    // Any UUID in the 8-4-4-4-12 form is one (as the document's `format: uuid` says), whatever its
    // version and variant: an unknown one is 404, not 400.
    for (const unknown of [
      '00000000-0000-4000-8000-000000000000',
      '00000000-0000-0000-0000-000000000001',
      'ABCDEF01-2345-0789-0BCD-EF0123456789',
    ]) {
      expectError(await fetch(recipient.token, recipient.handle, unknown), 404, 'not_found');
    }
    for (const malformed of [
      'not-a-uuid',
      '00000000000000000000000000000000',
      '{00000000-0000-4000-8000-000000000000}',
    ]) {
      expectError(await fetch(recipient.token, recipient.handle, malformed), 400, 'invalid_request');
    }

    const second = await h.request('POST', `/api/agents/${sender.handle}/fabric/send`, {
      token: sender.token,
      body: { ...envelope, ttl_hours: 1 },
    });
    h.clock.advance(3_600_001);
    expectError(await fetch(recipient.token, recipient.handle, second.body.id), 410, 'gone');
  });

  it('send 404 to an address no agent enrolled; 429 quota_exceeded over a quota, both receipted', async () => {
    h.close();
    h = harness({ fabricQuotas: { recipientEnvelopes: 1 } });
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    const sender = await enrolledAgent(h, org.api_key, 'Sender');
    const recipient = await enrolledAgent(h, org.api_key, 'Recipient');
    const send = (recipient_kid: string) =>
      h.request('POST', `/api/agents/${sender.handle}/fabric/send`, {
        token: sender.token,
        body: { recipient_kid, ciphertext_b64: 'AAAA', wrapped_key_b64: 'AAAA', payload_iv_b64: 'AAAA' },
      });
    const unknown = await send('aaaaaaaaaaaaaaaa');
    expectError(unknown, 404, 'not_found');
    expect(unknown.body.receipt_id).toMatch(/^rcpt_/);
    expect((await send(recipient.kid)).status).toBe(200);
    const full = await send(recipient.kid);
    expectError(full, 429, 'quota_exceeded');
    expect(full.body).toMatchObject({
      quota: 'recipient_envelopes',
      limit: 1,
      receipt_id: expect.any(String),
    });
  });

  it.each([
    ['ttl_hours 0', { ttl_hours: 0 }],
    ['ttl_hours 721', { ttl_hours: 721 }],
    ['max_fetches 0', { max_fetches: 0 }],
    ['max_fetches 21', { max_fetches: 21 }],
    ['bad base64', { ciphertext_b64: 'not base64!' }],
    ['missing wrapped key', { wrapped_key_b64: undefined }],
  ])('send 400 for %s', async (_name, patch) => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    const sender = await enrolledAgent(h, org.api_key, 'Sender');
    const body = {
      recipient_kid: 'aaaaaaaaaaaaaaaa',
      ciphertext_b64: 'AAAA',
      wrapped_key_b64: 'AAAA',
      payload_iv_b64: 'AAAA',
      ...patch,
    };
    expectError(
      await h.request('POST', `/api/agents/${sender.handle}/fabric/send`, { token: sender.token, body }),
      400,
      'invalid_request',
    );
  });

  it('fetch 403 fabric_denied with reasons and a signed denial receipt for each failed gate condition', async () => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    const sender = await enrolledAgent(h, org.api_key, 'Sender');
    const other = await enrolledAgent(h, org.api_key, 'Other');
    const recipient = await enrolledAgent(h, org.api_key, 'Recipient');
    const send = async () => {
      const sealed = await sealEnvelope({
        plaintext: 'x',
        recipientPublicKeyHex: recipient.keys.publicKeyHex,
      });
      const r = await h.request('POST', `/api/agents/${sender.handle}/fabric/send`, {
        token: sender.token,
        body: { ...sealed, max_fetches: 5 },
      });
      return r.body.id as string;
    };
    const fetch = (blob: string, who = recipient) =>
      h.request('POST', `/api/agents/${who.handle}/fabric/fetch`, {
        token: who.token,
        body: { blob_id: blob },
      });
    const denied = async (blob: string, reason: string, who = recipient) => {
      const r = await fetch(blob, who);
      expectError(r, 403, 'fabric_denied');
      const body = shape(FabricDenied, r.body);
      expect(body.reasons).toContain(reason);
      const verdict = await h.request('POST', '/access/verify', { body: { proof_id: body.receipt_id } });
      expect(verdict.body).toMatchObject({ authentic: true, kind: 'fabric.fetch' });
    };

    const blob = await send();
    await denied(blob, 'no_grant');
    await denied(blob, 'not_addressed_to_agent', other);
    const grant = await h.request('POST', '/api/v1/fabric-grants', {
      token: org.api_key,
      body: { subject_kid: recipient.kid, allowed_sender_kids: [other.kid], ttl_days: 1 },
    });
    await denied(blob, 'sender_not_allowed');
    await h.request('PATCH', '/api/v1/fabric-grants', {
      token: org.api_key,
      body: { grant_id: grant.body.grant_id },
    });
    await denied(blob, 'grant_revoked');
    const current = await h.request('POST', '/api/v1/fabric-grants', {
      token: org.api_key,
      body: { subject_kid: recipient.kid, ttl_days: 1 },
    });
    expect(current.status).toBe(201);
    expect((await fetch(blob)).status).toBe(200);
    h.clock.advance(86_400_001);
    const later = await send();
    await denied(later, 'grant_expired');
    // A deny to an agent the envelope is not addressed to says nothing about sender or recipient.
    const stranger = await fetch(later, other);
    expect(stranger.body.receipt.payload).not.toHaveProperty('sender_kid');
    expect(stranger.body.receipt.payload).not.toHaveProperty('recipient_kid');
    // A sender revoked after sending is no longer attributable: its envelopes are refused.
    await h.request('POST', '/api/v1/fabric-grants', {
      token: org.api_key,
      body: { subject_kid: recipient.kid, ttl_days: 5 },
    });
    const fresh = await send();
    await h.request('POST', '/api/v1/governance/revoke', {
      token: org.api_key,
      body: { target: sender.handle },
    });
    await denied(fresh, 'sender_not_attributable');
  });
});

describe('POST /v1/documents/compute', () => {
  const sections = [
    {
      title: 'Launch plan',
      text: 'The launch is planned for March in Lisbon. Marketing starts in February.',
    },
    { title: 'Roadmap', text: 'Internal roadmap: the launch budget grows in April.' },
    { title: 'Payroll', text: 'Confidential: the launch lead salary is 190k.' },
    { title: 'Keys', text: 'The launch password is hunter2.', classification: 'secret' },
  ];

  it.each([
    ['secret', 'allow', 0],
    ['internal', 'degrade', 2],
  ])('clearance %s: %s', async (clearance, decision, withheld) => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    const r = await h.request('POST', '/v1/documents/compute', {
      token: org.api_key,
      body: { question: 'When is the launch planned?', clearance, sections },
    });
    expect(r.status).toBe(200);
    const body = shape(DocumentsResponse, r.body);
    expect(body).toMatchObject({ decision, withheld_count: withheld });
    expect(body.answer).toContain('The launch is planned for March in Lisbon.');
    expect(body.proof.id).toBe(body.proof_id);
    expect(body.sections.map((s) => s.classification)).toEqual([
      'public',
      'internal',
      'confidential',
      'secret',
    ]);
    if (withheld) {
      expect(body.answer).not.toContain('190k');
      expect(body.answer).not.toContain('hunter2');
    }
  });

  it('deny when every section is above the clearance; the answer is empty', async () => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    const r = await h.request('POST', '/v1/documents/compute', {
      token: org.api_key,
      body: { question: 'launch?', clearance: 'public', sections: sections.slice(2) },
    });
    expect(r.body).toMatchObject({ decision: 'deny', answer: '', withheld_count: 2 });
  });

  it('400 for an unknown clearance or no sections', async () => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    for (const body of [
      { question: 'q', clearance: 'top', sections },
      { question: 'q', clearance: 'public', sections: [] },
      { question: 'q', clearance: 'public', sections: [{ title: 't', text: 'x', classification: 'ultra' }] },
    ]) {
      expectError(
        await h.request('POST', '/v1/documents/compute', { token: org.api_key, body }),
        400,
        'invalid_request',
      );
    }
  });
});

describe('POST /access/verify and the published keys', () => {
  it('unknown proofs are never true; no credential needed; keys are published', async () => {
    const r = await h.request('POST', '/access/verify', { body: { proof_id: 'rcpt_unknown' } });
    expect(r.status).toBe(200);
    expect(shape(VerifyResponse, r.body)).toMatchObject({
      authentic: false,
      unaltered: false,
      signer: null,
      found: false,
    });
    expectError(await h.request('POST', '/access/verify', { body: {} }), 400, 'invalid_request');
    const keys = await h.request('GET', '/.well-known/svc-keys.json');
    expect(shape(PublishedKeys, keys.body).keys[0]!.public_key_hex).toBe(h.service.ctx.signer.publicKeyHex);
    expectError(await h.request('GET', '/access/proofs/rcpt_unknown'), 404, 'not_found');
  });
});

describe('capsules', () => {
  it('create 201, list, read one, documents, members, ai-grants, revoke; writes after revoke are 409', async () => {
    const org = await orgWithAgent(h);
    const token = org.api_key;
    const created = await h.request('POST', '/v1/capsules', { token, body: { name: 'Board pack' } });
    expect(created.status).toBe(201);
    const capsule = shape(CapsuleSummary, created.body);
    const doc = await h.request('POST', `/v1/capsules/${capsule.id}/documents`, {
      token,
      body: { title: 'Minutes', text: 'Secret minutes text' },
    });
    expect(doc.status).toBe(201);
    shape(CapsuleDocument, doc.body);
    const member = await h.request('POST', `/v1/capsules/${capsule.id}/members`, {
      token,
      body: { email: 'Ana@Example.test', role: 'viewer' },
    });
    expect(member.status).toBe(201);
    expect(shape(CapsuleMember, member.body).email).toBe('ana@example.test');
    expectError(
      await h.request('POST', `/v1/capsules/${capsule.id}/members`, {
        token,
        body: { email: 'ana@example.test', role: 'viewer' },
      }),
      409,
      'conflict',
    );
    const aiGrant = await h.request('POST', `/v1/capsules/${capsule.id}/ai-grants`, {
      token,
      body: { agent: org.agent.handle, documents: [doc.body.id] },
    });
    expect(aiGrant.status).toBe(201);
    shape(CapsuleAiGrant, aiGrant.body);
    expectError(
      await h.request('POST', `/v1/capsules/${capsule.id}/ai-grants`, { token, body: { agent: 'nobody' } }),
      404,
      'unknown_agent',
    );
    expectError(
      await h.request('POST', `/v1/capsules/${capsule.id}/ai-grants`, {
        token,
        body: { agent: org.agent.handle, documents: ['doc_x'] },
      }),
      400,
      'invalid_request',
    );
    const list = await h.request('GET', '/v1/capsules', { token });
    expect(shape(CapsuleList, list.body).count).toBe(1);
    const one = await h.request('GET', `/v1/capsules/${capsule.id}`, { token });
    const detail = shape(CapsuleDetail, one.body);
    expect(detail).toMatchObject({ document_count: 1, member_count: 1, ai_grant_count: 1 });
    expect(JSON.stringify(detail)).not.toContain('Secret minutes text');
    const revoked = await h.request('POST', `/v1/capsules/${capsule.id}/revoke`, { token });
    expect(shape(CapsuleRevoked, revoked.body)).toMatchObject({
      status: 'revoked',
      already_revoked: false,
    });
    expectError(
      await h.request('POST', `/v1/capsules/${capsule.id}/documents`, {
        token,
        body: { title: 't', text: 'x' },
      }),
      409,
      'capsule_revoked',
    );
    expectError(await h.request('GET', '/v1/capsules/cap_nope', { token }), 404, 'not_found');
    expectError(
      await h.request('POST', '/v1/capsules', { token, body: { name: '' } }),
      400,
      'invalid_request',
    );
    expectError(
      await h.request('POST', `/v1/capsules/${capsule.id}/members`, {
        token,
        body: { email: 'x', role: 'god' },
      }),
      400,
      'invalid_request',
    );
  });

  it('capsule actions are not billed', async () => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    await h.request('POST', '/v1/capsules', { token: org.api_key, body: { name: 'c' } });
    const invoice = await h.request('GET', '/v1/usage/invoice', { token: org.api_key });
    expect(invoice.body).toMatchObject({ decisions: 0, unmetered_actions: 1 });
  });
});

describe('recovery', () => {
  it('pubkey 201, copy 201 (409 before a key), event 201, state 200', async () => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    const token = org.api_key;
    expectError(
      await h.request('POST', '/v1/recovery/copy', { token, body: { ciphertext_b64: 'AAAA' } }),
      409,
      'conflict',
    );
    const key = await h.request('POST', '/v1/recovery/pubkey', {
      token,
      body: { pubkey_hex: 'ab'.repeat(32) },
    });
    expect(key.status).toBe(201);
    shape(RecoveryPubkeyResponse, key.body);
    const copy = await h.request('POST', '/v1/recovery/copy', {
      token,
      body: { ciphertext_b64: 'c2VhbGVk', label: 'laptop' },
    });
    expect(copy.status).toBe(201);
    shape(RecoveryCopy, copy.body);
    const event = await h.request('POST', '/v1/recovery/event', { token, body: { kind: 'phrase_verified' } });
    expect(event.status).toBe(201);
    shape(RecoveryEvent, event.body);
    const state = await h.request('GET', '/v1/recovery/state', { token });
    const body = shape(RecoveryState, state.body);
    expect(body).toMatchObject({ configured: true, copy_count: 1 });
    expect(body.latest_copy?.ciphertext_b64).toBe('c2VhbGVk');
    expect(body.events.map((e) => e.kind)).toEqual(['phrase_verified', 'copy_stored', 'key_set']);
    expectError(
      await h.request('POST', '/v1/recovery/pubkey', { token, body: { pubkey_hex: 'xyz' } }),
      400,
      'invalid_request',
    );
    expectError(
      await h.request('POST', '/v1/recovery/event', { token, body: { kind: 'party' } }),
      400,
      'invalid_request',
    );
  });
});

describe('overview and usage invoice', () => {
  it('counts governed decisions (compute and documents compute) and nothing else', async () => {
    const org = await orgWithAgent(h);
    await h.request('POST', '/api/access/compute', { token: org.agent.grant_token, body: {} });
    await h.request('POST', '/api/access/compute?receipt=true', { token: org.agent.grant_token, body: {} });
    await h.request('POST', '/v1/documents/compute', {
      token: org.api_key,
      body: { question: 'q', clearance: 'public', sections: [{ title: 't', text: 'x' }] },
    });
    await h.request('POST', `/api/agents/${org.agent.handle}/read`, {
      token: org.agent.grant_token,
      body: { table: 'agent_demo_records', columns: ['id'] },
    });
    await h.request('POST', '/api/v1/governance/revoke', {
      token: org.api_key,
      body: { target: org.agent.handle },
    });
    const invoice = await h.request('GET', '/v1/usage/invoice', { token: org.api_key });
    expect(invoice.status).toBe(200);
    expect(shape(InvoiceSchema, invoice.body)).toMatchObject({
      decisions: 3,
      free_allowance: 10_000,
      billable_decisions: 0,
      period: h.clock().toISOString().slice(0, 7),
    });
    const overview = await h.request('GET', '/v1/overview', { token: org.api_key });
    expect(shape(OverviewSchema, overview.body)).toMatchObject({
      decisions: 3,
      agents: { total: 1, active: 0 },
      tables: 1,
    });
    expectError(
      await h.request('GET', '/v1/usage/invoice?period=2026-13', { token: org.api_key }),
      400,
      'invalid_request',
    );
    const past = await h.request('GET', '/v1/usage/invoice?period=2020-01', { token: org.api_key });
    expect(past.body).toMatchObject({ decisions: 0, period: '2020-01' });
  });
});

describe('tables extension', () => {
  it('register 201 (409 twice), load JSON and CSV, list; rows read back through a grant', async () => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    const token = org.api_key;
    const table = {
      name: 'customers',
      columns: [
        { name: 'id', classification: 'public', storage: 'plaintext' },
        { name: 'tier', classification: 'public', storage: 'plaintext' },
        { name: 'ssn', classification: 'pii', storage: 'encrypted' },
      ],
    };
    expect((await h.request('POST', '/api/v1/tables', { token, body: table })).status).toBe(201);
    expectError(await h.request('POST', '/api/v1/tables', { token, body: table }), 409, 'table_exists');
    const json = await h.request('POST', '/api/v1/tables/customers/rows', {
      token,
      body: { format: 'json', rows: [{ id: 1, tier: 'gold', ssn: '111-22-3333' }] },
    });
    expect(json.body).toMatchObject({ loaded: 1, total_rows: 1 });
    const csv = await h.request('POST', '/api/v1/tables/customers/rows', {
      token,
      body: { format: 'csv', csv: 'id,tier,ssn\n2,"silver, plus",222-33-4444\n' },
    });
    expect(csv.body).toMatchObject({ loaded: 1, total_rows: 2 });
    expectError(
      await h.request('POST', '/api/v1/tables/customers/rows', {
        token,
        body: { format: 'json', rows: [{ nope: 1 }] },
      }),
      400,
      'invalid_request',
    );
    expectError(
      await h.request('POST', '/api/v1/tables/ghosts/rows', {
        token,
        body: { format: 'json', rows: [{ id: 1 }] },
      }),
      404,
      'unknown_table',
    );
    const list = await h.request('GET', '/api/v1/tables', { token });
    expect(list.body.tables.map((t: { name: string }) => t.name)).toEqual([
      'agent_demo_records',
      'customers',
    ]);
    const grant = await h.request('POST', '/api/v1/governance/grant', {
      token,
      body: { agent: 'c', table: 'customers', columns: ['id', 'tier', 'ssn'] },
    });
    const read = await h.request('POST', `/api/agents/${grant.body.handle}/read`, {
      token: grant.body.grant_token,
      body: { table: 'customers', columns: ['tier', 'ssn'] },
    });
    expect(read.body.rows).toEqual([
      { tier: 'gold', ssn: '111-22-3333' },
      { tier: 'silver, plus', ssn: '222-33-4444' },
    ]);
  });
});

describe('transport-level errors', () => {
  it('404 for unknown routes, 400 for invalid JSON, 413 over the body limit, 415 for non-JSON, 403 for a foreign Host or Origin', async () => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    expectError(await h.request('GET', '/api/v1/nothing-here'), 404, 'not_found');
    expectError(
      await h.request('POST', '/api/v1/governance/grant', { token: org.api_key, body: '{"agent":' }),
      400,
      'invalid_json',
    );
    expectError(
      await h.request('POST', '/api/v1/governance/grant', {
        token: org.api_key,
        body: { agent: 'a'.repeat(2 * 1024 * 1024), columns: ['id'] },
      }),
      413,
      'payload_too_large',
    );
    expectError(
      await h.request('POST', '/api/v1/governance/grant', {
        token: org.api_key,
        body: 'agent=a',
        headers: { 'content-type': 'text/plain' },
      }),
      415,
      'unsupported_media_type',
    );
    expectError(
      await h.request('GET', '/api/v1/agents', {
        token: org.api_key,
        headers: { host: 'evil.example:8787' },
      }),
      403,
      'forbidden_host',
    );
    expectError(
      await h.request('GET', '/api/v1/agents', {
        token: org.api_key,
        headers: { origin: 'https://evil.example' },
      }),
      403,
      'forbidden_host',
    );
    // A browser page is let in only from the origin the request was sent to: scheme, name and port.
    for (const origin of [
      'http://localhost:9999',
      'http://localhost',
      'https://localhost:8787',
      'http://127.0.0.1:8787',
    ]) {
      expectError(
        await h.request('GET', '/api/v1/agents', {
          token: org.api_key,
          headers: { host: 'localhost:8787', origin },
        }),
        403,
        'forbidden_host',
      );
    }
    expect(
      (
        await h.request('GET', '/api/v1/agents', {
          token: org.api_key,
          headers: { host: 'localhost:8787', origin: 'http://localhost:8787' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await h.request('GET', '/api/v1/agents', {
          token: org.api_key,
          headers: { origin: 'http://127.0.0.1' },
        })
      ).status,
    ).toBe(200);
  });

  it('one check decides what is JSON: any application/…+json, with parameters spaced either way, passes; other types are 415', async () => {
    const org = await orgWithAgent(h);
    const read = (contentType: string) =>
      h.request('POST', `/api/agents/${org.agent.handle}/read`, {
        token: org.agent.grant_token,
        body: { table: 'agent_demo_records', columns: ['id'], limit: 1 },
        headers: { 'content-type': contentType },
      });
    for (const json of [
      'application/json',
      'Application/JSON',
      'application/json; charset=utf-8',
      'application/json ; charset=utf-8',
      'application/json;charset=utf-8',
      'application/vnd.svc.v1+json',
      'application/vnd.api+json',
      'application/problem+json ; charset=utf-8',
      ' application/json ',
    ]) {
      const r = await read(json);
      expect(r.status, `${json}: ${JSON.stringify(r.body)}`).toBe(200);
    }
    for (const other of [
      'text/plain',
      'text/json',
      'application/jsonx',
      'application/x-www-form-urlencoded',
      'application/+json',
    ]) {
      const r = await read(other);
      expect(r.status, other).toBe(415);
      expect(r.body.error).toBe('unsupported_media_type');
    }
  });

  it('a query parameter given twice is refused by name; a bad value says what the parameter takes', async () => {
    const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
    const twice = await h.request('GET', '/api/v1/proofs?limit=1&limit=2', { token: org.api_key });
    expectError(twice, 400, 'invalid_request');
    expect(twice.body.message).toBe(
      'invalid request: query parameter `limit` is given 2 times: give it once',
    );
    const word = await h.request('GET', '/api/v1/proofs?limit=ten', { token: org.api_key });
    expectError(word, 400, 'invalid_request');
    expect(word.body.message).toMatch(/`limit` must be an integer from 1 to 200/);
    expect(word.body.message).not.toMatch(/NaN/);
    // A parameter the route does not take is not looked at, however often it comes.
    expect((await h.request('GET', '/api/v1/proofs?x=1&x=2', { token: org.api_key })).status).toBe(200);
  });

  it('an extra host name behind a TLS proxy is accepted over https from its own origin, not from another port', async () => {
    const app = createApp({ service: h.service, allowedHosts: ['svc.example.test'] });
    const get = (origin: string) =>
      app.request('http://svc.example.test/openapi.json', {
        headers: { host: 'svc.example.test', origin },
      });
    expect((await get('https://svc.example.test')).status).toBe(200);
    expect((await get('http://svc.example.test')).status).toBe(200);
    expect((await get('https://svc.example.test:8443')).status).toBe(403);
  });
});
