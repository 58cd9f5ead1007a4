// Registered sources: external HTTP APIs called on the organization's behalf. The credential is
// sealed at rest, injected into each request by the service, and masked in anything it returns.
import type { KeyObject } from 'node:crypto';
import { seal, unseal } from '../vault/seal.ts';
import { deriveKey } from '../vault/derive.ts';
import { MASK_WINDOW, Masker } from '../scan/mask.ts';
import { VaultError } from '../vault/key-vault.ts';
import { ServiceError } from './errors.ts';
import { newId, nowIso, type Context } from './context.ts';
import type { AgentPrincipal, OrgCaller } from './credentials.ts';
import { Refusal, actorOf, receiptRefusals } from './governance.ts';
import { guardedLookup, hostRange, systemResolve, type PrivateAddressError } from './network.ts';
import { SOURCE_SCHEMES, READ_METHODS, WRITE_METHODS } from './vocabulary.ts';

export { SOURCE_SCHEMES, READ_METHODS, WRITE_METHODS };

export type SourceScheme = (typeof SOURCE_SCHEMES)[number];
export type SourceMethod = (typeof READ_METHODS)[number] | (typeof WRITE_METHODS)[number];

/** What a call returns at most (UTF-8 bytes of body, after masking), so an API cannot flood a model's context. */
export const RESPONSE_BODY_LIMIT = 64 * 1024;
/**
 * What is read of an answer at most: the whole of it is masked before it is cut to
 * RESPONSE_BODY_LIMIT, so a cut never falls inside a credential; masking shrinks an answer that
 * echoes much, hence the margin. Reading stops there, which bounds memory and masking work.
 */
export const RESPONSE_READ_LIMIT = 4 * RESPONSE_BODY_LIMIT;
/**
 * The most an agent's call may carry in path, query and body together (characters): its answer is
 * searched for every encoded form of what it sent (see `reflected` in `call`), a few dozen forms at
 * worst, so this bounds that work (some 100 ms) and its memory (some 16 MB).
 */
export const USE_REQUEST_LIMIT = 32 * 1024;
const CALL_TIMEOUT_MS = 15_000;

interface SourceRow {
  id: string;
  name: string;
  base_url: string;
  scheme: SourceScheme;
  header_name: string | null;
  sealed_credential: string;
  credential_length: number;
  created_at: string;
  /** 1 when the owner let this source reach loopback, private and other special addresses. */
  allow_private_network: number;
}

export interface SourceInput {
  name: string;
  base_url: string;
  scheme: SourceScheme;
  header_name?: string | undefined;
  credential: string;
  allow_private_network?: boolean | undefined;
}

/** The key that seals an organization's source credentials (same salt and info as ever: stored ones must open). */
function sourceKey(ctx: Context, orgId: string): KeyObject {
  return deriveKey(ctx.vault.secret('data-columns'), { purpose: 'svc-source-credential-v1', salt: orgId });
}

function sealCredential(ctx: Context, orgId: string, sourceId: string, credential: string): string {
  return seal(sourceKey(ctx, orgId), credential, Buffer.from(sourceId));
}

function openCredential(ctx: Context, orgId: string, row: SourceRow): string {
  try {
    return unseal(sourceKey(ctx, orgId), row.sealed_credential, Buffer.from(row.id));
  } catch (error) {
    if (!(error instanceof VaultError && error.code === 'sealed_corrupt')) throw error;
    throw new ServiceError('internal', `the credential of source ${row.name} failed its integrity check`);
  }
}

const view = (row: SourceRow) => ({
  source_id: row.id,
  name: row.name,
  base_url: row.base_url,
  scheme: row.scheme,
  header_name: row.header_name,
  credential: `set (${row.credential_length} characters, never shown)`,
  allow_private_network: row.allow_private_network === 1,
  created_at: row.created_at,
});

/** How a source that may reach only public addresses is told it may not reach this one. */
const privateMessage = (address: string, range: string) =>
  `${address} is ${range}: a source reaches public addresses only, unless its owner registers it with allow_private_network: true (for a service on this machine or network)`;

export async function registerSource(ctx: Context, caller: OrgCaller, input: SourceInput) {
  return await receiptRefusals(ctx, () => insertSource(ctx, caller, input));
}

async function insertSource(ctx: Context, caller: OrgCaller, input: SourceInput) {
  if (input.scheme === 'header' && !input.header_name) {
    throw new ServiceError(
      'invalid_request',
      'scheme `header` needs header_name, the header that carries the credential',
    );
  }
  const base = new URL(input.base_url);
  if (base.protocol !== 'https:' && base.protocol !== 'http:') {
    throw new ServiceError('invalid_request', 'base_url must be an http or https URL', { field: 'base_url' });
  }
  if (base.username || base.password || base.search || base.hash) {
    throw new ServiceError('invalid_request', 'base_url carries no credentials, query or fragment', {
      field: 'base_url',
    });
  }
  // A refusal names the source asked for, never its credential.
  const refuse = (
    code: 'invalid_request' | 'conflict',
    message: string,
    reason: string,
    details: Record<string, unknown> = {},
  ) =>
    new Refusal(code, message, details, {
      kind: 'source.register.deny',
      org_id: caller.orgId,
      body: { ...actorOf(caller), name: input.name, base_url: base.href, scheme: input.scheme, reason },
    });
  // An IP literal or a name for this machine is refused at once; any other name is checked on the
  // addresses it resolves to, at each call.
  const special = input.allow_private_network ? undefined : hostRange(base.hostname);
  if (special) {
    throw refuse(
      'invalid_request',
      `base_url points at ${privateMessage(special.address, special.range)}`,
      'private_address',
      { field: 'base_url' },
    );
  }
  return ctx.store.write(async () => {
    if (
      await ctx.store.get(
        'SELECT 1 AS x FROM sources WHERE org_id = ? AND name = ?',
        caller.orgId,
        input.name,
      )
    ) {
      throw refuse('conflict', `a source named ${input.name} exists`, 'source_exists');
    }
    const id = newId('src');
    await ctx.store.run(
      `INSERT INTO sources (id, org_id, name, base_url, scheme, header_name, sealed_credential, credential_length, allow_private_network, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      id,
      caller.orgId,
      input.name,
      base.href.replace(/\/?$/, '/'),
      input.scheme,
      input.header_name ?? null,
      sealCredential(ctx, caller.orgId, id, input.credential),
      input.credential.length,
      input.allow_private_network ? 1 : 0,
      nowIso(ctx),
    );
    const source = view((await ctx.store.get<SourceRow>('SELECT * FROM sources WHERE id = ?', id))!);
    // Who let the service hold a credential and call where (the opt-in for private addresses
    // included) is on the record; the credential itself never is.
    const receipt = await ctx.chains.append('service', {
      kind: 'source.register',
      org_id: caller.orgId,
      signed_at: source.created_at,
      body: {
        ...actorOf(caller),
        source_id: id,
        name: source.name,
        base_url: source.base_url,
        scheme: source.scheme,
        header_name: source.header_name,
        allow_private_network: source.allow_private_network,
      },
    });
    return { ...source, receipt_id: receipt.receipt_id };
  });
}

export async function listSources(ctx: Context, caller: OrgCaller) {
  const sources = (
    await ctx.store.all<SourceRow>('SELECT * FROM sources WHERE org_id = ? ORDER BY name', caller.orgId)
  ).map(view);
  return { ok: true, count: sources.length, sources };
}

export interface CallInput {
  source: string;
  method: SourceMethod;
  path: string;
  query?: Record<string, string> | undefined;
  body?: unknown;
}

/**
 * Why a path is refused before it is resolved: anything an upstream may decode into a different
 * path than the one checked. An encoded / or \ (or a \ itself, which some servers split on) would
 * be one segment to the check and two to such an upstream (`contacts%2F..%2Fadmin`); an encoded dot
 * could become a dot segment; a stray %, or escaped bytes that are not UTF-8, cannot be decoded at all
 * (the check would throw) or not the same way by every server. None of them is needed: a path
 * writes / and . as they are.
 */
function pathProblem(path: string): { reason: string; message: string } | undefined {
  if (/%(?![0-9A-Fa-f]{2})/.test(path)) {
    return {
      reason: 'malformed_path',
      message: 'path has a % that does not begin a %XX escape: write a literal % as %25',
    };
  }
  if (/\\|%2f|%5c/i.test(path)) {
    return {
      reason: 'encoded_separator',
      message:
        'path may not carry \\ or an encoded / or \\ (%2F, %5C): servers differ on whether they split a path there; write each segment with a plain /',
    };
  }
  if (/%2e/i.test(path)) {
    return { reason: 'encoded_dot', message: 'path may not carry an encoded dot (%2E): write . as it is' };
  }
  try {
    decodeURIComponent(path);
  } catch {
    return { reason: 'malformed_path', message: 'path percent-escapes bytes that are not UTF-8 text' };
  }
  return undefined;
}

/** The target URL: `path` resolved under the source's base URL; undefined when it leaves it. */
function target(row: SourceRow, path: string, query: Record<string, string> | undefined): URL | undefined {
  const base = new URL(row.base_url);
  const url = new URL(path.replace(/^\/+/, ''), base);
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) return undefined;
  for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
  return url;
}

/** Calls the source with its credential injected; the answer never carries the credential. */
export async function callSource(
  ctx: Context,
  caller: OrgCaller,
  { confirmed, ...input }: CallInput & { confirmed?: boolean | undefined },
) {
  // A change made through an external API is the person's to make: it goes out only confirmed.
  // (An agent's svc_use needs no such step: its grant names the methods the owner allowed.)
  if ((WRITE_METHODS as readonly string[]).includes(input.method) && confirmed !== true) {
    throw new ServiceError(
      'invalid_request',
      `${input.method} ${input.path} changes something at ${input.source}: it needs the person's confirmation; ask them, then call again with confirmed: true. Nothing was sent.`,
      { field: 'confirmed' },
    );
  }
  return await receiptRefusals(ctx, () => call(ctx, caller.orgId, actorOf(caller), input));
}

/**
 * svc_use: an agent calls a source its grant names, for a method and under a path the grant
 * allows; the service injects the credential, which the agent never receives.
 */
export async function useCapability(ctx: Context, agent: AgentPrincipal, input: CallInput) {
  const granted = agent.grant.capabilities.filter(
    (c) => c.source === input.source && c.methods.includes(input.method),
  );
  // Checked on the resolved path (after `..` and escapes), segment by segment: `contacts` covers
  // `contacts/7`, never `contacts-admin` nor `contacts/../admin`. The answer is the longest
  // granted prefix that covers the path (the agent chose only what follows it).
  const allowPath = (relative: string): string | undefined =>
    granted
      .map((c) => c.path_prefix.replace(/\/+$/, ''))
      .filter((prefix) => prefix === '' || relative === prefix || relative.startsWith(`${prefix}/`))
      .sort((a, b) => b.length - a.length)[0];
  return await receiptRefusals(ctx, () => call(ctx, agent.orgId, actorOf(agent), input, allowPath));
}

/**
 * The call itself. `allowPath`, for an agent, answers the granted prefix that allows the resolved
 * path (undefined when none does); every refusal is receipted (`api.call.deny`) with the caller,
 * the source, method and path asked (never the query or body), and every call that went out is
 * receipted (`api.call`).
 */
async function call(
  ctx: Context,
  orgId: string,
  actor: Record<string, string>,
  input: CallInput,
  allowPath?: (relative: string) => string | undefined,
) {
  const caller = { orgId };
  const refuse = (
    code: 'scope_violation' | 'not_found' | 'invalid_request' | 'forbidden',
    message: string,
    details: Record<string, unknown>,
    reason: string,
    path: string,
  ) =>
    new Refusal(code, message, details, {
      kind: 'api.call.deny',
      org_id: orgId,
      body: { ...actor, source: input.source, method: input.method, path, reason },
    });
  // What was asked, without a query or fragment the path may carry.
  const asked = input.path.split(/[?#]/)[0]!;
  // The path is checked as it will be sent; what an upstream could read otherwise is refused.
  const problem = pathProblem(asked);
  if (problem) throw refuse('invalid_request', problem.message, { field: 'path' }, problem.reason, asked);
  const row = await ctx.store.get<SourceRow>(
    'SELECT * FROM sources WHERE org_id = ? AND name = ?',
    caller.orgId,
    input.source,
  );
  // To an agent an unregistered source is one its grant does not allow: which sources exist is not its business.
  if (!row && allowPath) {
    throw refuse(
      'scope_violation',
      `this grant does not allow calls to ${input.source}`,
      { denied_capability: { source: input.source, method: input.method, path: input.path } },
      'scope_violation',
      asked,
    );
  }
  if (!row) {
    throw refuse(
      'not_found',
      `no source ${input.source}: list them with svc_api_list`,
      {},
      'unknown_source',
      asked,
    );
  }
  const url = target(row, input.path, input.query);
  if (!url) {
    throw refuse(
      'invalid_request',
      `path must stay under ${row.base_url}`,
      { field: 'path' },
      'path_outside_source',
      asked,
    );
  }
  /** For an agent, what of its request the answer may echo: masked wherever it is (see below). */
  const reflected: string[] = [];
  let carried = url.pathname.length + url.search.length;
  if (allowPath) {
    // Decoding cannot fail (pathProblem) nor add a separator or a dot segment: the path checked
    // is the path sent, read the way the upstream reads it.
    const sent = url.pathname.slice(new URL(row.base_url).pathname.length);
    const relative = decodeURIComponent(sent);
    const prefix = allowPath(relative);
    if (prefix === undefined) {
      throw refuse(
        'scope_violation',
        `this grant does not allow ${input.method} ${relative} on ${input.source}`,
        { denied_capability: { source: input.source, method: input.method, path: relative } },
        'scope_violation',
        url.pathname,
      );
    }
    // The granted prefix is the owner's text; what follows it, with enough of the prefix before it
    // to fill a masking window, is the agent's.
    const from = Math.max(0, prefix.length - (MASK_WINDOW - 1));
    reflected.push(sent.slice(from), relative.slice(from), url.search);
    for (const [key, value] of url.searchParams) reflected.push(key, value);
  }
  // A source registered before private addresses were refused, or any IP literal, is checked here;
  // a name is checked on the addresses it resolves to, in the connection's own lookup (below).
  const allowPrivate = row.allow_private_network === 1;
  const literal = allowPrivate ? undefined : hostRange(url.hostname);
  if (literal) {
    throw refuse(
      'forbidden',
      `${input.source} points at ${privateMessage(literal.address, literal.range)}. Nothing was sent.`,
      {},
      'private_address',
      url.pathname,
    );
  }
  const credential = openCredential(ctx, caller.orgId, row);
  const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9, */*;q=0.5' };
  if (row.scheme === 'bearer') headers.authorization = `Bearer ${credential}`;
  else if (row.scheme === 'basic')
    headers.authorization = `Basic ${Buffer.from(credential).toString('base64')}`;
  else headers[row.header_name!.toLowerCase()] = credential;
  let body: string | undefined;
  if (input.body !== undefined && input.method !== 'GET' && input.method !== 'HEAD') {
    body = typeof input.body === 'string' ? input.body : JSON.stringify(input.body);
    headers['content-type'] =
      typeof input.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json';
  }
  if (allowPath) {
    if (body !== undefined) reflected.push(body);
    carried += body?.length ?? 0;
    if (carried > USE_REQUEST_LIMIT) {
      throw refuse(
        'invalid_request',
        `this call carries ${carried} characters of path, query and body; an agent's call carries at most ${USE_REQUEST_LIMIT}. Nothing was sent.`,
        { limit: USE_REQUEST_LIMIT },
        'request_too_large',
        url.pathname,
      );
    }
  }
  // Everything the source answers is masked: the credential in every encoding, any part of it of
  // MASK_WINDOW characters or more, and for an agent, its own request wherever the answer echoes
  // it, so that a guess echoed back looks the same whether it was right or not.
  // For Basic, the password alone too (an upstream may show it decoded), and the base64 form that
  // was sent, since an upstream that base64-encodes what it echoes encodes that form again.
  const secrets = [credential];
  if (row.scheme === 'basic') {
    secrets.push(Buffer.from(credential).toString('base64'));
    if (credential.includes(':')) secrets.push(credential.slice(credential.indexOf(':') + 1));
  }
  const masker = new Masker(secrets, { reflected });
  /** Every call that went out is receipted, answered (its status) or not (null). */
  const receiptCall = (status: number | null) =>
    ctx.chains.append('service', {
      kind: 'api.call',
      org_id: caller.orgId,
      signed_at: nowIso(ctx),
      body: {
        org_id: caller.orgId,
        ...actor,
        source: row.name,
        method: input.method,
        path: url.pathname,
        status,
      },
    });
  // undici loads with the first source call, not with every process that opens the core. The
  // dispatcher's lookup hands the connection only addresses this source may reach, so the address
  // connected to is the one checked (a name that resolves elsewhere by then, DNS rebinding, is
  // refused). Redirects are not followed: undici's request does not, and none is configured.
  const { Agent, request } = await import('undici');
  const dispatcher = new Agent({
    connect: { lookup: guardedLookup(ctx.resolveHost ?? systemResolve, allowPrivate) },
  });
  try {
    let response;
    try {
      response = await request(url, {
        method: input.method,
        headers,
        body: body ?? null,
        headersTimeout: CALL_TIMEOUT_MS,
        bodyTimeout: CALL_TIMEOUT_MS,
        dispatcher,
      });
    } catch (error) {
      const refused = privateAddressOf(error);
      if (refused) {
        // No connection was made: nothing went out, so this is a refusal, not a call.
        throw refuse(
          'forbidden',
          `${input.source}: ${url.hostname} resolves to ${privateMessage(refused.address, refused.range)}. Nothing was sent.`,
          {},
          'private_address',
          url.pathname,
        );
      }
      // The request went out with the credential, so it is an access like any other: receipted.
      const receipt = await receiptCall(null);
      throw new ServiceError('gone', `the source did not answer: ${masker.mask((error as Error).message)}`, {
        receipt_id: receipt.receipt_id,
      });
    }
    // Read at most RESPONSE_READ_LIMIT bytes; the whole of what was read is masked, then cut.
    const chunks: Buffer[] = [];
    let size = 0;
    let complete = true;
    for await (const chunk of response.body) {
      const buffer = chunk as Buffer;
      if (size + buffer.length >= RESPONSE_READ_LIMIT) {
        chunks.push(buffer.subarray(0, RESPONSE_READ_LIMIT - size));
        // At the limit exactly, the answer may still have ended; an extra byte would say, but
        // counting it as cut only drops a few characters that could begin a credential.
        complete = false;
        response.body.destroy();
        break;
      }
      chunks.push(buffer);
      size += buffer.length;
    }
    // A character cut in half by the read limit is left out rather than decoded as U+FFFD.
    const text = new TextDecoder().decode(Buffer.concat(chunks), { stream: !complete });
    const answer = masker.answer(text, { limitBytes: RESPONSE_BODY_LIMIT, complete });
    const contentType = response.headers['content-type'];
    const result = {
      source: row.name,
      method: input.method,
      url: url.href,
      status: response.statusCode,
      // A header is the upstream's text too: masked, and bounded.
      content_type: typeof contentType === 'string' ? masker.mask(contentType.slice(0, 256)) : null,
      body: answer.text,
      truncated: answer.truncated,
    };
    const receipt = await receiptCall(response.statusCode);
    return { ...result, receipt_id: receipt.receipt_id };
  } finally {
    await dispatcher.destroy();
  }
}

/** The private-address refusal a connection's lookup raised, if that is why the request failed. */
function privateAddressOf(error: unknown): PrivateAddressError | undefined {
  for (let e = error; e instanceof Error; e = e.cause) {
    if ((e as { code?: unknown }).code === 'SVC_PRIVATE_ADDRESS') return e as PrivateAddressError;
  }
  return undefined;
}
