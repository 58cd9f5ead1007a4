// Organizations and the two credential kinds: organization API keys (ndp_) and agent grant
// tokens (ndca-). Secrets are shown once and stored only as SHA-256 hashes.
import { randomBytes } from 'node:crypto';
import { ServiceError } from './errors.ts';
import { hasPassed, newId, nowIso, parseJson, type Context } from './context.ts';
import { sha256Hex } from './signer.ts';
import { AGENT_TOKEN_PREFIX, API_KEY_PREFIX, CREDENTIAL_FORM, credentialKind } from './credential-form.ts';

export { AGENT_TOKEN_PREFIX, API_KEY_PREFIX } from './credential-form.ts';
export const SCOPES = ['*', 'governance', 'fabric', 'share', 'usage'] as const;
export type Scope = (typeof SCOPES)[number];

export interface OrgKeyPrincipal {
  kind: 'org_key';
  keyId: string;
  orgId: string | null;
  scopes: Scope[];
}

export interface GrantScope {
  table: string;
  columns: string[];
  classifications: string[] | null;
  where: Record<string, WhereValue>;
  expiresAt: string;
  /** Registered sources the agent may call through the service (svc_use), never seeing the secret. */
  capabilities: Capability[];
}

export interface Capability {
  source: string;
  methods: string[];
  /** Calls must target a path under this prefix of the source's base URL ('' for any). */
  path_prefix: string;
}

export type WhereValue = string | number | boolean | null;

export interface AgentPrincipal {
  kind: 'agent';
  agentId: string;
  orgId: string;
  handle: string;
  status: string;
  jti: string;
  grant: GrantScope;
}

export type Principal = OrgKeyPrincipal | AgentPrincipal;

/** An organization key bound to an organization that holds `scope` (or `*`). */
export interface OrgCaller extends OrgKeyPrincipal {
  orgId: string;
}

function newSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

export async function createOrg(
  ctx: Context,
  name: string,
): Promise<{ org_id: string; api_key: string; key_id: string }> {
  const orgId = newId('org');
  return ctx.store.write(async () => {
    await ctx.store.run('INSERT INTO orgs (id, name, created_at) VALUES (?, ?, ?)', orgId, name, nowIso(ctx));
    const { api_key, key_id } = await createApiKey(ctx, { orgId, scopes: ['*'] });
    return { org_id: orgId, api_key, key_id };
  });
}

export async function createApiKey(
  ctx: Context,
  input: { orgId: string | null; scopes: Scope[] },
): Promise<{ api_key: string; key_id: string }> {
  if (input.orgId && !(await ctx.store.get('SELECT 1 AS x FROM orgs WHERE id = ?', input.orgId))) {
    throw new ServiceError('not_found', `no organization ${input.orgId}: create one with \`svc org create\``);
  }
  const apiKey = newSecret(API_KEY_PREFIX);
  const keyId = newId('key');
  await ctx.store.run(
    'INSERT INTO api_keys (id, key_hash, org_id, scopes, created_at) VALUES (?, ?, ?, ?, ?)',
    keyId,
    sha256Hex(apiKey),
    input.orgId,
    JSON.stringify([...new Set(input.scopes)]),
    nowIso(ctx),
  );
  return { api_key: apiKey, key_id: keyId };
}

/** Ends an organization key at once; later requests with it are 401. */
export async function revokeApiKey(
  ctx: Context,
  keyId: string,
): Promise<{ key_id: string; revoked_at: string }> {
  const revokedAt = nowIso(ctx);
  const changed = await ctx.store.run(
    'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
    revokedAt,
    keyId,
  );
  if (changed.changes === 0) {
    const exists = await ctx.store.get('SELECT 1 AS x FROM api_keys WHERE id = ?', keyId);
    throw new ServiceError(
      exists ? 'conflict' : 'not_found',
      exists ? `key ${keyId} is already revoked` : `no key ${keyId}`,
    );
  }
  return { key_id: keyId, revoked_at: revokedAt };
}

/** Creates a grant token for an agent; the token itself is returned to the caller once. */
export function issueAgentToken(): { token: string; tokenHash: string; jti: string } {
  const token = newSecret(AGENT_TOKEN_PREFIX);
  return { token, tokenHash: sha256Hex(token), jti: newId('jti') };
}

const UNAUTHORIZED_HINT =
  'send `Authorization: Bearer ndp_...` (organization key) or `Bearer ndca-...` (agent grant token)';

/**
 * Resolves a bearer to a principal. Missing, malformed, unknown, revoked and expired credentials
 * are all 401: none of them proves who is calling.
 */
export async function authenticate(ctx: Context, authorization: string | undefined): Promise<Principal> {
  const match = /^Bearer ([^\s]+)$/i.exec(authorization?.trim() ?? '');
  if (!match) throw new ServiceError('unauthorized', `missing bearer credential: ${UNAUTHORIZED_HINT}`);
  const secret = match[1]!;
  const kind = credentialKind(secret);
  if (kind === 'org_key') return await authenticateApiKey(ctx, secret);
  if (kind === 'agent_token') return await authenticateAgentToken(ctx, secret);
  // The bearer arrived, so the header was right whatever the adapter: only the credential's form is wrong.
  throw new ServiceError('unauthorized', `malformed credential: a credential is ${CREDENTIAL_FORM}`);
}

// Secrets are looked up by their SHA-256, never compared themselves: timing on the index lookup can
// reveal at most bits of a hash, which say nothing about the 256-bit secret behind it.

async function authenticateApiKey(ctx: Context, secret: string): Promise<OrgKeyPrincipal> {
  const hash = sha256Hex(secret);
  const row = await ctx.store.get<{
    id: string;
    key_hash: string;
    org_id: string | null;
    scopes: string;
    revoked_at: string | null;
  }>('SELECT id, key_hash, org_id, scopes, revoked_at FROM api_keys WHERE key_hash = ?', hash);
  if (!row || row.revoked_at) {
    throw new ServiceError('unauthorized', 'unknown or revoked organization key: use a current one');
  }
  return { kind: 'org_key', keyId: row.id, orgId: row.org_id, scopes: parseJson<Scope[]>(row.scopes, []) };
}

/** The columns a token lookup reads, in order: read as an array, with no object built per row. */
type GrantRow = [
  jti: string,
  agent_id: string,
  org_id: string,
  table_name: string,
  columns: string,
  classifications: string | null,
  where_json: string | null,
  expires_at: string,
  revoked_at: string | null,
  capabilities: string | null,
  handle: string,
  status: string,
];

async function authenticateAgentToken(ctx: Context, secret: string): Promise<AgentPrincipal> {
  const hash = sha256Hex(secret);
  // Read at every request. Keeping rows until the store's data version moved was tried: under
  // HTTP load 81% of lookups were answered from memory, yet that saved 1.4% of the server's time,
  // the version check costing most of what the lookup does.
  const [row] = (await ctx.store.allArrays(
    `SELECT g.jti, g.agent_id, g.org_id, g.table_name, g.columns, g.classifications, g.where_json,
            g.expires_at, g.revoked_at, g.capabilities, a.handle, a.status
       FROM agent_grants g JOIN agents a ON a.id = g.agent_id WHERE g.token_hash = ?`,
    hash,
  )) as GrantRow[];
  if (!row) {
    throw new ServiceError('unauthorized', 'unknown agent token: ask the owner for a new grant');
  }
  const [
    jti,
    agentId,
    orgId,
    table,
    columns,
    classifications,
    where,
    expiresAt,
    revokedAt,
    capabilities,
    handle,
    status,
  ] = row;
  if (revokedAt || status !== 'active') {
    throw new ServiceError('unauthorized', 'this agent grant was revoked: ask the owner for a new grant');
  }
  if (hasPassed(ctx, expiresAt)) {
    throw new ServiceError(
      'unauthorized',
      `this agent grant expired at ${expiresAt}: ask the owner for a new grant`,
    );
  }
  return {
    kind: 'agent',
    agentId,
    orgId,
    handle,
    status,
    jti,
    grant: {
      table,
      columns: parseJson<string[]>(columns, []),
      classifications: parseJson<string[] | null>(classifications, null),
      where: parseJson<Record<string, WhereValue>>(where, {}),
      expiresAt,
      capabilities: parseJson<Capability[]>(capabilities, []),
    },
  };
}

/** An organization key, bound to an organization, holding `scope`: anything else is 403. */
export function requireOrgKey(principal: Principal, scope: Exclude<Scope, '*'>): OrgCaller {
  if (principal.kind !== 'org_key') {
    throw new ServiceError(
      'wrong_credential',
      'this endpoint takes an organization key (ndp_), not an agent token',
    );
  }
  if (!principal.orgId) {
    throw new ServiceError(
      'no_organization',
      'this key is bound to no organization: create one with `svc key create --org ORG_ID`',
    );
  }
  if (!principal.scopes.includes('*') && !principal.scopes.includes(scope)) {
    throw new ServiceError('missing_scope', `this key lacks the \`${scope}\` scope (or \`*\`)`, {
      required_scope: scope,
    });
  }
  return principal as OrgCaller;
}

/** An agent token; when `handle` is given, the token must belong to that agent. */
export function requireAgent(principal: Principal, handle?: string): AgentPrincipal {
  if (principal.kind !== 'agent') {
    throw new ServiceError(
      'wrong_credential',
      'this endpoint takes an agent grant token (ndca-), not an organization key',
    );
  }
  if (handle !== undefined && handle !== principal.handle) {
    throw new ServiceError(
      'forbidden',
      `this token belongs to agent \`${principal.handle}\`, not \`${handle}\``,
    );
  }
  return principal;
}
