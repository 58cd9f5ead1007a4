// The auth matrix, derived from the routes: every authenticated endpoint against every kind of
// wrong credential.
// A bearer that proves nothing is 401; a valid credential of the wrong kind, organization or
// agent is 403; never a 2xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrollKey, harness, type Harness } from '../helpers.ts';
import { ROUTES, UNROUTED, requestOf, type Route } from '../../src/backend/routes.ts';
import { OPERATIONS, ops } from '../../src/backend/operations/index.ts';
import { takesCredential } from '../../src/backend/operation.ts';
import { SAMPLES, type Ids } from '../operation-samples.ts';
import { generateFabricKeyPair } from '../../src/sdk/fabric.ts';

/** Every route whose operation takes a credential: the matrix's rows. */
const CREDENTIALED = ROUTES.filter((r) => takesCredential(r.operation.caller));

it('every routed operation that takes a credential is in the matrix, and only those', () => {
  expect(CREDENTIALED.filter((r) => !SAMPLES[r.operation.name]).map((r) => r.operation.name)).toEqual([]);
});

it('every operation is routed, served by a page, or runs in process only', () => {
  for (const op of OPERATIONS) {
    const routed = ROUTES.some((r) => r.operation === op);
    const where = routed
      ? 'routed'
      : UNROUTED.has(op.name)
        ? 'page'
        : op.caller.kind === 'local'
          ? 'local'
          : 'none';
    expect([op.name, where]).not.toEqual([op.name, 'none']);
    // An in-process owner operation never gets a route: it takes no credential.
    if (op.caller.kind === 'local') expect(routed, op.name).toBe(false);
  }
});

let h: Harness;
let ids: Ids;
const creds: Record<string, string> = {};

beforeAll(async () => {
  h = harness();
  const mine = await h.service.invoke(ops.createOrg, undefined, { name: 'Mine' });
  const theirs = await h.service.invoke(ops.createOrg, undefined, { name: 'Theirs' });
  creds.orgKey = mine.api_key;
  creds.otherOrgKey = theirs.api_key;
  const revokedKey = await h.service.invoke(ops.createApiKey, undefined, {
    org_id: mine.org_id,
    scopes: ['*'],
  });
  await h.service.invoke(ops.revokeApiKey, undefined, { key_id: revokedKey.key_id });
  creds.revokedOrgKey = revokedKey.api_key;

  const grant = async (key: string, agent: string, ttl = 86_400, extra: Record<string, unknown> = {}) => {
    const r = await h.request('POST', '/api/v1/governance/grant', {
      token: key,
      body: { agent, columns: ['id'], ttl_seconds: ttl, ...extra },
    });
    return r.body as { grant_token: string; handle: string; jti: string; receipt_id: string };
  };
  // A source nothing listens on: the owner agent's svc_use reaches it and answers 410, not 401/403.
  await h.request('POST', '/api/v1/sources', {
    token: mine.api_key,
    body: {
      name: 'crm',
      base_url: 'http://127.0.0.1:9/',
      scheme: 'bearer',
      credential: 'secret-value',
      allow_private_network: true,
    },
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
  await enrollKey(h.service, `Bearer ${sibling.grant_token}`, sibling.handle, keys);
  const capsule = await h.request('POST', '/v1/capsules', { token: mine.api_key, body: { name: 'mine' } });
  const fabricGrant = await h.request('POST', '/api/v1/fabric-grants', {
    token: mine.api_key,
    body: { subject_kid: 'dddddddddddddddd' },
  });
  const disposable = await grant(mine.api_key, 'Disposable Agent');
  const rule = await h.request('POST', '/api/v1/rules', {
    token: mine.api_key,
    body: { rules: [{ effect: 'ask', paths: ['*.pem'] }] },
  });
  ids = {
    handle: agent.handle,
    disposable: disposable.handle,
    capsule: capsule.body.id,
    fabricGrant: fabricGrant.body.grant_id,
    blob: '00000000-0000-4000-8000-000000000001',
    proof: disposable.receipt_id,
    rule: rule.body.rules[0].rule_id,
  };
  // Every later request runs after the short token's expiry; the others have a day left.
  h.clock.advance(61_000);
});
afterAll(() => h.close());

function call(route: Route, token: string | undefined, raw?: string) {
  const headers: Record<string, string> = raw === undefined ? {} : { authorization: raw };
  const { params, query, body } = requestOf(route, SAMPLES[route.operation.name]!.input(ids));
  const path = route.path.replace(/\{(\w+)\}/g, (_, key: string) => encodeURIComponent(String(params[key])));
  const search = new URLSearchParams(query as Record<string, string>);
  return h.request(route.method.toUpperCase(), `${path}${search.size ? `?${search}` : ''}`, {
    token,
    headers,
    body,
  });
}

describe.each(CREDENTIALED.map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))(
  '%s',
  (_label, route) => {
    const kind = route.operation.caller.kind;
    // An agent's resource is named by the handle in the path; a route without one serves the token's own.
    const owned =
      SAMPLES[route.operation.name]?.owned && (kind !== 'agent' || route.path.includes('{handle}'));
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
    if (kind !== 'any') {
      cases.push([
        'the other credential kind',
        () => (kind === 'org' ? creds.agentToken : creds.orgKey),
        undefined,
        403,
      ]);
    }
    if (owned && kind === 'org') {
      const hidden = SAMPLES[route.operation.name]?.owned === 'hidden';
      cases.push(['another organization’s key', () => creds.otherOrgKey, undefined, hidden ? 404 : 403]);
    }
    if (owned && kind === 'agent') {
      cases.push(['another agent’s token for this handle', () => creds.siblingToken, undefined, 403]);
      cases.push(['another organization’s agent token', () => creds.foreignAgentToken, undefined, 403]);
    }

    it.each(cases)('%s', async (_case, token, raw, status) => {
      const r = await call(route, token(), raw);
      expect(r.status, JSON.stringify(r.body)).toBe(status);
      expect(r.body.error).toEqual(
        status === 401
          ? 'unauthorized'
          : status === 404
            ? expect.stringMatching(/^(not_found|unknown_agent)$/)
            : expect.stringMatching(/^(wrong_credential|forbidden)$/),
      );
      expect(r.body.message).toEqual(expect.any(String));
    });

    it('the right credential is not refused', async () => {
      const r = await call(route, kind === 'agent' ? creds.agentToken : creds.orgKey);
      // Not refused, and not broken: any answer here is the endpoint's own (2xx, or a 4xx about the input).
      expect([401, 403]).not.toContain(r.status);
      expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
    });
  },
);
