// The auth matrix: every authenticated endpoint against every kind of wrong credential.
// A bearer that proves nothing is 401; a valid credential of the wrong kind, organization or
// agent is 403; never a 2xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers.ts';
import { generateFabricKeyPair } from '../../src/sdk/fabric.ts';

type Kind = 'org' | 'agent' | 'any';
interface Endpoint {
  method: string;
  path: (ids: Ids) => string;
  kind: Kind;
  body?: (ids: Ids) => unknown;
  /** The endpoint names a resource owned by one organization (or one agent). */
  owned?: boolean;
}
interface Ids {
  handle: string;
  /** An agent the revoke endpoint may end without spoiling the other cases. */
  disposable: string;
  capsule: string;
  fabricGrant: string;
  blob: string;
}

const ENDPOINTS: Endpoint[] = [
  {
    method: 'POST',
    path: () => '/api/v1/governance/grant',
    kind: 'org',
    body: () => ({ agent: 'x', columns: ['id'] }),
  },
  { method: 'GET', path: () => '/api/v1/agents', kind: 'org' },
  {
    method: 'POST',
    path: () => '/api/v1/governance/revoke',
    kind: 'org',
    body: (i) => ({ target: i.disposable }),
    owned: true,
  },
  { method: 'GET', path: () => '/api/v1/tables', kind: 'org' },
  {
    method: 'POST',
    path: () => '/api/v1/tables',
    kind: 'org',
    body: () => ({ name: 't', columns: [{ name: 'id', classification: 'public', storage: 'plaintext' }] }),
  },
  {
    method: 'POST',
    path: () => '/api/v1/tables/agent_demo_records/rows',
    kind: 'org',
    body: () => ({ format: 'json', rows: [{ id: 999 }] }),
  },
  { method: 'GET', path: () => '/api/v1/fabric-grants', kind: 'org' },
  {
    method: 'POST',
    path: () => '/api/v1/fabric-grants',
    kind: 'org',
    body: () => ({ subject_kid: 'cccccccccccccccc' }),
  },
  {
    method: 'PATCH',
    path: () => '/api/v1/fabric-grants',
    kind: 'org',
    body: (i) => ({ grant_id: i.fabricGrant }),
    owned: true,
  },
  {
    method: 'POST',
    path: () => '/v1/documents/compute',
    kind: 'org',
    body: () => ({ question: 'q', clearance: 'public', sections: [{ title: 't', text: 'x' }] }),
  },
  { method: 'POST', path: () => '/v1/capsules', kind: 'org', body: () => ({ name: 'c' }) },
  { method: 'GET', path: () => '/v1/capsules', kind: 'org' },
  { method: 'GET', path: (i) => `/v1/capsules/${i.capsule}`, kind: 'org', owned: true },
  {
    method: 'POST',
    path: (i) => `/v1/capsules/${i.capsule}/documents`,
    kind: 'org',
    body: () => ({ title: 't', text: 'x' }),
    owned: true,
  },
  {
    method: 'POST',
    path: (i) => `/v1/capsules/${i.capsule}/members`,
    kind: 'org',
    body: () => ({ email: 'a@b.test', role: 'viewer' }),
    owned: true,
  },
  {
    method: 'POST',
    path: (i) => `/v1/capsules/${i.capsule}/ai-grants`,
    kind: 'org',
    body: (i) => ({ agent: i.handle }),
    owned: true,
  },
  { method: 'POST', path: (i) => `/v1/capsules/${i.capsule}/revoke`, kind: 'org', owned: true },
  {
    method: 'POST',
    path: () => '/v1/recovery/pubkey',
    kind: 'org',
    body: () => ({ pubkey_hex: 'ab'.repeat(32) }),
  },
  { method: 'POST', path: () => '/v1/recovery/copy', kind: 'org', body: () => ({ ciphertext_b64: 'AAAA' }) },
  { method: 'POST', path: () => '/v1/recovery/event', kind: 'org', body: () => ({ kind: 'phrase_created' }) },
  { method: 'GET', path: () => '/v1/recovery/state', kind: 'org' },
  { method: 'GET', path: () => '/v1/overview', kind: 'org' },
  { method: 'GET', path: () => '/v1/usage/invoice', kind: 'org' },
  { method: 'GET', path: () => '/api/v1/whoami', kind: 'any' },
  {
    method: 'POST',
    path: () => '/api/v1/sources',
    kind: 'org',
    body: () => ({ name: 'api', base_url: 'http://127.0.0.1:9/', scheme: 'bearer', credential: 'x' }),
  },
  { method: 'GET', path: () => '/api/v1/sources', kind: 'org' },
  {
    method: 'POST',
    path: () => '/api/v1/sources/none/call',
    kind: 'org',
    body: () => ({ method: 'GET', path: 'x' }),
  },
  { method: 'GET', path: () => '/api/v1/policy', kind: 'org' },
  { method: 'GET', path: () => '/api/v1/proofs', kind: 'org' },
  {
    method: 'POST',
    path: () => '/api/v1/nodes',
    kind: 'org',
    body: () => ({ machine_id: 'a'.repeat(32), hostname: 'h', platform: 'linux', arch: 'x64' }),
  },
  {
    method: 'POST',
    path: () => '/api/v1/terms',
    kind: 'org',
    body: () => ({ version: '2026-11-01', text: 'terms' }),
  },
  { method: 'GET', path: () => '/api/v1/terms/2026-11-01', kind: 'org' },
  { method: 'POST', path: () => '/api/access/retrieve', kind: 'agent', body: () => ({ columns: ['id'] }) },
  {
    method: 'POST',
    path: () => '/api/access/use',
    kind: 'agent',
    body: () => ({ source: 'crm', method: 'GET', path: 'x' }),
  },
  { method: 'POST', path: () => '/api/access/compute', kind: 'agent', body: () => ({ columns: ['id'] }) },
  {
    method: 'POST',
    path: (i) => `/api/agents/${i.handle}/read`,
    kind: 'agent',
    body: () => ({ table: 'agent_demo_records', columns: ['id'] }),
    owned: true,
  },
  {
    method: 'POST',
    path: (i) => `/api/agents/${i.handle}/fabric/enroll`,
    kind: 'agent',
    body: () => ({ ecdh_pubkey_hex: 'ab'.repeat(32) }),
    owned: true,
  },
  {
    method: 'POST',
    path: (i) => `/api/agents/${i.handle}/fabric/send`,
    kind: 'agent',
    body: () => ({
      recipient_kid: 'cccccccccccccccc',
      ciphertext_b64: 'AAAA',
      wrapped_key_b64: 'AAAA',
      payload_iv_b64: 'AAAA',
    }),
    owned: true,
  },
  { method: 'GET', path: (i) => `/api/agents/${i.handle}/fabric/inbox`, kind: 'agent', owned: true },
  {
    method: 'POST',
    path: (i) => `/api/agents/${i.handle}/fabric/fetch`,
    kind: 'agent',
    body: (i) => ({ blob_id: i.blob }),
    owned: true,
  },
];

let h: Harness;
let ids: Ids;
const creds: Record<string, string> = {};

beforeAll(async () => {
  h = harness();
  const mine = h.service.createOrg('Mine');
  const theirs = h.service.createOrg('Theirs');
  creds.orgKey = mine.api_key;
  creds.otherOrgKey = theirs.api_key;
  const revokedKey = h.service.createApiKey(mine.org_id, ['*']);
  h.service.revokeApiKey(revokedKey.key_id);
  creds.revokedOrgKey = revokedKey.api_key;

  const grant = async (key: string, agent: string, ttl = 86_400, extra: Record<string, unknown> = {}) => {
    const r = await h.request('POST', '/api/v1/governance/grant', {
      token: key,
      body: { agent, columns: ['id'], ttl_seconds: ttl, ...extra },
    });
    return r.body as { grant_token: string; handle: string; jti: string };
  };
  // A source nothing listens on: the owner agent's svc_use reaches it and answers 410, not 401/403.
  await h.request('POST', '/api/v1/sources', {
    token: mine.api_key,
    body: { name: 'crm', base_url: 'http://127.0.0.1:9/', scheme: 'bearer', credential: 'secret' },
  });
  const agent = await grant(mine.api_key, 'Owner Agent', 86_400, {
    capabilities: [{ source: 'crm', methods: ['GET'] }],
  });
  creds.agentToken = agent.grant_token;
  const sibling = await grant(mine.api_key, 'Sibling Agent');
  creds.siblingToken = sibling.grant_token;
  creds.foreignAgentToken = (await grant(theirs.api_key, 'Foreign Agent')).grant_token;
  const revoked = await grant(mine.api_key, 'Revoked Agent');
  await h.request('POST', '/api/v1/governance/revoke', {
    token: mine.api_key,
    body: { target: revoked.jti },
  });
  creds.revokedToken = revoked.grant_token;
  creds.expiredToken = (await grant(mine.api_key, 'Short Agent', 60)).grant_token;

  const keys = await generateFabricKeyPair();
  await h.request('POST', `/api/agents/${sibling.handle}/fabric/enroll`, {
    token: sibling.grant_token,
    body: { ecdh_pubkey_hex: keys.publicKeyHex },
  });
  const capsule = await h.request('POST', '/v1/capsules', { token: mine.api_key, body: { name: 'mine' } });
  const fabricGrant = await h.request('POST', '/api/v1/fabric-grants', {
    token: mine.api_key,
    body: { subject_kid: 'dddddddddddddddd' },
  });
  const disposable = await grant(mine.api_key, 'Disposable Agent');
  ids = {
    handle: agent.handle,
    disposable: disposable.handle,
    capsule: capsule.body.id,
    fabricGrant: fabricGrant.body.grant_id,
    blob: '00000000-0000-4000-8000-000000000001',
  };
  // Every later request runs after the short token's expiry; the others have a day left.
  h.clock.advance(61_000);
});
afterAll(() => h.close());

function call(endpoint: Endpoint, token: string | undefined, raw?: string) {
  const headers: Record<string, string> = raw === undefined ? {} : { authorization: raw };
  return h.request(endpoint.method, endpoint.path(ids), { token, headers, body: endpoint.body?.(ids) });
}

const name = (e: Endpoint) =>
  `${e.method} ${e.path({ handle: '{handle}', disposable: '', capsule: '{id}', fabricGrant: '', blob: '' })}`;

describe.each(ENDPOINTS.map((e) => [name(e), e] as const))('%s', (_label, endpoint) => {
  const cases: [string, () => string | undefined, string | undefined, number][] = [
    ['no bearer', () => undefined, undefined, 401],
    ['a malformed bearer', () => undefined, 'Bearer not-a-credential', 401],
    ['a non-bearer scheme', () => undefined, `Basic ${creds.orgKey}`, 401],
    ['an unknown key of the right shape', () => `ndp_${'A'.repeat(43)}`, undefined, 401],
    ['an unknown token of the right shape', () => `ndca-${'A'.repeat(43)}`, undefined, 401],
    ['a revoked organization key', () => creds.revokedOrgKey, undefined, 401],
    ['a revoked agent token', () => creds.revokedToken, undefined, 401],
    ['an expired agent token', () => creds.expiredToken, undefined, 401],
  ];
  if (endpoint.kind !== 'any') {
    cases.push([
      'the other credential kind',
      () => (endpoint.kind === 'org' ? creds.agentToken : creds.orgKey),
      undefined,
      403,
    ]);
  }
  if (endpoint.owned && endpoint.kind === 'org')
    cases.push(['another organization’s key', () => creds.otherOrgKey, undefined, 403]);
  if (endpoint.owned && endpoint.kind === 'agent') {
    cases.push(['another agent’s token for this handle', () => creds.siblingToken, undefined, 403]);
    cases.push(['another organization’s agent token', () => creds.foreignAgentToken, undefined, 403]);
  }

  it.each(cases)('%s', async (_case, token, raw, status) => {
    const r = await call(endpoint, token(), raw);
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(r.body.error).toEqual(
      status === 401 ? 'unauthorized' : expect.stringMatching(/^(wrong_credential|forbidden)$/),
    );
    expect(r.body.message).toEqual(expect.any(String));
  });

  it('the right credential is not refused', async () => {
    const r = await call(endpoint, endpoint.kind === 'agent' ? creds.agentToken : creds.orgKey);
    // Not refused, and not broken: any answer here is the endpoint's own (2xx, or a 4xx about the input).
    expect([401, 403]).not.toContain(r.status);
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
  });
});
